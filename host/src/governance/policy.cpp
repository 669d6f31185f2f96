#include "governance/policy.hpp"

#include "governance/server_signature.hpp"
#include "json/json_access.hpp"
#include "url/canonical_url.hpp"

#include <mcph/error.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
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

// The forms of a server's URL a rule sees. The canonical form (url/canonical_url.hpp)
// is where the host really connects: userinfo gone, trailing dots, %-escapes and IDN resolved, IP
// literals written one way — a deny rule cannot be stepped around by spelling the host otherwise.
// Deny rules also see the URL as written (a pattern may name a spelling on purpose) and the
// original behind a proxy URL: denying more is safe, but allowing on the strength of a query
// parameter would let any URL claim to be another.
struct UrlForms {
    std::vector<std::string> urls;                // canonical texts, then (deny) the URL as written
    std::vector<url::CanonicalHost> hosts;        // canonical hosts
};

// The original behind every proxy parameter on its own as well as the first one present: a URL
// carrying two of them ("?mcp_url=A&target=B") is held against a deny rule under both A and B.
UrlForms url_forms(const std::string& written, UrlMatching urls, const ProxyUrlParams& params) {
    UrlForms out;
    auto add = [&out](const std::string& text) {
        url::CanonicalUrlResult c = url::canonical_url(text);
        if (!c) return;
        out.urls.push_back(c.url->text());
        out.hosts.push_back(c.url->host);
    };
    add(written);
    if (urls == UrlMatching::AsConfiguredOrOriginal) {
        add(unwrap_proxy_url(written, params));
        for (const std::string& param : params) add(unwrap_proxy_url(written, {param}));
        out.urls.push_back(written);
    }
    return out;
}

bool url_rule_matches(const PolicyRule& rule, const std::string& written, UrlMatching urls, const ProxyUrlParams& params) {
    const std::string pattern = url::canonical_url_pattern(rule.url_pattern);
    for (const std::string& form : url_forms(written, urls, params).urls)
        if (url_matches_pattern(pattern, form) || url_matches_pattern(rule.url_pattern, form)) return true;
    return false;
}

bool host_rule_matches(const PolicyRule& rule, const std::string& written, UrlMatching urls, const ProxyUrlParams& params) {
    const std::optional<std::string> pattern = url::canonical_host_pattern(rule.host_pattern);
    if (!pattern) return false;
    for (const url::CanonicalHost& host : url_forms(written, urls, params).hosts)
        if (url_matches_pattern(*pattern, host.literal()) || url_matches_pattern(*pattern, host.host)) return true;
    return false;
}

// The program a command line runs, as an absolute path with symlinks resolved: "npx", "/usr/bin/npx"
// and "./node_modules/.bin/../../usr/bin/npx" are the same program. A bare name is looked up in
// PATH — the server's own "env" PATH when it sets one, since that is what the child will search.
std::optional<std::string> resolve_program(const std::string& program, const std::string& path_env) {
    auto real = [](const std::string& p) -> std::optional<std::string> {
        std::error_code ec;
        std::filesystem::path r = std::filesystem::canonical(p, ec);
        if (ec || access(r.c_str(), X_OK) != 0) return std::nullopt;
        return r.string();
    };
    if (program.empty()) return std::nullopt;
    if (program.find('/') != std::string::npos) return real(program);
    size_t start = 0;
    while (start <= path_env.size()) {
        size_t colon = path_env.find(':', start);
        if (colon == std::string::npos) colon = path_env.size();
        std::string dir = path_env.substr(start, colon - start);
        if (!dir.empty())
            if (std::optional<std::string> found = real(dir + "/" + program)) return found;
        start = colon + 1;
    }
    return std::nullopt;
}

std::string path_for(const config::ServerConfig& server) {
    if (!server.config_json.empty()) {
        try {
            Json entry = parse_json(server.config_json, "server config");
            if (const JsonValue* env = json::object_member(entry, "env"))
                if (const JsonValue* p = json::member(*env, "PATH"); p && p->IsString()) return std::string(json::view(*p));
        } catch (const Error&) {
            // A config the loader accepted always parses; a hand-built one falls back to our PATH.
        }
    }
    const char* p = std::getenv("PATH");
    return p ? p : "";
}

// Exact command line, or the same args with both programs resolving to the same file. Still no
// boundary: "env npx ...", "sh -c ..." or a copy of the binary run the same code under another
// command line — allow lists are the control that holds (docs/governance.md, docs/security.md).
bool command_rule_matches(const PolicyRule& rule, const config::ServerConfig& server) {
    if (server.type != "stdio") return false;
    const std::vector<std::string> line = stdio_command_line(server);
    if (line == rule.command) return true;
    if (line.size() != rule.command.size() || !std::equal(line.begin() + 1, line.end(), rule.command.begin() + 1))
        return false;
    const std::string path = path_for(server);
    std::optional<std::string> server_program = resolve_program(line[0], path);
    std::optional<std::string> rule_program = resolve_program(rule.command[0], path);
    return server_program && rule_program && *server_program == *rule_program;
}

bool has_url_rules(const PolicySettings& settings) {
    auto any = [](const std::vector<PolicyRule>& rules) {
        return std::any_of(rules.begin(), rules.end(), [](const PolicyRule& r) {
            return r.kind == PolicyRule::Kind::Url || r.kind == PolicyRule::Kind::Host;
        });
    };
    return any(settings.denied) || (settings.allowed && any(*settings.allowed));
}

const PolicyRule* first_match(const std::vector<PolicyRule>& rules, const config::ServerConfig& server, UrlMatching urls,
                              const ProxyUrlParams& params) {
    for (const PolicyRule& rule : rules)
        if (rule_matches(rule, server, urls, params)) return &rule;
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

bool rule_matches(const PolicyRule& rule, const config::ServerConfig& server, UrlMatching urls,
                  const std::vector<std::string>& proxy_params) {
    switch (rule.kind) {
        case PolicyRule::Kind::Name: return rule.name == server.name;
        case PolicyRule::Kind::Command: return command_rule_matches(rule, server);
        case PolicyRule::Kind::Url: return !server.url.empty() && url_rule_matches(rule, server.url, urls, proxy_params);
        case PolicyRule::Kind::Host: return !server.url.empty() && host_rule_matches(rule, server.url, urls, proxy_params);
    }
    return false;
}

PolicyDecision check_server_allowed(const config::ServerConfig& server, const PolicySettings& settings) {
    if (settings.fail_closed)
        return denied(settings.fail_closed_reason.empty() ? "the managed policy could not be read, so no server may connect"
                                                          : settings.fail_closed_reason);
    if (const PolicyRule* rule = first_match(settings.denied, server, UrlMatching::AsConfiguredOrOriginal, settings.proxy_url_parameters))
        return denied("denied by " + rule->describe());
    // A URL with no canonical form cannot be held against URL rules: refused rather than guessed.
    if (!server.url.empty() && has_url_rules(settings))
        if (url::CanonicalUrlResult c = url::canonical_url(server.url); !c)
            return denied("the URL of server '" + server.name + "' cannot be checked against the URL rules: " + c.error);
    if (!settings.allowed) return allowed("no allow list is configured");
    if (settings.allowed->empty()) return denied("the allow list is empty, so no server may connect");
    if (const PolicyRule* rule = first_match(*settings.allowed, server, UrlMatching::AsConfigured, settings.proxy_url_parameters))
        return allowed("allowed by " + rule->describe());
    return denied("no allow-list rule matches server '" + server.name + "'");
}

}  // namespace mcph::governance
