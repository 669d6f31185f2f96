// Validation of the extra headers we put on the WebSocket upgrade request.
//
// Why validate at all: the values come from config files and from auth plugins, and libwebsockets
// copies them verbatim into the request. A CR/LF would let a value inject headers; a configured
// "Sec-WebSocket-Key" or "Host" would break the handshake in ways that are hard to diagnose.
#pragma once

#include <string>
#include <string_view>

namespace mcph::ws {

// Empty when `name: value` may be sent; otherwise why not (e.g. "contains a line break").
std::string header_problem(std::string_view name, std::string_view value);

// True when `s` is a non-empty RFC 9110 token (header names, subprotocol names).
bool is_token(std::string_view s);

// True for the headers the WebSocket handshake itself owns (Host, Upgrade, Sec-WebSocket-*...).
bool is_reserved_header(std::string_view name);

}  // namespace mcph::ws
