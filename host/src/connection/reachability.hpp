// A quick "can we even open a TCP connection?" check for HTTP-family servers (http, https, ws, wss),
// run when a connect failed or is slow (reachability_watch.hpp) so a failure names the step that failed — a typo in the URL, a host
// that does not resolve, a port nobody listens on, or silence — instead of surfacing later as a
// generic transport or handshake error.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace mcph::connection {

// nullopt when a TCP connection to the URL's host and port could be opened (it is closed at once;
// no byte is sent, so TLS and HTTP are not checked). Otherwise one of:
//   not a valid URL: '<url>' (<reason>)
//   DNS lookup of '<host>' failed: <resolver message>
//   DNS lookup of '<host>' timed out after <N> ms
//   TCP connect to <host>:<port> failed: <reason, e.g. connection refused> (tried <k> address[es])
//   TCP connect to <host>:<port> timed out after <N> ms
// Every resolved address is tried, in resolver order. Default ports: 80 (http, ws), 443 (https, wss).
// Returns within `timeout` plus scheduling slack, even when the system resolver hangs.
// Throws mcph::Error(Usage) if `timeout` is not positive. Thread-safe (all state is per call).
std::optional<std::string> check_reachable(const std::string& url, std::chrono::milliseconds timeout);
// The same for a probe started `spent` into an attempt whose reachability budget is `timeout`: it
// runs for what is left of it (at least 1 ms), and a time-out still names `timeout`, the whole
// budget, so a silent host ends at the same moment, with the same message, as a probe run first.
std::optional<std::string> check_reachable(const std::string& url, std::chrono::milliseconds timeout,
                                           std::chrono::milliseconds spent);

}  // namespace mcph::connection
