// The user's trust decisions: which project-server definitions they approved (by content signature)
// and the tool definitions they pinned (seed 000 §18.6: project servers need explicit approval).
//
// The store lives in the user's config home (config_home/approvals.json, mode 0600), never in the
// project: a repository could otherwise ship an approvals file that pre-approves its own servers,
// and cloning it would be enough to run them. For the same reason a file that other users may write
// is refused.
//
// Every change is read-modify-write under an exclusive flock on "<file>.lock", then an atomic
// write, so two mcph processes approving at the same moment both land. A corrupt file is an error
// naming it and what to do; it is never silently replaced (that would drop every approval and pin,
// and a reset pin is how a changed tool would slip through unnoticed).
//
// File shape: {"version":1,"approvals":[{"project":"...","server":"...","signature":"...",
//               "toolPins":{"tool":"hash"},"approvedAt":"2025-01-02T03:04:05Z"}]}
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcph::config {

struct Approval {
    std::string project_key;  // the project root for project servers, "" for others
    std::string server;
    std::string signature;                         // content signature of the approved definition
    std::map<std::string, std::string> tool_pins;  // tool name -> hash of its definition
    std::string approved_at;                       // ISO-8601 UTC; save() fills it in when empty
};

// Thread-safe and multi-process-safe, with no state in memory: every call reads the file afresh.
// Changes take the lock; reads need none, since the file is only ever replaced whole by a rename.
class ApprovalStore {
public:
    explicit ApprovalStore(std::filesystem::path file);

    const std::filesystem::path& file() const { return file_; }

    // nullopt when nothing is recorded (or the file does not exist). Throws mcph::Error(Usage) when
    // the file is corrupt or writable by others.
    std::optional<Approval> find(const std::string& project_key, const std::string& server) const;
    // Every approval, in file order.
    std::vector<Approval> list() const;
    // Inserts, or replaces the approval with the same project_key and server.
    void save(const Approval& approval);
    // False when there was nothing to remove.
    bool remove(const std::string& project_key, const std::string& server);

    // "2025-01-02T03:04:05Z" for now.
    static std::string now_iso8601();

private:
    std::filesystem::path file_;
};

}  // namespace mcph::config
