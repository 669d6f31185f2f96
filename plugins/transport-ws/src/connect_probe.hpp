// Finds out *why* a TCP connect failed, after libwebsockets said only "Unable to connect".
//
// Why a second connect: lws 4.1 reads the socket's SO_ERROR to decide the connect failed and then
// drops the value (it only reaches a debug log compiled out of release builds), so "connection
// refused" vs "host unreachable" vs "timed out" is lost. A user fixing a config needs that
// difference, so on this failure path only, the host thread makes one short, non-blocking
// connect of its own to the same address and reports its errno.
#pragma once

#include <chrono>
#include <string>

namespace mcph::ws {

// E.g. "connection refused (127.0.0.1 port 8080)"; empty when the probe learned nothing (for
// instance because the server accepts connections now).
std::string probe_connect_failure(const std::string& address, int port, std::chrono::milliseconds timeout);

}  // namespace mcph::ws
