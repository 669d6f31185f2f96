#include "request_tracker.hpp"

namespace mcph::http {

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
