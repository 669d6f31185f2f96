// The rug-pull guard's view of every live server's tools — each tool scanned (with the other
// servers' tools as cross-server context), compared with its pin, the withhold policy applied, the
// allowed ones under their mapped names — computed once per change of an input and shared,
// read-only, by every call until the next change (Host::Impl::tool_review, tool_review.cpp).
//
// Why a snapshot: the review costs a scan of every tool and a canonical-JSON SHA-256 per pinned
// tool; a call_tool that redid it paid that per call (milliseconds for a large description).
// Inputs and how a change is seen: one counter, Host::Impl::review_generation, moves whenever any
// of them changes, and a snapshot is served only while the counter still reads what it read
// before the snapshot was built — one atomic load per call, however many servers:
//   a server's tool list     every session bumps the counter after each write of its list
//                            (SessionSettings::tools_generation: fetch, list_changed refresh,
//                            reconnect, the lists cleared at a disconnect or close)
//   the other servers' lists the same counter (cross-server shadowing context)
//   a server going live      Host::Impl::on_state_change
//   pins, withhold policy,   review_inputs_changed(), under the host mutex with the change
//   the server table         (load_servers: reload, approvals, settings; approve; disconnect)
// A change made while a snapshot is being built is seen at its next use: it is rebuilt.
#pragma once

#include <mcph/host.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mcph {

// One server's tools as the guard sees them.
struct ServerToolReview {
    std::vector<Tool> scanned;            // every tool the server lists, with its findings
    std::vector<Tool> allowed;            // what may be offered and called (findings kept)
    std::vector<WithheldTool> withheld;   // changed or new since approval, or flagged under the policy

    // The two lists by original name, built once with the snapshot (index()), so that judging a
    // call is one lookup each, not a scan of the server's tools: with 500 tools the scan cost
    // Host::call_tool ~5 µs of CPU a call over ClientSession::call_tool (bench/README.md,
    // "Calls by mapped name").
    std::unordered_set<std::string> allowed_names;
    std::unordered_map<std::string, std::size_t> withheld_index;  // name -> position in `withheld`

    void index();
    bool allows(const std::string& name) const { return allowed_names.count(name) != 0; }
    // The withheld entry of this original name, or null.
    const WithheldTool* withheld_tool(const std::string& name) const;
};

struct ToolReviewSnapshot {
    std::uint64_t generation = 0;  // Host::Impl::review_generation, read before the inputs

    std::map<std::string, ServerToolReview> servers;  // live servers only
    std::vector<Tool> mapped;  // Host::tools(): allowed tools under mapped names, collisions left out
    // mapped name -> {server, original name}, for the allowed tools in `mapped`
    std::unordered_map<std::string, std::pair<std::string, std::string>> by_mapped;
    // mapped name -> server, for the withheld tools (a call to one says why it is refused)
    std::unordered_map<std::string, std::string> withheld_by_mapped;
};

}  // namespace mcph
