// Issue #9 item 3: deep JSON nesting killed the process (SIGSEGV: RapidJSON's recursive parser and
// writer ran off the stack). Each attack here is a real server or file; the defence is an
// parse under a depth of 128 that refuses deeper input as malformed, naming the bound (the refusal
// comes before the parser descends, so its own recursion is bounded too).
#include "hostile_peer_support.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;
using namespace mcph::test::hostile;

TEST(DeepJson, AServerLineOfAMillionOpenBracketsIsDroppedAndTheCallCompletes) {
    CliResult r = run_mcph(servers_config("deep", fake_entry("deep-line")), {"call", "mcp__deep__work"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();  // -1 would be a signal (the old SIGSEGV)
    EXPECT_TRUE(contains(r.out, "work done")) << r.describe();
    EXPECT_TRUE(contains(r.err, "nested deeper than 128 levels")) << r.describe();
}

TEST(DeepJson, AToolSchemaNested100000DeepIsRefusedWithTheBoundNamed) {
    CliResult r = run_mcph(servers_config("deep", fake_entry("deep-schema")), {"tools", "--json"});
    ASSERT_GE(r.exit_code, 0) << "mcph must end by itself, not by a signal: " << r.describe();
    EXPECT_TRUE(contains(r.err, "tools/list to 'deep': response refused, JSON nested deeper than 128 levels"))
        << r.describe();
    mcph::Json tools = mcph::parse_json(r.out, "mcph tools --json");
    EXPECT_TRUE(tools.IsObject() && tools["tools"].IsArray() && tools["tools"].Empty()) << "no tool from a refused list: " << r.out;
}

TEST(DeepJson, ACommittedMcpJsonNestedAMillionDeepIsAClearError) {
    TempDir repo("mcph-deep-repo");
    const CliLocations where{.repo = repo.path(), .config_home = repo / "config", .managed = repo / "managed",
                             .home = repo.path()};
    where.create();
    write_file(repo / ".mcp.json", "{\"mcpServers\":" + std::string(1'000'000, '['));
    CliResult r = run_cli({"--plugin-dir", plugin_dir().string(), "servers"}, where.env(), repo.path(), 20s);
    ASSERT_GE(r.exit_code, 0) << "mcph must end by itself, not by a signal: " << r.describe();
    EXPECT_TRUE(contains(r.err + r.out, "nested deeper than 128 levels")) << r.describe();
    EXPECT_TRUE(contains(r.err + r.out, ".mcp.json")) << "the file is named: " << r.describe();
}

// A Streamable HTTP server answering tools/list with a 100,000-deep inputSchema, as a JSON body
// or as one SSE event. (The plugin's own look at the body is bounded too: transport-http.)
class DeepSchemaHttpServer {
public:
    explicit DeepSchemaHttpServer(bool as_sse)
        : as_sse_(as_sse),
          http_(json_rpc_handler([this](const HttpRequest&, const Json& m, const std::string& method) { return reply(m, method); })) {}
    std::string url() const { return http_.url(); }

private:
    HttpReply reply(const Json& message, const std::string& method) {
        if (method == "initialize")
            return {"200 OK", "Content-Type: application/json\r\nMcp-Session-Id: deep\r\n", initialize_result(message)};
        if (!message.HasMember("id")) return {"202 Accepted", "", ""};
        if (method != "tools/list") return {"404 Not Found", "", ""};
        std::string body = R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) + R"(,"result":{"tools":[{"name":"work","inputSchema":)";
        for (int i = 0; i < 100'000; ++i) body += "{\"a\":";
        body += "1";
        body.append(100'000, '}');
        body += "}]}}";
        if (!as_sse_) return {"200 OK", "Content-Type: application/json\r\n", body};
        return {"200 OK", "Content-Type: text/event-stream\r\n", "event: message\ndata: " + body + "\n\n"};
    }

    const bool as_sse_;
    RawHttpServer http_;
};

void expect_deep_http_list_refused(bool as_sse) {
    DeepSchemaHttpServer server(as_sse);
    const std::string config = servers_config("deep", R"({"type":"http","url":")" + server.url() + R"("})");
    CliResult r = run_mcph(config, {"--timeout", "3s", "tools", "--json"}, 15s);
    ASSERT_FALSE(r.timed_out) << r.describe();
    ASSERT_GE(r.exit_code, 0) << "mcph must end by itself, not by a signal: " << r.describe();
    // Refused by the plugin's own look at the body or by the host's parse, whichever sees it first.
    EXPECT_TRUE(contains(r.err, "could not list tools: tools/list")) << r.describe();
    mcph::Json tools = mcph::parse_json(r.out, "mcph tools --json");
    EXPECT_TRUE(tools.IsObject() && tools["tools"].IsArray() && tools["tools"].Empty()) << r.out;
}

TEST(DeepJson, OverStreamableHttpAsJsonTheDeepSchemaIsRefused) { expect_deep_http_list_refused(false); }
TEST(DeepJson, OverStreamableHttpAsSseTheDeepSchemaIsRefused) { expect_deep_http_list_refused(true); }

// The example server parses its clients' JSON the same bounded way: a million '[' from a client
// is a parse error, and the next message is served.
TEST(DeepJson, HelloServerAnswersAMillionOpenBracketsWithAParseError) {
    if (hello_server_path().empty()) GTEST_SKIP() << "hello-server is not built";
    TempDir dir("mcph-hello-deep");
    write_file(dir / "in", std::string(1'000'000, '[') + "\n" +
                               R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                               R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})" + "\n");
    const std::string command = "timeout 10 '" + hello_server_path().string() + "' < '" + (dir / "in").string() + "' > '" +
                                (dir / "out").string() + "' 2>/dev/null";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "hello-server died of a signal";
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const auto lines = read_lines(dir / "out");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_TRUE(contains(lines[0], R"("code":-32700)")) << lines[0];
    EXPECT_TRUE(contains(lines[1], R"("id":1,"result")")) << lines[1].substr(0, 200);
}

}  // namespace
