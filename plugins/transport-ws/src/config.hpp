// The "ws" / "ws-ide" server config object, parsed and validated once in create().
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::ws {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The parts of `url` libwebsockets needs, split by libcurl's URL parser (never by hand).
struct Endpoint {
    std::string url;          // as configured, for messages and the auth hook's resource_url
    bool tls = false;         // wss://
    std::string address;      // host to resolve/connect to, IPv6 without brackets
    int port = 0;             // explicit or the scheme's default (80 / 443)
    std::string host_header;  // Host: value, with brackets and a non-default port
    std::string path;         // path plus "?query", never empty
};

struct WsConfig {
    std::string type = "ws";  // "ws" or "ws-ide"
    std::string name;         // server name, for messages and logs
    Endpoint endpoint;        // required `url`
    HeaderList headers;       // extra handshake headers, validated (see handshake_headers.hpp)
    std::string ca_file;      // PEM bundle trusted in addition to the system store (wss only)
    std::string subprotocol = "mcp";  // Sec-WebSocket-Protocol offered; "" offers none
    std::chrono::milliseconds connect_timeout{10000};
    std::chrono::milliseconds ping_interval{30000};  // 0: no keep-alive pings
    // How long the service thread goes without progress, with the connection only waiting for the
    // server, before it hands the socket to the plugin's idle watch and ends (ws_idle.cpp); 0: never.
    std::chrono::milliseconds loop_idle{2000};
    size_t max_message_bytes = size_t{128} << 20;    // both directions
    // "ws-ide" only: metadata about the IDE extension we talk to (reported in diagnostics).
    std::string ide_name;
    bool ide_running_in_windows = false;
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) naming the bad field.
WsConfig parse_config(std::string_view json);

// Splits a ws:// or wss:// URL with curl_url(). Throws like parse_config ("'url' ...").
Endpoint parse_endpoint(const std::string& url);

}  // namespace mcph::ws
