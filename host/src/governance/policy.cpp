#include "governance/policy.hpp"

#include "governance/server_signature.hpp"

#include <vector>

namespace mcph::governance {
namespace {

// Where the scheme and host of a pattern end: the first '/', '?' or '#' after "://" (or from the
// start when there is no "://").
size_t authority_end(std::string_view pattern) {
    size_t start = pattern.find("://");
    start = start == std::string_view::npos ? 0 : start + 3;
    size_t end = pattern.find_first_of("/?#", start);
    return end == std::string_view::npos ? pattern.size() : end;
}

// Characters that end the host part of a URL (or hide the real host behind userinfo); '\\' because
// browsers' URL parsers read it as '/'.
bool ends_host(char c) { return c == '/' || c == '?' || c == '#' || c == '@' || c == '\\'; }

bool url_matches_any_form(const PolicyRule& rule, const std::string& url, UrlMatching urls) {
    if (url_matches_pattern(rule.url_pattern, url) || url_matches_pattern(rule.url_pattern, normalize_url(url)))
        return true;
    return urls == UrlMatching::AsConfiguredOrOriginal && url_matches_pattern(rule.url_pattern, unwrap_proxy_url(url));
}

const PolicyRule* first_match(const std::vector<PolicyRule>& rules, const config::ServerConfig& server, UrlMatching urls) {
    for (const PolicyRule& rule : rules)
        if (rule_matches(rule, server, urls)) return &rule;
    return nullptr;
}

PolicyDecision denied(std::string reason) { return {false, std::move(reason)}; }
PolicyDecision allowed(std::string reason) { return {true, std::move(reason)}; }

}  // namespace

// A dynamic-programming glob rather than a library: std::regex / Boost.Regex would need every
// metacharacter of the pattern escaped (the regex conversion is where injection bugs live) and
// libstdc++'s regex recurses per character; fnmatch() gives '?', '[' and '\\' meanings of their
// own. Row j of the table says whether the pattern so far matches the first j characters of the
// URL: O(pattern × url) time, no backtracking blow-up whatever the stars.
bool url_matches_pattern(std::string_view pattern, std::string_view url) {
    const size_t host_end = authority_end(pattern);
    std::vector<char> row(url.size() + 1, 0), next(url.size() + 1, 0);
    row[0] = 1;  // the empty pattern matches the empty prefix
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char p = pattern[i];
        const bool host_star = p == '*' && i < host_end && i + 1 != pattern.size();
        next[0] = p == '*' ? row[0] : 0;
        for (size_t j = 1; j <= url.size(); ++j) {
            const char c = url[j - 1];
            if (p == '*')
                next[j] = row[j] || (next[j - 1] && !(host_star && ends_host(c)));
            else
                next[j] = row[j - 1] && c == p;
        }
        row.swap(next);
    }
    return row[url.size()] != 0;
}

bool rule_matches(const PolicyRule& rule, const config::ServerConfig& server, UrlMatching urls) {
    switch (rule.kind) {
        case PolicyRule::Kind::Name: return rule.name == server.name;
        case PolicyRule::Kind::Command: return server.type == "stdio" && stdio_command_line(server) == rule.command;
        case PolicyRule::Kind::Url: return !server.url.empty() && url_matches_any_form(rule, server.url, urls);
    }
    return false;
}

PolicyDecision check_server_allowed(const config::ServerConfig& server, const PolicySettings& settings) {
    if (settings.fail_closed)
        return denied(settings.fail_closed_reason.empty() ? "the managed policy could not be read, so no server may connect"
                                                          : settings.fail_closed_reason);
    if (const PolicyRule* rule = first_match(settings.denied, server, UrlMatching::AsConfiguredOrOriginal))
        return denied("denied by " + rule->describe());
    if (!settings.allowed) return allowed("no allow list is configured");
    if (settings.allowed->empty()) return denied("the allow list is empty, so no server may connect");
    if (const PolicyRule* rule = first_match(*settings.allowed, server, UrlMatching::AsConfigured))
        return allowed("allowed by " + rule->describe());
    return denied("no allow-list rule matches server '" + server.name + "'");
}

}  // namespace mcph::governance
