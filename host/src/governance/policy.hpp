// Which servers may connect (seed 000 §18.9): deny rules always win, an empty allow list allows
// nothing, no allow list allows everything, and a rule matches a server by name, by exact command
// line (stdio) or by URL pattern (remote).
#pragma once

#include "config/server_config.hpp"
#include "governance/policy_rules.hpp"

#include <string>
#include <string_view>

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
    // The URL as configured and its normalised form (host case, default port): the host really
    // connects there. Allow rules use this.
    AsConfigured,
    // Also the original behind a proxy URL (unwrap_proxy_url). Deny rules use this: denying more is
    // safe, but allowing on the strength of a query parameter would let any URL claim to be another.
    AsConfiguredOrOriginal,
};

// Name: exact. Command: stdio servers only, [command, args...] exactly. Url: servers with a url.
bool rule_matches(const PolicyRule& rule, const config::ServerConfig& server,
                  UrlMatching urls = UrlMatching::AsConfiguredOrOriginal);

// fail_closed → denied; then any deny rule → denied; then no allow list → allowed; an empty allow
// list → denied; else allowed iff an allow rule matches.
PolicyDecision check_server_allowed(const config::ServerConfig& server, const PolicySettings& settings);

}  // namespace mcph::governance
