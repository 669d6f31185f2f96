// Requests sent and not yet answered. [I/O thread only]
//
// A POST's stream is "done" once every request it carried was answered — on that stream, on a
// resumption of it, or (servers differ) on the standalone GET stream. Ids are canonical JSON
// text (see jsonrpc_shape.hpp).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace mcph::http {

class RequestTracker {
public:
    // `host_id` is how the host spells the id of a single request (message facts), when it said;
    // failures are reported under that spelling.
    void sent(const std::vector<std::string>& ids, const std::string& host_id = {});
    // Returns true when `id` was outstanding.
    bool answered(const std::string& id) { return outstanding_.erase(id) > 0; }
    // The host's spelling of outstanding `id` (the canonical text when it gave none).
    std::string host_id(const std::string& id) const;
    // The canonical id the host calls `host_id`, or "" when none is outstanding.
    std::string find_by_host_id(const std::string& host_id) const;
    // The subset of `ids` still waiting for a response.
    std::vector<std::string> waiting(const std::vector<std::string>& ids) const;
    bool any_waiting(const std::vector<std::string>& ids) const;
    size_t size() const { return outstanding_.size(); }

private:
    std::unordered_map<std::string, std::string> outstanding_;  // canonical id → the host's spelling
};

}  // namespace mcph::http
