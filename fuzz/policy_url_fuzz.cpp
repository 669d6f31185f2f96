// The allow/deny policy for remote servers (host/src/governance/policy*.cpp): rules parsed from a
// settings file's allowedMcpServers / deniedMcpServers, and a server URL matched against their
// '*' globs in every form the host checks (as configured, normalised, unwrapped from a proxy).
// Input: the URL on the first line, then either a JSON array of rules or one raw glob pattern.
// Checked: parse errors are mcph::Error(Usage); a URL denied by a rule is never allowed; the glob
// obeys its definition on the cases that are easy to state (no '*' means equality, "*" matches
// all); and a '*' in the host part of a pattern never matches across '/', '?', '#', '@' or '\'.
#include "fuzz_support.hpp"
#include "governance/policy.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>

namespace {

using namespace mcph;

void check_glob(std::string_view pattern, std::string_view url) {
    const bool match = governance::url_matches_pattern(pattern, url);
    if (pattern.find('*') == std::string_view::npos) MCPH_FUZZ_CHECK(match == (pattern == url));
    if (pattern == "*") MCPH_FUZZ_CHECK(match);
    // "https://*.<host>/<path>": the star takes only host characters, so the URL's host (up to the
    // first '/', '?', '#', '@' or '\\') ends in ".<host>" and a '/' follows it.
    constexpr std::string_view kPrefix = "https://*.";
    if (!match || !pattern.starts_with(kPrefix)) return;
    const size_t host_end = pattern.find('/', kPrefix.size());
    if (host_end == std::string_view::npos) return;
    const std::string_view host = pattern.substr(kPrefix.size() - 1, host_end - (kPrefix.size() - 1));  // ".<host>"
    if (host.find_first_of("*?#@\\") != std::string_view::npos) return;
    MCPH_FUZZ_CHECK(url.starts_with("https://"));
    const size_t url_host_end = url.find_first_of("/?#@\\", 8);
    MCPH_FUZZ_CHECK(url_host_end != std::string_view::npos && url[url_host_end] == '/');
    MCPH_FUZZ_CHECK(url.substr(8, url_host_end - 8).ends_with(host));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const size_t nl = text.find('\n');
    const std::string_view url = text.substr(0, nl);
    const std::string_view rest = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);

    Json rules_doc;
    if (!json_bounds::parse(rules_doc, rest)) {
        check_glob(rest, url);
        return 0;
    }
    governance::PolicySettings settings;
    try {
        settings.denied = governance::parse_policy_rules(rules_doc, "fuzz.json", "deniedMcpServers");
        settings.allowed = governance::parse_policy_rules(rules_doc, "fuzz.json", "allowedMcpServers");
    } catch (const Error& e) {
        MCPH_FUZZ_CHECK(e.kind() == ErrorKind::Usage);
        return 0;
    }
    for (const auto& rule : settings.denied) {
        MCPH_FUZZ_CHECK(!rule.describe().empty());
        if (rule.kind == governance::PolicyRule::Kind::Url) check_glob(rule.url_pattern, url);
    }

    config::ServerConfig server;
    server.name = "fuzz";
    server.type = "http";
    server.url = std::string(url);
    // The same rules deny and allow: a matching deny rule wins, always.
    bool denied = false;
    for (const auto& rule : settings.denied) denied = denied || governance::rule_matches(rule, server);
    if (denied) MCPH_FUZZ_CHECK(!governance::check_server_allowed(server, settings).allowed);
    settings.denied.clear();
    (void)governance::check_server_allowed(server, settings);
    return 0;
}
