// mcph::Host end to end without processes: the echo test plugin acts as a tiny in-process MCP
// server (tests/plugin-api/plugins/echo_transport.cpp), so this drives config → plugin →
// TransportChannel → SessionCore → RpcEngine and back, on the real threads.
#include "test_plugins.hpp"
#include "test_helpers.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::parse_json;

const char* kTools = R"([
  {"name":"say","description":"repeats its arguments","inputSchema":{"type":"object"}},
  {"name":"weird tool!","description":"a name that needs encoding"},
  {"name":"measure","outputSchema":{"type":"object","properties":{"v":{"type":"number"}},"required":["v"]}},
  {"name":"fail"},
  {"name":"slow"},
  {"name":"crash"},
  {"name":"roots"},
  {"name":"state","annotations":{"destructiveHint":true}}
])";

std::string server_entry(const std::string& extra = "") {
    return std::string(R"({"type":"echo","pageSize":3,"tools":)") + kTools + extra + "}";
}

std::string config(const std::string& name, const std::string& entry) {
    return "{\"mcpServers\":{\"" + name + "\":" + entry + "}}";
}

template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "expected an mcph::Error";
    return Error(ErrorKind::Usage, "<none>");
}

using host_test::contains;

class HostEchoTest : public ::testing::Test {
protected:
    mcph::HostOptions options() {
        mcph::HostOptions o;
        o.plugin_dirs = {mcph::test::plugin_case_dir("good")};
        o.use_env_plugin_path = false;
        o.use_default_plugin_dir = false;
        o.request_timeout = 10s;
        o.connect_timeout = 10s;
        o.logger = [this](mcph::LogLevel level, std::string_view source, std::string_view message) {
            std::lock_guard lock(log_mutex);
            logs.push_back(std::to_string(static_cast<int>(level)) + " " + std::string(source) + ": " +
                           std::string(message));
        };
        return o;
    }

    std::string state_of(mcph::Host& host) {
        return host.call_tool("mcp__echo__state", parse_json("{}")).text();
    }

    std::mutex log_mutex;
    std::vector<std::string> logs;
};

TEST_F(HostEchoTest, ConnectHandshakeAndServerInfo) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    auto session = host.connect("echo");
    ASSERT_TRUE(session);
    EXPECT_TRUE(session->connected());
    EXPECT_EQ(session->server_name(), "echo");
    EXPECT_EQ(session->protocol_version(), "2025-11-25") << "the echo server accepts what we offer: the newest";
    EXPECT_EQ(session->server_info().name, "echo-server");
    EXPECT_EQ(session->server_info().version, "1.2.3");
    EXPECT_EQ(session->instructions(), "say something");
    EXPECT_TRUE(session->has_capability("tools"));
    EXPECT_FALSE(session->has_capability("resources"));
    ASSERT_EQ(host.status().size(), 1u);
    EXPECT_EQ(host.status()[0].state, "connected");
    EXPECT_EQ(host.status()[0].type, "echo");
    EXPECT_EQ(host.connect("echo")->server_name(), "echo") << "connect again returns the live session";
}

TEST_F(HostEchoTest, LifecycleMessagesReachTheServer) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    mcph::Json state = parse_json(state_of(host));
    ASSERT_GE(state["notifications"].Size(), 1u);
    EXPECT_STREQ(state["notifications"][0].GetString(), "notifications/initialized");
    EXPECT_STREQ(state["options"]["protocol-version"].GetString(), "2025-11-25");
    EXPECT_STREQ(state["options"]["initialized"].GetString(), "true");
}

TEST_F(HostEchoTest, ToolsAreListedAcrossPagesAndMapped) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    auto tools = host.tools();
    ASSERT_EQ(tools.size(), 8u) << "pageSize 3: the list spans three pages";
    EXPECT_EQ(tools[0].name, "say");
    EXPECT_EQ(tools[0].mapped_name, "mcp__echo__say");
    EXPECT_EQ(tools[0].server, "echo");
    EXPECT_EQ(tools[0].description, "repeats its arguments");
    EXPECT_EQ(tools[1].name, "weird tool!");
    EXPECT_EQ(tools[1].mapped_name.rfind("mcp__echo__weird_tool__h", 0), 0u) << tools[1].mapped_name;
    EXPECT_EQ(tools[1].mapped_name.size(), std::string("mcp__echo__weird_tool__h").size() + 16);
    EXPECT_FALSE(tools[2].output_schema.empty());
    EXPECT_TRUE(tools[7].destructive);
    auto listed = host.session("echo")->list_tools();
    EXPECT_EQ(listed.size(), 8u);
}

TEST_F(HostEchoTest, CallToolByMappedNameAndByServerSlashTool) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    auto r = host.call_tool("mcp__echo__say", parse_json(R"({"text":"hi"})"));
    EXPECT_FALSE(r.is_error);
    EXPECT_EQ(r.text(), R"(say {"text":"hi"})");
    EXPECT_EQ(host.call_tool("echo/say", parse_json(R"({"n":1})")).text(), R"(say {"n":1})");

    // The encoded name resolves to the original, which is what the server receives.
    std::string weird;
    for (const auto& t : host.tools())
        if (t.name == "weird tool!") weird = t.mapped_name;
    EXPECT_EQ(host.call_tool(weird, parse_json("{}")).text(), "weird tool! {}");

    EXPECT_EQ(error_of([&] { host.call_tool("mcp__echo__nope", parse_json("{}")); }).kind(), ErrorKind::NotFound);
    EXPECT_EQ(error_of([&] { host.call_tool("other/say", parse_json("{}")); }).kind(), ErrorKind::Connection);
    EXPECT_EQ(error_of([&] { host.call_tool("echo/say", parse_json("[1]")); }).kind(), ErrorKind::Usage)
        << "arguments must be an object";
}

TEST_F(HostEchoTest, OutputSchemaIsEnforced) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    auto ok = host.call_tool("mcp__echo__measure", parse_json(R"({"structured":{"v":1.5}})"));
    ASSERT_NE(ok.structured(), nullptr);
    EXPECT_DOUBLE_EQ((*ok.structured())["v"].GetDouble(), 1.5);

    Error wrong = error_of([&] { host.call_tool("mcp__echo__measure", parse_json(R"({"structured":{"v":"x"}})")); });
    EXPECT_EQ(wrong.kind(), ErrorKind::Protocol);
    EXPECT_TRUE(contains(wrong.what(), "outputSchema")) << wrong.what();
    EXPECT_TRUE(contains(wrong.what(), "'type'")) << wrong.what();

    Error missing = error_of([&] { host.call_tool("mcp__echo__measure", parse_json("{}")); });
    EXPECT_EQ(missing.kind(), ErrorKind::Protocol);
    EXPECT_TRUE(contains(missing.what(), "no structuredContent")) << missing.what();
}

TEST_F(HostEchoTest, RemoteErrorKeepsItsCode) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    Error e = error_of([&] { host.call_tool("mcp__echo__fail", parse_json("{}")); });
    EXPECT_EQ(e.kind(), ErrorKind::Remote);
    EXPECT_EQ(e.code(), -32000);
    EXPECT_TRUE(contains(e.what(), "tool failed on purpose")) << e.what();
    EXPECT_EQ(host.call_tool("mcp__echo__say", parse_json("{}")).text(), "say {}") << "the session survives";
}

TEST_F(HostEchoTest, TimeoutFiresFromTheHostLoopAndCancelsOnTheServer) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    mcph::RequestOptions quick;
    quick.timeout = 100ms;
    const auto start = std::chrono::steady_clock::now();
    Error e = error_of([&] { host.call_tool("mcp__echo__slow", parse_json("{}"), quick); });
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
    EXPECT_GE(took, 100ms);
    EXPECT_LT(took, 5s);
    // The notice usually goes out before the caller learns; when the request's own write was
    // still under way (a starved thread) it follows from the host's worker: wait for it.
    std::size_t cancelled = 0;
    for (const auto until = std::chrono::steady_clock::now() + 5s; cancelled == 0 && std::chrono::steady_clock::now() < until;) {
        cancelled = parse_json(state_of(host))["cancelled"].Size();
        if (cancelled == 0) std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(cancelled, 1u) << "notifications/cancelled reached the server";
}

TEST_F(HostEchoTest, PendingRequestCanBeCancelled) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    auto session = host.connect("echo");
    mcph::Json params = parse_json(R"({"name":"slow","arguments":{}})");
    auto pending = session->request("tools/call", std::move(params));
    pending.cancel("changed my mind");
    Error e = error_of([&] { pending.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    mcph::Json state = parse_json(state_of(host));
    EXPECT_EQ(state["cancelled"].Size(), 1u);
}

TEST_F(HostEchoTest, ServerToClientRequestIsAnsweredByTheApplication) {
    mcph::HostOptions o = options();
    std::atomic<int> asked{0};
    o.callbacks.roots = [&](const std::string& server) {
        ++asked;
        return std::vector<mcph::Root>{{"file:///work/" + server, "work"}};
    };
    mcph::Host host(o);
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    const std::string text = host.call_tool("mcp__echo__roots", parse_json("{}")).text();
    EXPECT_EQ(text, R"({"roots":[{"uri":"file:///work/echo","name":"work"}]})");
    EXPECT_EQ(asked.load(), 1);
}

TEST_F(HostEchoTest, DefaultRootsAreTheWorkingDirectory) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    mcph::Json roots = parse_json(host.call_tool("mcp__echo__roots", parse_json("{}")).text());
    ASSERT_EQ(roots["roots"].Size(), 1u);
    EXPECT_EQ(std::string(roots["roots"][0]["uri"].GetString()).rfind("file:///", 0), 0u);
}

TEST_F(HostEchoTest, UnsupportedProtocolVersionIsAProtocolError) {
    mcph::Host host(options());
    host.add_config_json(config("old", server_entry(R"(,"answerProtocolVersion":"2024-11-05")")));
    Error e = error_of([&] { host.connect("old"); });
    EXPECT_EQ(e.kind(), ErrorKind::Protocol);
    EXPECT_TRUE(contains(e.what(), "'2024-11-05'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "server 'old'")) << e.what();
    EXPECT_EQ(host.session("old"), nullptr);
    ASSERT_EQ(host.status().size(), 1u);
    EXPECT_EQ(host.status()[0].state, "failed");
    EXPECT_TRUE(contains(host.status()[0].error, "2024-11-05")) << host.status()[0].error;
    EXPECT_TRUE(host.tools().empty());
}

TEST_F(HostEchoTest, OlderSupportedProtocolVersionIsAccepted) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry(R"(,"answerProtocolVersion":"2025-03-26")")));
    auto session = host.connect("echo");
    EXPECT_EQ(session->protocol_version(), "2025-03-26");
    mcph::Json state = parse_json(state_of(host));
    EXPECT_STREQ(state["options"]["protocol-version"].GetString(), "2025-03-26")
        << "the transport learns the negotiated version";
}

TEST_F(HostEchoTest, TransportFailureFailsTheCallAndTheStatus) {
    auto opts = options();
    opts.reconnect = mcph::HostOptions::Reconnect{};
    opts.reconnect->max_attempts = 0;  // no automatic reconnection: the loss ends in "failed"
    mcph::Host host(opts);
    host.add_config_json(config("echo", server_entry()));
    auto session = host.connect("echo");
    Error e = error_of([&] { host.call_tool("mcp__echo__crash", parse_json("{}")); });
    EXPECT_EQ(e.kind(), ErrorKind::Connection);
    EXPECT_TRUE(contains(e.what(), "echo server crashed on request")) << e.what();
    EXPECT_FALSE(session->connected());
    EXPECT_EQ(host.session("echo"), nullptr);
    // The status flips to failed on the host loop, shortly after.
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (host.status()[0].state != "failed" && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    EXPECT_EQ(host.status()[0].state, "failed");
    EXPECT_TRUE(contains(host.status()[0].error, "crashed")) << host.status()[0].error;
    EXPECT_EQ(error_of([&] { session->call("ping", mcph::Json()); }).kind(), ErrorKind::Connection);
}

TEST_F(HostEchoTest, ConnectFailuresHaveTheRightKind) {
    mcph::Host host(options());
    host.add_config_json(R"({"mcpServers":{
        "badmode":{"type":"echo","mode":"bogus"},
        "nostart":{"type":"echo","failStart":true},
        "unknown":{"type":"carrier-pigeon"},
        "off":{"type":"echo","disabled":true}}})");
    Error badmode = error_of([&] { host.connect("badmode"); });
    EXPECT_EQ(badmode.kind(), ErrorKind::Usage);
    EXPECT_TRUE(contains(badmode.what(), "unknown mode 'bogus'")) << badmode.what();
    Error nostart = error_of([&] { host.connect("nostart"); });
    EXPECT_EQ(nostart.kind(), ErrorKind::Connection);
    Error unknown = error_of([&] { host.connect("unknown"); });
    EXPECT_EQ(unknown.kind(), ErrorKind::Plugin);
    EXPECT_TRUE(contains(unknown.what(), "'carrier-pigeon'")) << unknown.what();
    EXPECT_TRUE(contains(unknown.what(), "available: echo")) << unknown.what();
    Error off = error_of([&] { host.connect("off"); });
    EXPECT_EQ(off.kind(), ErrorKind::Usage);
    EXPECT_TRUE(contains(off.what(), "disabled")) << off.what();
    EXPECT_EQ(error_of([&] { host.connect("missing"); }).kind(), ErrorKind::NotFound);

    std::map<std::string, std::string> states;
    for (const auto& s : host.status()) states[s.name] = s.state;
    EXPECT_EQ(states["badmode"], "failed");
    EXPECT_EQ(states["nostart"], "failed");
    EXPECT_EQ(states["unknown"], "failed");
    EXPECT_EQ(states["off"], "disabled");
}

TEST_F(HostEchoTest, ConnectAllRecordsFailuresWithoutThrowing) {
    mcph::Host host(options());
    host.add_config_json(R"({"mcpServers":{"a":{"type":"echo"},"b":{"type":"echo","answerProtocolVersion":"1999-01-01"},
                                          "c":{"type":"echo","disabled":true}}})");
    EXPECT_NO_THROW(host.connect_all());
    std::map<std::string, std::string> states;
    for (const auto& s : host.status()) states[s.name] = s.state;
    EXPECT_EQ(states["a"], "connected");
    EXPECT_EQ(states["b"], "failed");
    EXPECT_EQ(states["c"], "disabled");
    EXPECT_EQ(host.server_names(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(HostEchoTest, TwoServersToolsAreKeptApart) {
    mcph::Host host(options());
    host.add_config_json(R"({"mcpServers":{"one":{"type":"echo","tools":[{"name":"say"}]},
                                          "two":{"type":"echo","tools":[{"name":"say"}]}}})");
    host.connect_all();
    auto tools = host.tools();
    ASSERT_EQ(tools.size(), 2u);
    EXPECT_EQ(tools[0].mapped_name, "mcp__one__say");
    EXPECT_EQ(tools[1].mapped_name, "mcp__two__say");
    mcph::Json status = host.status_json();
    ASSERT_EQ(status["servers"].Size(), 2u);
    EXPECT_STREQ(status["servers"][1]["tools"][0]["name"].GetString(), "mcp__two__say");
    EXPECT_STREQ(status["servers"][1]["tools"][0]["originalName"].GetString(), "say");
}

TEST_F(HostEchoTest, DisconnectAndReconnect) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    auto first = host.connect("echo");
    host.disconnect("echo");
    EXPECT_FALSE(first->connected());
    EXPECT_EQ(host.session("echo"), nullptr);
    EXPECT_EQ(host.status()[0].state, "pending");
    EXPECT_TRUE(host.tools().empty());
    auto second = host.connect("echo");
    EXPECT_TRUE(second->connected());
    EXPECT_EQ(host.call_tool("mcp__echo__say", parse_json("{}")).text(), "say {}");
}

TEST_F(HostEchoTest, ConcurrentCallsAllComplete) {
    mcph::Host host(options());
    host.add_config_json(config("echo", server_entry()));
    host.connect("echo");
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                const std::string args = "{\"t\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}";
                if (host.call_tool("mcp__echo__say", parse_json(args)).text() != "say " + args) ++wrong;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
