// Allow/deny policy (seed 000 §18.9) and its URL wildcard.
#include "governance/policy.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <ostream>

namespace {

using mcph::config::ServerConfig;
using mcph::governance::check_server_allowed;
using mcph::governance::PolicyRule;
using mcph::governance::PolicySettings;
using mcph::governance::rule_matches;
using mcph::governance::url_matches_pattern;
using mcph::governance::UrlMatching;

ServerConfig server(const std::string& name, const std::string& entry) {
    return mcph::config::parse_server_config(name, mcph::parse_json(entry));
}

PolicyRule rule(const std::string& json, const std::string& origin = "managed.json") {
    return mcph::governance::parse_policy_rule(mcph::parse_json(json), origin);
}

// ---- url_matches_pattern ---------------------------------------------------------------------

struct GlobCase {
    const char* pattern;
    const char* url;
    bool matches;
};

void PrintTo(const GlobCase& c, std::ostream* os) { *os << c.pattern << " vs " << c.url; }

class GlobTable : public testing::TestWithParam<GlobCase> {};

TEST_P(GlobTable, Matches) {
    EXPECT_EQ(url_matches_pattern(GetParam().pattern, GetParam().url), GetParam().matches)
        << GetParam().pattern << " vs " << GetParam().url;
}

const GlobCase kGlobCases[] = {
    {"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
    {"https://mcp.example.com/mcp", "https://mcp.example.com/mcp/", false},  // whole string
    {"https://mcp.example.com/mcp", "https://mcp.example.com/mcpx", false},
    {"https://mcp.example.com/mcp", "xhttps://mcp.example.com/mcp", false},
    {"https://*.example.com/*", "https://a.example.com/x", true},
    {"https://*.example.com/*", "https://a.b.example.com/", true},
    {"https://*.example.com/*", "https://a.example.com:8443/deep/path?q=1", false},  // the port is literal text
    {"https://*.example.com:*/*", "https://a.example.com:8443/deep/path?q=1", true},
    {"https://*.example.com/*", "https://example.com/x", false},  // "*." needs a subdomain
    {"https://*.example.com/*", "https://example.com.evil/", false},
    {"https://*.example.com/*", "https://a.example.com.evil.test/", false},
    // A host star cannot run into the query, fragment, path or userinfo.
    {"https://*.example.com/*", "https://evil.com/?x=.example.com/", false},
    {"https://*.example.com/*", "https://evil.com#.example.com/", false},
    {"https://*.example.com/*", "https://evil.com/p/.example.com/", false},
    {"https://*.example.com/*", "https://a.example.com@evil.com/", false},
    {"https://*.example.com/*", "https://evil.com\\.example.com/", false},
    // A trailing star is unrestricted, anywhere.
    {"https://*", "https://anything.test/at/all?q=1", true},
    {"*", "stdio-ish text", true},
    {"*", "", true},
    {"https://api.example.com/*", "https://api.example.com/", true},
    {"https://api.example.com/*", "https://api.example.com", false},
    {"https://api.example.com/v*/mcp", "https://api.example.com/v2/mcp", true},
    {"https://api.example.com/v*/mcp", "https://api.example.com/v2/x/mcp", true},  // path stars cross '/'
    {"*://api.example.com/*", "wss://api.example.com/x", true},
    {"**", "abc", true},
    {"a*b*c", "abbbc", true},
    {"a*b*c", "acb", false},
    // Regex metacharacters are literal.
    {"https://a.example.com/*", "https://aXexample.com/", false},
    {"https://a.example.com/x?y", "https://a.example.com/x?y", true},
    {"https://a.example.com/x?y", "https://a.example.com/xzy", false},
    {"https://a.example.com/(a|b)+$", "https://a.example.com/(a|b)+$", true},
    {"https://a.example.com/(a|b)+$", "https://a.example.com/a", false},
    {"https://a.example.com/[ab]", "https://a.example.com/a", false},
    {"https://a.example.com/.*", "https://a.example.com/anything", false},
    {"https://a.example.com/\\d", "https://a.example.com/\\d", true},
};

INSTANTIATE_TEST_SUITE_P(Cases, GlobTable, testing::ValuesIn(kGlobCases));

TEST(UrlPattern, LongInputStaysFast) {
    // Backtracking matchers go exponential on many stars against a near miss; this one is linear per row.
    std::string pattern = "https://a.test/";
    for (int i = 0; i < 200; ++i) pattern += "*a";
    pattern += "b";
    EXPECT_FALSE(url_matches_pattern(pattern, "https://a.test/" + std::string(4000, 'a')));
}

// ---- rule_matches ----------------------------------------------------------------------------

TEST(RuleMatches, NameIsExact) {
    EXPECT_TRUE(rule_matches(rule(R"({"serverName":"slack"})"), server("slack", R"({"command":"x"})")));
    EXPECT_FALSE(rule_matches(rule(R"({"serverName":"slack"})"), server("Slack", R"({"command":"x"})")));
    EXPECT_FALSE(rule_matches(rule(R"({"serverName":"slack"})"), server("slack2", R"({"command":"x"})")));
}

TEST(RuleMatches, CommandIsTheWholeCommandLineOfAStdioServer) {
    const auto r = rule(R"({"serverCommand":["npx","-y","slack-mcp"]})");
    EXPECT_TRUE(rule_matches(r, server("s", R"({"command":"npx","args":["-y","slack-mcp"]})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"npx","args":["-y","slack-mcp","--extra"]})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"npx","args":["slack-mcp","-y"]})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"npx"})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"url":"https://npx.test/"})")));
}

TEST(RuleMatches, UrlRulesMatchRemoteServersOnly) {
    const auto r = rule(R"({"serverUrl":"*"})");
    EXPECT_TRUE(rule_matches(r, server("s", R"({"url":"https://x.test/"})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"npx"})")));
}

TEST(RuleMatches, UrlRulesSeeTheNormalisedUrl) {
    const auto r = rule(R"({"serverUrl":"https://mcp.example.com/*"})");
    EXPECT_TRUE(rule_matches(r, server("s", R"({"url":"HTTPS://MCP.Example.com:443/x"})"), UrlMatching::AsConfigured));
}

TEST(RuleMatches, OnlyDenySideSeesTheUrlBehindAProxy) {
    const auto r = rule(R"({"serverUrl":"https://mcp.slack.com/*"})");
    const auto proxied = server("s", R"({"url":"https://proxy.test/c?mcp_url=https%3A%2F%2Fmcp.slack.com%2Fmcp"})");
    EXPECT_TRUE(rule_matches(r, proxied));  // default: AsConfiguredOrOriginal
    EXPECT_FALSE(rule_matches(r, proxied, UrlMatching::AsConfigured));
}

// ---- check_server_allowed --------------------------------------------------------------------

struct PolicyCase {
    const char* what;
    PolicySettings settings;
    const char* name;
    const char* entry;
    bool allowed;
    const char* reason_part;
};

void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.what; }

class PolicyTable : public testing::TestWithParam<PolicyCase> {};

TEST_P(PolicyTable, Decides) {
    const PolicyCase& c = GetParam();
    const auto decision = check_server_allowed(server(c.name, c.entry), c.settings);
    EXPECT_EQ(decision.allowed, c.allowed) << c.what << ": " << decision.reason;
    EXPECT_NE(decision.reason.find(c.reason_part), std::string::npos) << c.what << ": " << decision.reason;
}

PolicySettings settings(std::optional<std::vector<PolicyRule>> allowed, std::vector<PolicyRule> denied = {}) {
    PolicySettings s;
    s.allowed = std::move(allowed);
    s.denied = std::move(denied);
    return s;
}

PolicySettings fail_closed(std::string reason) {
    PolicySettings s = settings(std::nullopt);
    s.fail_closed = true;
    s.fail_closed_reason = std::move(reason);
    return s;
}

using Rules = std::vector<PolicyRule>;
constexpr const char* kStdio = R"({"command":"npx","args":["-y","slack-mcp"]})";
constexpr const char* kRemote = R"({"url":"https://a.example.com/mcp"})";
constexpr const char* kEvil = R"({"url":"https://evil.com/?x=.example.com/"})";
constexpr const char* kProxied = R"({"url":"https://proxy.test/c?mcp_url=https%3A%2F%2Fa.example.com%2Fmcp"})";

const PolicyCase kPolicyCases[] = {
    {"no allow list allows", settings(std::nullopt), "slack", kStdio, true, "no allow list"},
    {"empty allow list denies", settings(Rules{}), "slack", kStdio, false, "the allow list is empty"},
    {"allow by name", settings(Rules{rule(R"({"serverName":"slack"})")}), "slack", kStdio, true, "allowed by"},
    {"allow by command", settings(Rules{rule(R"({"serverCommand":["npx","-y","slack-mcp"]})")}), "any", kStdio, true,
     "serverCommand"},
    {"allow by url wildcard", settings(Rules{rule(R"({"serverUrl":"https://*.example.com/*"})")}), "r", kRemote, true,
     "serverUrl"},
    {"no rule matches", settings(Rules{rule(R"({"serverName":"other"})")}), "slack", kStdio, false,
     "no allow-list rule matches server 'slack'"},
    {"wildcard does not leak into the query", settings(Rules{rule(R"({"serverUrl":"https://*.example.com/*"})")}), "r",
     kEvil, false, "no allow-list rule matches"},
    {"a proxy URL cannot claim an allowed original",
     settings(Rules{rule(R"({"serverUrl":"https://a.example.com/*"})")}), "r", kProxied, false, "no allow-list rule"},
    {"deny wins over allow (by name)",
     settings(Rules{rule(R"({"serverName":"slack"})")}, Rules{rule(R"({"serverName":"slack"})", "user.json")}), "slack",
     kStdio, false, R"(denied by {"serverName":"slack"} from user.json)"},
    {"deny by command wins over allow by name",
     settings(Rules{rule(R"({"serverName":"slack"})")}, Rules{rule(R"({"serverCommand":["npx","-y","slack-mcp"]})")}),
     "slack", kStdio, false, "serverCommand"},
    {"deny by url with no allow list", settings(std::nullopt, Rules{rule(R"({"serverUrl":"https://a.example.com/*"})")}),
     "r", kRemote, false, "denied by"},
    {"deny sees through a proxy URL", settings(std::nullopt, Rules{rule(R"({"serverUrl":"https://a.example.com/*"})")}),
     "r", kProxied, false, "denied by"},
    {"deny sees through host case", settings(std::nullopt, Rules{rule(R"({"serverUrl":"https://a.example.com/*"})")}),
     "r", R"({"url":"https://A.EXAMPLE.com:443/mcp"})", false, "denied by"},
    {"deny wins over an empty allow list's reason",
     settings(Rules{}, Rules{rule(R"({"serverName":"slack"})")}), "slack", kStdio, false, "denied by"},
    {"unrelated deny rule", settings(std::nullopt, Rules{rule(R"({"serverName":"other"})")}), "slack", kStdio, true,
     "no allow list"},
    {"fail closed beats everything", fail_closed("/etc/mcph/managed-settings.json cannot be read: Permission denied"),
     "slack", kStdio, false, "managed-settings.json cannot be read"},
    {"fail closed without a reason", fail_closed(""), "slack", kStdio, false, "could not be read"},
};

INSTANTIATE_TEST_SUITE_P(Cases, PolicyTable, testing::ValuesIn(kPolicyCases));

}  // namespace
