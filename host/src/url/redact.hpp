// Secrets travel inside URLs more often than they should: "user:token@host", "?api_key=...",
// "/mcp/sk-.../sse". Any URL that reaches a warning, an error or the status view goes through
// here first, so the text for people never carries the credential.
#pragma once

#include <string>
#include <string_view>

namespace mcph::url {

// The URL with its userinfo replaced by "***", every query value by "***" (names kept: they tell
// which parameter was sent), the fragment by "***", and each path segment that looks like a key
// (long and mixing letters and digits, a known token prefix such as "sk-" or "ghp_", or the
// segment after one named key/token/secret/apikey) by "***". Works on text libcurl cannot parse.
std::string redact_url(std::string_view url);

// Free text with every "scheme://..." run in it put through redact_url(). A URL ends at
// whitespace, a quote, '<', '>', '`' or the end of the text.
std::string redact_urls_in_text(std::string_view text);

}  // namespace mcph::url
