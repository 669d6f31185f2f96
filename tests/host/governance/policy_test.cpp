// Allow/deny policy (seed 000 §18.9) and its URL wildcard.
#include "governance/policy.hpp"
#include "test_helpers.hpp"

#include <mcph/error.hpp>
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

using host_test::server;

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

// ---- the bypasses of the security review (issue #9, item 5) ----------------------------------

namespace {

struct BypassCase {
    const char* rule_json;
    const char* url;
    bool denied;  // by that deny rule
};

void PrintTo(const BypassCase& c, std::ostream* os) { *os << c.rule_json << " vs " << c.url; }

class DenyBypassTable : public testing::TestWithParam<BypassCase> {};

TEST_P(DenyBypassTable, DenyRuleHolds) {
    const BypassCase& c = GetParam();
    std::string quoted;
    for (const char* p = c.url; *p; ++p) {
        if (*p == '\\' || *p == '"') quoted += '\\';
        quoted += *p;
    }
    const auto s = server("s", R"({"url":")" + quoted + "\"}");
    const auto decision = check_server_allowed(s, settings(std::nullopt, Rules{rule(c.rule_json)}));
    EXPECT_EQ(!decision.allowed, c.denied) << decision.reason;
}

constexpr const char* kEvilUrl = R"({"serverUrl":"https://evil.example.com/*"})";
constexpr const char* kEvilHost = R"({"serverHost":"evil.example.com"})";
constexpr const char* kEvilSubHosts = R"({"serverHost":"*.evil.example.com"})";
constexpr const char* kUnicodeUrl = R"({"serverUrl":"https://évil.example.com/*"})";
constexpr const char* kPrivateHost = R"({"serverHost":"10.0.0.5"})";

const BypassCase kBypassCases[] = {
    {kEvilUrl, "https://evil.example.com/mcp", true},
    {kEvilUrl, "https://u:p@evil.example.com/mcp", true},
    {kEvilUrl, "https://u@evil.example.com/mcp", true},
    {kEvilUrl, "https://evil.example.com./mcp", true},
    {kEvilUrl, "https://evil.example.com%2e/mcp", true},
    {kEvilUrl, "https://%65vil.example.com/mcp", true},
    {kEvilUrl, "https://EVIL.EXAMPLE.COM:443/mcp", true},
    {kEvilUrl, "https://ｅｖｉｌ.example.com/mcp", true},  // fullwidth: maps to the same A-labels
    {kEvilUrl, "https://evil.example.com/a/../mcp", true},
    // a URL rule is exact about scheme and port (documented); the host rule is not
    {kEvilUrl, "https://evil.example.com:8443/mcp", false},
    {kEvilUrl, "http://evil.example.com/mcp", false},
    {kEvilHost, "https://evil.example.com:8443/mcp", true},
    {kEvilHost, "http://evil.example.com/mcp", true},
    {kEvilHost, "wss://u:p@EVIL.example.com.:9999/ws", true},
    {kEvilHost, "https://evil.example.com%2e:1/", true},
    {kEvilHost, "https://sub.evil.example.com/", false},
    {kEvilHost, "https://notevil.example.com/", false},
    {kEvilSubHosts, "https://sub.evil.example.com:444/", true},
    {kEvilSubHosts, "https://evil.example.com/", false},
    {kEvilSubHosts, "https://x.evil.example.com.attacker.test/", false},
    // IDN: a Unicode pattern meets the punycode URL and the other way round
    {kUnicodeUrl, "https://xn--vil-9la.example.com/mcp", true},
    {kUnicodeUrl, "https://évil.example.com/mcp", true},
    {R"({"serverUrl":"https://xn--vil-9la.example.com/*"})", "https://évil.example.com/mcp", true},
    {R"({"serverHost":"évil.example.com"})", "http://xn--vil-9la.example.com:81/", true},
    // IP literals in every spelling
    {kPrivateHost, "https://10.0.0.5/", true},
    {kPrivateHost, "https://[::ffff:10.0.0.5]/", true},
    {kPrivateHost, "https://[::ffff:a00:5]:8443/", true},
    {kPrivateHost, "http://0x0a.0.0.5:80/", true},
    {kPrivateHost, "http://167772165/", true},
    {kPrivateHost, "http://10.0.0.5./", true},
    {R"({"serverUrl":"https://10.0.0.5/*"})", "https://[::ffff:10.0.0.5]/mcp", true},
    {R"({"serverUrl":"https://[::ffff:10.0.0.5]/*"})", "https://10.0.0.5/mcp", true},
    {R"({"serverHost":"::1"})", "http://[0:0::1]:3000/", true},
    // the proxy original and the URL as written still count for deny rules
    {kEvilHost, "https://proxy.test/c?mcp_url=https%3A%2F%2Fu%3Ap%40evil.example.com.%2Fmcp", true},
    // what parsers disagree about has no canonical form: refused while URL rules exist
    {kEvilUrl, "https://evil.example.com\\@good.example.com/", true},
    {kEvilHost, "https://good.example.com/", false},
};

INSTANTIATE_TEST_SUITE_P(Cases, DenyBypassTable, testing::ValuesIn(kBypassCases));

TEST(AllowRules, MatchOnlyTheCanonicalUrl) {
    const auto allow = settings(Rules{rule(R"({"serverUrl":"https://good.example.com*"})")});
    // The URL as written starts with the allowed text, but it connects to evil.example.com.
    EXPECT_FALSE(check_server_allowed(server("s", R"({"url":"https://good.example.com@evil.example.com/"})"), allow).allowed);
    EXPECT_TRUE(check_server_allowed(server("s", R"({"url":"https://u:p@GOOD.example.com./x"})"), allow).allowed);
    const auto host_allow = settings(Rules{rule(R"({"serverHost":"good.example.com"})")});
    EXPECT_TRUE(check_server_allowed(server("s", R"({"url":"http://good.example.com:8080/"})"), host_allow).allowed);
    EXPECT_FALSE(check_server_allowed(server("s", R"({"url":"https://good.example.com@evil.example.com/"})"), host_allow).allowed);
}

TEST(HostRules, ParseAndDescribe) {
    const auto r = rule(R"({"serverHost":"*.Example.com"})", "managed.json");
    EXPECT_EQ(r.kind, PolicyRule::Kind::Host);
    EXPECT_EQ(r.describe(), R"({"serverHost":"*.Example.com"} from managed.json)");
    EXPECT_THROW(rule(R"({"serverHost":"https://evil.example.com/"})"), mcph::Error);
    EXPECT_THROW(rule(R"({"serverHost":""})"), mcph::Error);
    EXPECT_THROW(rule(R"({"serverHost":7})"), mcph::Error);
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"example.com"})")));  // stdio: no host
}

// Command rules match the resolved program too, but are still not a boundary (docs/security.md).
TEST(CommandRules, MatchTheResolvedProgram) {
    const auto r = rule(R"({"serverCommand":["sh","-c","echo hi"]})");
    EXPECT_TRUE(rule_matches(r, server("s", R"({"command":"sh","args":["-c","echo hi"]})")));
    EXPECT_TRUE(rule_matches(r, server("s", R"({"command":"/bin/sh","args":["-c","echo hi"]})")));
    EXPECT_TRUE(rule_matches(r, server("s", R"({"command":"/bin/../bin/sh","args":["-c","echo hi"]})")));
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"/bin/sh","args":["-c","echo other"]})")));
    // The server's own PATH decides what a bare name runs.
    EXPECT_FALSE(rule_matches(rule(R"({"serverCommand":["/bin/sh"]})"),
                              server("s", R"({"command":"sh","env":{"PATH":"/nonexistent"}})")));
    // What an exact-match rule cannot see: a wrapper runs the same program under another command line.
    EXPECT_FALSE(rule_matches(r, server("s", R"({"command":"env","args":["sh","-c","echo hi"]})")));
}

}  // namespace
