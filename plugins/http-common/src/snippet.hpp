// The first bytes of a response body, fit to quote in an error message, for both HTTP transports:
// JSON-RPC error texts and log lines must stay valid UTF-8 and on one line, whatever a server sent.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcph::http {

inline constexpr size_t kSnippetBytes = 200;

// At most `max` bytes of `body`: control bytes become spaces, broken UTF-8 becomes '?',
// trailing spaces are dropped.
std::string snippet(std::string_view body, size_t max = kSnippetBytes);

}  // namespace mcph::http
