#include "request_tracker.hpp"

namespace mcph::http {

void RequestTracker::sent(const std::vector<std::string>& ids, const std::string& host_id) {
    for (const std::string& id : ids) outstanding_[id] = ids.size() == 1 && !host_id.empty() ? host_id : id;
}

std::string RequestTracker::host_id(const std::string& id) const {
    auto it = outstanding_.find(id);
    return it == outstanding_.end() ? id : it->second;
}

std::string RequestTracker::find_by_host_id(const std::string& host_id) const {
    if (outstanding_.count(host_id)) return host_id;  // the usual case: the same spelling
    for (const auto& [id, spelled] : outstanding_)
        if (spelled == host_id) return id;
    return {};
}

std::vector<std::string> RequestTracker::waiting(const std::vector<std::string>& ids) const {
    std::vector<std::string> out;
    for (const std::string& id : ids)
        if (outstanding_.count(id)) out.push_back(id);
    return out;
}

bool RequestTracker::any_waiting(const std::vector<std::string>& ids) const {
    for (const std::string& id : ids)
        if (outstanding_.count(id)) return true;
    return false;
}

}  // namespace mcph::http
