// What a refused or failed HTTP response says beyond its status, shared by both HTTP transports so
// they explain failures the same way: where a redirect pointed (never followed), how long the
// server asked us to wait, a compressed body we did not ask for, the JSON-RPC error inside an
// error body, and libcurl's misleading "Out of memory" for an oversized header. [any thread]
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::http {

// The longest Retry-After honoured; a larger value is clamped (a server must not park us for days).
inline constexpr std::chrono::milliseconds kMaxRetryAfter{std::chrono::minutes(5)};

// For a 3xx: " (redirects are not followed; Location: <url>)"; "" otherwise. The Location is
// cut to 200 bytes and stripped of control bytes.
std::string redirect_note(CURL* easy, long status);

// Retry-After of the last response, as delta-seconds or an HTTP date, clamped to kMaxRetryAfter.
std::optional<std::chrono::milliseconds> retry_after(CURL* easy);

// The response's Content-Encoding when it is not identity (lower-cased, e.g. "gzip"), else "".
// We never send Accept-Encoding, so such a body is one we cannot read.
std::string content_encoding(CURL* easy);

// "JSON-RPC error <code>: <message>" of the first error object in a JSON-RPC response body (an
// object, or the first element of a batch), parsed under json_bounds; nullopt if there is none.
// The message is raw server text: quote it through a snippet.
std::optional<std::string> jsonrpc_error_text(std::string_view body);

// curl_easy_strerror(code), except that CURLE_OUT_OF_MEMORY is explained: libcurl 7.x reports a
// response header over CURL_MAX_HTTP_HEADER (100 KiB) — a huge Mcp-Session-Id, say — that way.
std::string curl_failure_text(CURLcode code);

}  // namespace mcph::http
