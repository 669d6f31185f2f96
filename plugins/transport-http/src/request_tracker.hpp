// Requests sent and not yet answered. [I/O thread only]
//
// A POST's stream is "done" once every request it carried was answered — on that stream, on a
// resumption of it, or (servers differ) on the standalone GET stream. Ids are canonical JSON
// text (see jsonrpc_shape.hpp).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace mcph::http {

class RequestTracker {
public:
    void sent(const std::vector<std::string>& ids) { outstanding_.insert(ids.begin(), ids.end()); }
    // Returns true when `id` was outstanding.
    bool answered(const std::string& id) { return outstanding_.erase(id) > 0; }
    // The subset of `ids` still waiting for a response.
    std::vector<std::string> waiting(const std::vector<std::string>& ids) const;
    bool any_waiting(const std::vector<std::string>& ids) const;
    size_t size() const { return outstanding_.size(); }

private:
    std::unordered_set<std::string> outstanding_;
};

}  // namespace mcph::http
