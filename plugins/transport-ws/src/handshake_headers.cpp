#include "handshake_headers.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace mcph::ws {
namespace {

// RFC 9110 token characters.
bool is_tchar(unsigned char c) {
    if (std::isalnum(c)) return true;
    switch (c) {
        case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
        case '-': case '.': case '^': case '_': case '`': case '|': case '~':
            return true;
        default:
            return false;
    }
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

bool is_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_tchar(static_cast<unsigned char>(c)); });
}

bool is_reserved_header(std::string_view name) {
    static constexpr std::array<std::string_view, 9> kReserved = {
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding"};
    return std::any_of(kReserved.begin(), kReserved.end(), [&](std::string_view r) { return iequals(r, name); });
}

std::string header_problem(std::string_view name, std::string_view value) {
    if (name.empty()) return "has an empty name";
    if (!is_token(name))
        return "has an invalid name (only RFC 9110 token characters are allowed)";
    if (is_reserved_header(name)) return "is set by the WebSocket handshake itself and cannot be overridden";
    for (char c : value) {
        auto u = static_cast<unsigned char>(c);
        if (u == '\r' || u == '\n' || u == '\0') return "has a value containing a line break or NUL";
    }
    return {};
}

}  // namespace mcph::ws
