// Issue #9 item 5 and item 13 with the real `mcph` binary: a deny rule for one URL (or one host)
// must hold against every other spelling of it — userinfo, a trailing dot, a %-escaped dot, an
// IPv4-mapped IPv6 literal, a hex IPv4, another port or scheme through a serverHost rule. Each
// config points at a loopback listener of the test: the server must be named in `mcph status
// --json` "denied", and the listener must have seen no connection once the CLI has exited (a
// control server that is not denied shows the listener does see one). The listeners accept and
// close at once, so a server that slipped through fails fast instead of hanging the CLI. And a secret in a URL
// (userinfo, ?api_key=) never reaches the CLI's output.
#include "url_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;

std::string http_server(const std::string& url) { return R"({"type":"http","url":)" + json_quote(url) + "}"; }

std::string servers_json(const std::vector<std::pair<std::string, std::string>>& servers) {
    std::string out = "{";
    for (const auto& [name, url] : servers) out += (out.size() > 1 ? "," : "") + json_quote(name) + ":" + http_server(url);
    return out + "}";
}

void expect_denied(const Json& doc, const std::string& name, const std::string& status_text) {
    const JsonValue* entry = find_named(member_at(doc, "denied"), name);
    ASSERT_TRUE(entry) << name << " is not in denied\n" << status_text;
    EXPECT_NE(string_at(*entry, "reason").find("denied by"), std::string::npos) << string_at(*entry, "reason");
    EXPECT_FALSE(find_named(member_at(doc, "servers"), name)) << name << " is still a server\n" << status_text;
}

TEST(UrlPolicyAttack, DenyUrlRuleHoldsAgainstEverySpelling) {
    CliTree tree;
    ClosingListener target;      // what the deny rule names
    ClosingListener control;     // a server no rule names: it does get a connection
    const std::string p = std::to_string(target.port());
    const std::vector<std::pair<std::string, std::string>> spellings = {
        {"plain", "http://127.0.0.1:" + p + "/mcp"},
        {"userinfo", "http://u:p@127.0.0.1:" + p + "/mcp"},
        {"trailing-dot", "http://127.0.0.1.:" + p + "/mcp"},
        {"escaped-dot", "http://127.0.0.1%2e:" + p + "/mcp"},
        {"v4-mapped", "http://[::ffff:127.0.0.1]:" + p + "/mcp"},
        {"hex", "http://0x7f.0.0.1:" + p + "/mcp"},
        {"decimal", "http://2130706433:" + p + "/mcp"},
        {"dot-segments", "http://127.0.0.1:" + p + "/x/../mcp"},
    };
    auto servers = spellings;
    servers.emplace_back("control", "http://127.0.0.1:" + std::to_string(control.port()) + "/mcp");
    write_file(tree.config_home / "settings.json", R"({"mcpServers":)" + servers_json(servers) +
                                                       R"(,"deniedMcpServers":[{"serverUrl":"http://127.0.0.1:)" + p +
                                                       R"(/*"}]})");
    const CliResult r = tree.run({"status", "--json"});
    ASSERT_NE(r.exit_code, -1) << r.describe();
    const Json doc = parse_or_fail(r.out, "status --json");
    for (const auto& [name, url] : spellings) {
        SCOPED_TRACE(name + " = " + url);
        expect_denied(doc, name, r.describe());
    }
    EXPECT_FALSE(find_named(member_at(doc, "denied"), "control")) << r.describe();
    EXPECT_EQ(target.connections_within(300ms), 0) << "a denied spelling reached the listener\n" << r.describe();
    EXPECT_GT(control.connections(), 0) << "the control server was never tried: the test proves nothing\n" << r.describe();
}

TEST(UrlPolicyAttack, HostRuleHoldsOnAnyPortAndScheme) {
    CliTree tree;
    ClosingListener other_port;
    const std::string p = std::to_string(other_port.port());
    const std::vector<std::pair<std::string, std::string>> spellings = {
        {"other-port", "http://127.0.0.1:" + p + "/mcp"},
        {"other-port-mapped", "http://[::ffff:7f00:1]:" + p + "/mcp"},
        {"userinfo-dot", "http://admin:pw@127.0.0.1.:" + p + "/mcp"},
    };
    std::string config = R"({"mcpServers":)" + servers_json(spellings);
    config.pop_back();  // add an SSE and a WebSocket spelling of the same host
    config += R"(,"sse":{"type":"sse","url":"http://127.0.0.1:)" + p + R"(/sse"},"ws":{"type":"ws","url":"ws://127.0.0.1.:)" + p +
              R"(/ws"}},"deniedMcpServers":[{"serverHost":"127.0.0.1"}]})";
    write_file(tree.config_home / "settings.json", config);
    const CliResult r = tree.run({"status", "--json"});
    const Json doc = parse_or_fail(r.out, "status --json");
    for (const char* name : {"other-port", "other-port-mapped", "userinfo-dot", "sse", "ws"}) {
        SCOPED_TRACE(name);
        expect_denied(doc, name, r.describe());
    }
    EXPECT_EQ(other_port.connections_within(300ms), 0) << r.describe();
}

TEST(UrlPolicyAttack, UnicodeDenyPatternMeetsPunycodeUrl) {
    CliTree tree;
    write_file(tree.config_home / "settings.json",
               R"({"mcpServers":{"idn":{"type":"http","url":"https://xn--vil-9la.example.com/mcp"}},)"
               R"("deniedMcpServers":[{"serverUrl":"https://évil.example.com/*"}]})");
    const CliResult r = tree.run({"status", "--json"});
    expect_denied(parse_or_fail(r.out, "status --json"), "idn", r.describe());
}

// Item 13: userinfo and query secrets are redacted wherever the URL reaches the output — an error
// quoting the URL (port 0 is refused with the URL in the message) and a server that fails.
TEST(UrlRedactionAttack, SecretsInUrlsNeverReachTheCli) {
    // A word no status field contains ("secret" is part of the secretStore key).
    const std::string kMarker = "pw-7f3a9c";
    CliTree tree;
    const std::vector<std::pair<std::string, std::string>> servers = {
        {"bad-port", "http://user:" + kMarker + "@127.0.0.1:0/mcp?api_key=" + kMarker},
        {"failing", "http://user:" + kMarker + "@127.0.0.1:1/mcp?api_key=" + kMarker + "&token=" + kMarker},
    };
    write_file(tree.config_home / "settings.json", R"({"mcpServers":)" + servers_json(servers) + "}");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"status", "--json"}, std::vector<std::string>{"status"},
          std::vector<std::string>{"tools"}}) {
        const CliResult r = tree.run(args);
        SCOPED_TRACE(r.command_line);
        ASSERT_FALSE(r.timed_out) << r.describe();
        EXPECT_EQ(r.out.find(kMarker), std::string::npos) << r.describe();
        EXPECT_EQ(r.err.find(kMarker), std::string::npos) << r.describe();
        if (args.size() == 2) {  // the JSON view: the errors were there, and redacted
            const Json doc = parse_or_fail(r.out, "status --json");
            const JsonValue* bad = find_named(member_at(doc, "servers"), "bad-port");
            ASSERT_TRUE(bad) << r.describe();
            EXPECT_NE(string_at(*bad, "error").find("***"), std::string::npos) << string_at(*bad, "error");
        }
    }
}

}  // namespace
}  // namespace mcph::test
