// The user's trust decisions: which server definitions they approved (by a hash of the definition as
// written) and what each server showed them then — tools, prompts, resources, instructions — pinned
// by hash (seed 000 §18.6: project servers need explicit approval; the rug-pull guard).
//
// The store lives in the user's config home (config_home/approvals.json, mode 0600), never in the
// project: a repository could otherwise ship an approvals file that pre-approves its own servers,
// and cloning it would be enough to run them. For the same reason the file, and its folder, must
// belong to the current user and be writable by nobody else (file_trust.hpp).
//
// An approval is keyed by scope, origin (the file defining the server) and project, not by the bare
// server name: approving "github" in one project says nothing about another project's "github", or
// about the user's (issue #9 item 11). Version-1 records (keyed by name only) are not honoured — the
// user approves again — and are dropped at the next write.
//
// The pin set is explicit: an approval always records what was seen, possibly nothing (a server
// that listed no tools, or could not be reached). Anything that appears later is new since approval
// and is held back until the user approves again; nothing is ever pinned without the user.
//
// Every change is read-modify-write under an exclusive flock on "<file>.lock" (opened O_NOFOLLOW,
// so a planted symlink cannot make it create or lock another file), then an atomic write. A corrupt
// file is an error naming it and what to do; it is never silently replaced.
//
// File shape: {"version":2,"approvals":[{"scope":"project","origin":"/repo/.mcp.json","project":
//   "/repo","server":"...","signature":"...","pins":{"tools":{"t":"hash"},"prompts":{},"resources":{},
//   "instructions":"hash"},"approvedAt":"2025-01-02T03:04:05Z"}]}
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::config {

struct ApprovalKey {
    std::string scope;    // scope_name() of the approved definition
    std::string origin;   // the file (or source) that defines it
    std::string project;  // the project root for project and local servers, "" for the others
    std::string server;
    bool operator==(const ApprovalKey&) const = default;
};

// What the server showed when the user approved it. Names (tool, prompt names; resource URIs) map to
// the hash of their definition; `instructions` is the hash of the instructions text ("" text too).
struct Pins {
    std::map<std::string, std::string> tools;
    std::map<std::string, std::string> prompts;
    std::map<std::string, std::string> resources;
    std::string instructions;
    bool operator==(const Pins&) const = default;
};

struct Approval {
    ApprovalKey key;
    std::string signature;    // hash of the approved definition as written
    Pins pins;                // explicit, possibly empty
    std::string approved_at;  // ISO-8601 UTC; save() fills it in when empty
};

// Thread-safe and multi-process-safe, with no state in memory: every call reads the file afresh.
// Changes take the lock; reads need none, since the file is only ever replaced whole by a rename.
class ApprovalStore {
public:
    explicit ApprovalStore(std::filesystem::path file);

    const std::filesystem::path& file() const { return file_; }

    // nullopt when nothing is recorded (or the file does not exist). Throws mcph::Error(Usage) when
    // the file is corrupt, or it or its folder is not the user's own.
    std::optional<Approval> find(const ApprovalKey& key) const;
    // Every approval, in file order.
    std::vector<Approval> list() const;
    // Inserts, or replaces the approval with the same key.
    void save(const Approval& approval);
    // False when there was nothing to remove.
    bool remove(const ApprovalKey& key);
    // Removes every approval of `server` defined in `origin` (in any project): `mcph remove` takes
    // the definition away, and a later definition of that name must be approved afresh. The number
    // removed.
    std::size_t remove_defined_in(const std::string& origin, const std::string& server);

    // "2025-01-02T03:04:05Z" for now.
    static std::string now_iso8601();

private:
    std::filesystem::path file_;
};

// ---- sub-agent definition files (docs/agents.md) -----------------------------------------------
// A project's agent file is approved like a project server: by the hash of what it says, in the
// same store (never in the project). The record's scope is "agent-file", its origin the file, its
// project the project root and its "server" the agent's name; nothing is pinned. Any change of the
// file — a new inline server, a new reference, even a changed prompt — changes the signature, so
// the agent is refused until approved again.
ApprovalKey agent_file_approval_key(const std::string& file, const std::string& project_root, const std::string& agent);
// "sha256:<hex>" of the file's bytes.
std::string agent_file_signature(std::string_view content);

}  // namespace mcph::config
