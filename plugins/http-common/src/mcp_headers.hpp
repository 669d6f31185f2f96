// The request metadata headers of Streamable HTTP 2026-07-28 ("Request Metadata"): Mcp-Method,
// Mcp-Name and Mcp-Param-{Name}, with the spec's "Value Encoding" — a value that is not a safe
// plain header value travels as `=?base64?<Base64 of its UTF-8>?=`. [any thread, pure]
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::http {

inline constexpr std::string_view kBase64Prefix = "=?base64?";
inline constexpr std::string_view kBase64Suffix = "?=";

// True when `value` may go into a header as it is (the empty string is plain):
// every byte visible ASCII (0x21-0x7E) or an inner space/tab, no leading or trailing whitespace,
// and not itself shaped like the sentinel (else a server would decode it).
bool is_plain_header_value(std::string_view value);

// `value` as is when plain, else `=?base64?…?=`.
std::string encode_header_value(std::string_view value);

// RFC 9110 token (1*tchar): what an x-mcp-header name must be.
bool is_header_token(std::string_view name);

using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

// The metadata headers of one POST: Mcp-Method when `method` is set (requests and
// notifications), Mcp-Name for tools/call, resources/read, prompts/get and the Tasks extension's
// tasks/get, tasks/update and tasks/cancel when `name` is set, and
// Mcp-Param-{Name} per tool parameter, every value encoded. Throws std::invalid_argument naming a
// parameter whose name is not a token (it would let a name smuggle in a header).
HeaderPairs request_metadata_headers(std::string_view method, std::string_view name,
                                     const std::vector<std::pair<std::string_view, std::string_view>>& params);

}  // namespace mcph::http
