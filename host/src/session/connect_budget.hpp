// The host's connect timeout, handed to a remote transport plugin in its config: the HTTP, SSE and
// WebSocket plugins read `connectTimeoutMs` (1..600000) and bound their own connect with it, so
// --connect-timeout holds inside the plugin too, not only in the host's wait for initialize.
#pragma once

#include <chrono>
#include <string>

namespace mcph::session {

// `config_json` with connectTimeoutMs at most `connect_timeout` (a smaller value the user set for
// that server is kept). Throws mcph::Error(Usage) on a config that is not a JSON object.
std::string with_connect_timeout(const std::string& config_json, std::chrono::milliseconds connect_timeout);

}  // namespace mcph::session
