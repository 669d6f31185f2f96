// Which servers may connect (seed 000 §18.9): deny rules always win, an empty allow list allows
// nothing, no allow list allows everything, and a rule matches a server by name, by command line
// (stdio), by URL pattern or by host (remote). URLs are matched in their canonical form
// (url/canonical_url.hpp), so "https://u:p@EVIL.example.com.:443/mcp", "evil.example.com%2e" and the
// punycode of a Unicode pattern all meet a rule for https://evil.example.com/*. A URL rule is exact
// about scheme and port ("https://h/*" is not "http://h:8080/*"); a serverHost rule is not.
// Command rules are not a boundary: see command_rule_matches in policy.cpp.
#pragma once

#include "config/server_config.hpp"
#include "governance/policy_rules.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mcph::governance {

struct PolicyDecision {
    bool allowed = true;
    // Denied: the deny rule with its origin, "no allow-list rule matches ...", "the allow list is
    // empty ...", or the fail-closed reason. Allowed: the allow rule that matched, or that there is
    // no allow list (for status displays).
    std::string reason;
};

// Whole-string match; '*' matches any run of characters (none included), everything else is
// literal — '.', '?', '[', '\\' and the rest have no special meaning. One exception keeps
// "https://*.example.com/*" inside example.com: a '*' in the scheme or host part of the pattern
// (before the first '/', '?' or '#' after "://") that is not the pattern's last character cannot
// match '/', '?', '#', '@' or '\\', so it cannot reach into the path, query or userinfo of the URL
// ("https://evil.com/?x=.example.com/" and "https://a.example.com@evil.com/" do not match).
bool url_matches_pattern(std::string_view pattern, std::string_view url);

// Which forms of a remote server's URL a Url rule is matched against.
enum class UrlMatching {
    // The canonical form of the URL as configured: the host really connects there. Allow rules
    // use this.
    AsConfigured,
    // Also the URL exactly as written and the original behind a proxy URL (unwrap_proxy_url). Deny
    // rules use this: denying more is safe, but allowing on the strength of a query parameter would
    // let any URL claim to be another.
    AsConfiguredOrOriginal,
};

// Name: exact. Command: stdio servers only, [command, args...] exactly or with the program resolved
// to the same file. Url: the server's canonical URL against the canonical pattern. Host: the
// canonical host against the pattern, any scheme and port.
// `proxy_params`: the query parameters a proxy URL's original is looked for in (AsConfiguredOrOriginal).
bool rule_matches(const PolicyRule& rule, const config::ServerConfig& server,
                  UrlMatching urls = UrlMatching::AsConfiguredOrOriginal,
                  const std::vector<std::string>& proxy_params = {"mcp_url"});

// fail_closed → denied; then any deny rule → denied; then a URL with no canonical form while URL or
// host rules exist → denied; then no allow list → allowed; an empty allow list → denied; else
// allowed iff an allow rule matches.
PolicyDecision check_server_allowed(const config::ServerConfig& server, const PolicySettings& settings);

}  // namespace mcph::governance
