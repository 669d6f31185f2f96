// Which error messages mean "the connection itself is broken" (seed 000 §18.8), as opposed to the
// server answering with an error. The seed's nine signals are Node.js words (ECONNRESET, ETIMEDOUT,
// EPIPE, EHOSTUNREACH, ECONNREFUSED, undici's "Body Timeout Error" and "terminated", "SSE stream
// disconnected", "Failed to reconnect SSE stream"); here they are spelled the way our transports,
// libcurl, libwebsockets, Boost.Asio and glibc's strerror spell them. The table in the .cpp says
// which text comes from where.
//
// Only feed this messages of transport-level failures (mcph::Error of kind Connection or Timeout, and
// the -32000 JSON-RPC errors the HTTP transports synthesise with data.httpStatus 0). A tool's own
// error text ("fetch failed: Connection refused") describes the server's upstream, not our link.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace mcph::connection {

struct TerminalSignal {
    std::string_view needle;  // matched case-insensitively anywhere in the message
    std::string_view signal;  // the seed signal it stands for, e.g. "ECONNRESET"
    std::string_view source;  // who emits it, for whoever maintains the table
};

// Every entry, in match order.
std::span<const TerminalSignal> terminal_signals();

// The first entry whose needle occurs in `message`, if any (for logs: "terminal: ECONNREFUSED").
std::optional<TerminalSignal> match_terminal_signal(std::string_view message);

bool is_terminal_connection_error(std::string_view message);

}  // namespace mcph::connection
