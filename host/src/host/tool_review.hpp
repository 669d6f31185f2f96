// The rug-pull guard's view of every live server's tools — each tool scanned (with the other
// servers' tools as cross-server context), compared with its pin, the withhold policy applied, the
// allowed ones under their mapped names — computed once per change of an input and shared,
// read-only, by every call until the next change (Host::Impl::tool_review, tool_review.cpp).
//
// Why a snapshot: the review costs a scan of every tool and a canonical-JSON SHA-256 per pinned
// tool; a call_tool that redid it paid that per call (milliseconds for a large description).
// Inputs and how a change is seen:
//   a server's tool list     SessionCore::tools_generation() (fetch, list_changed refresh,
//                            reconnect, the lists cleared at a disconnect; unique per process)
//   the other servers' lists the same numbers: the snapshot keeps one per server of the table
//   pins, withhold policy,   Host::Impl::review_epoch, bumped under the host mutex wherever they
//   the server table         change (load_servers: reload, approvals, settings; approve; disconnect)
// A snapshot is checked against the current numbers at every use, so a stale one is never served.
#pragma once

#include <mcph/host.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcph {

// One server's tools as the guard sees them.
struct ServerToolReview {
    std::vector<Tool> scanned;            // every tool the server lists, with its findings
    std::vector<Tool> allowed;            // what may be offered and called (findings kept)
    std::vector<WithheldTool> withheld;   // changed or new since approval, or flagged under the policy
};

struct ToolReviewSnapshot {
    // The key: the review epoch, and per server of the table (in order) the tools generation of
    // its live session, 0 when it has none.
    std::uint64_t epoch = 0;
    std::vector<std::uint64_t> generations;

    std::map<std::string, ServerToolReview> servers;  // live servers only
    std::vector<Tool> mapped;  // Host::tools(): allowed tools under mapped names, collisions left out
    // mapped name -> {server, original name}, for the allowed tools in `mapped`
    std::unordered_map<std::string, std::pair<std::string, std::string>> by_mapped;
    // mapped name -> server, for the withheld tools (a call to one says why it is refused)
    std::unordered_map<std::string, std::string> withheld_by_mapped;
};

}  // namespace mcph
