// The "sse" / "sse-ide" server config object, parsed and validated once in create().
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::sse {

struct SseConfig {
    std::string type = "sse";                                 // "sse" or "sse-ide"
    std::string name;                                         // server name, for messages and logs
    std::string url;                                          // required: the SSE endpoint (http/https)
    std::vector<std::pair<std::string, std::string>> headers; // static, added to every request
    std::chrono::milliseconds timeout{60000};                 // per POST
    std::chrono::milliseconds connect_timeout{10000};
    std::string ca_file;                                      // empty: the system trust store
    size_t max_message_bytes = size_t{128} << 20;
    // "loopIdleMs": how long the I/O thread goes without progress, with nothing but the event
    // stream and unanswered POSTs left, before it hands their sockets to the plugin's idle watch
    // and ends (sse_engine_idle.cpp); 0: it never does.
    std::chrono::milliseconds loop_idle{2000};

    // "sse-ide" only: which IDE runs the server. Validated and reported; no behaviour depends on
    // them (the IDE-hosted servers speak plain legacy SSE).
    std::optional<std::string> ide_name;
    std::optional<bool> ide_running_in_windows;

    std::string describe() const;  // one line for diagnostics, no header values (they may be secrets)
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) naming the bad field.
SseConfig parse_config(std::string_view json);

// Header names the transport itself manages (Accept, Content-Type, ...): neither the config nor
// the auth hook may set them, or a request would carry two conflicting values.
bool is_managed_header(std::string_view name);

// RFC 9110 token characters (a valid header name).
bool is_token(std::string_view s);

// A value that cannot smuggle extra header lines in (no CR, LF or NUL).
bool is_safe_header_value(std::string_view s);

}  // namespace mcph::sse
