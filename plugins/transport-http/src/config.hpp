// The "http" server config object, parsed and validated once in create().
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::http {

struct HttpConfig {
    std::string name;                                         // server name, for messages and logs
    std::string url;                                          // required; http:// or https://
    std::vector<std::pair<std::string, std::string>> headers; // static, added to every request
    std::chrono::milliseconds timeout{60000};                 // per POST (see README: streamed responses)
    std::chrono::milliseconds connect_timeout{10000};
    std::string ca_file;                                      // empty: the system trust store
    size_t max_message_bytes = size_t{128} << 20;
    // "loopIdleMs": how long the loop thread goes without progress, with nothing but quiet streams
    // left, before it hands their sockets to the plugin's idle watch and ends (engine_idle.cpp);
    // 0: it never does.
    std::chrono::milliseconds loop_idle{2000};
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) naming the bad field.
HttpConfig parse_config(std::string_view json);

// True for header names the transport itself manages (Accept, Content-Type, Mcp-Session-Id, ...):
// neither the config nor the auth hook may set them, or requests would carry two conflicting values.
bool is_managed_header(std::string_view name);

// RFC 9110 token characters (header names) / visible ASCII (session ids, protocol versions).
bool is_token(std::string_view s);
bool is_visible_ascii(std::string_view s);

}  // namespace mcph::http
