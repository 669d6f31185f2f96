// Issue #11 ("What it must show", item 3): misbehaving modern (2026-07-28) servers. A modern server
// answers server/discover and then serves every request statelessly; each test below is one way
// such a server can misbehave — input_required for ever, a huge requestState, result types the
// client never asked for, too many input requests, error bodies that lie about the era, response
// streams that break, a tool annotation that cannot be honoured — and asserts the typed error (or
// the fallback) that ends it, within a bound.
//
// The HTTP servers are raw loopback servers written here (hostile_peer_support.hpp); the stdio
// ones are modes of tests/fakes/fake-mcp-server (silent-discover, modern-only-init).
#include "hostile_peer_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <set>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;
using namespace mcph::test::hostile;

constexpr const char* kModern = "2026-07-28";
constexpr const char* kWorkTool = R"([{"name":"work","inputSchema":{"type":"object"}}])";

// One request as the server saw it.
struct Seen {
    std::string method;
    std::string id;  // the JSON text of its id
    Json params;
};

std::string rpc_result(const Json& message, const std::string& result_json) {
    return R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) + R"(,"result":)" + result_json + "}";
}

std::string rpc_error(const Json& message, int code, const std::string& rest) {
    return R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) + R"(,"error":{"code":)" + std::to_string(code) + rest + "}}";
}

std::string remote_entry_for(const std::string& url) { return R"({"type":"http","url":")" + url + R"("})"; }

HttpReply json_reply(const std::string& body) { return {"200 OK", "Content-Type: application/json\r\n", body}; }

// The -32022 answer of a modern server to a version it does not take, listing `supported`.
std::string unsupported_version_error(const Json& message, const std::string& supported_json) {
    return rpc_error(message, -32022,
                     R"(,"message":"Unsupported protocol version","data":{"supported":)" + supported_json +
                         R"(,"requested":"2026-07-28"})");
}

std::string discover_result() {
    return R"({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},)"
           R"("_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hostile-modern","version":"1"}}})";
}

// A modern Streamable HTTP server: server/discover, tools/list (`tools_json`), tools/call answered
// by `on_call` (the n-th call, from 1) or "work done". `on_discover` (the n-th discover) may
// replace the discover answer. It records every request it saw.
class ModernServer {
public:
    using OnCall = std::function<HttpReply(const Json& message, int nth)>;
    using OnDiscover = std::function<std::optional<HttpReply>(const HttpRequest&, const Json& message, int nth)>;

    explicit ModernServer(OnCall on_call = {}, std::string tools_json = kWorkTool, OnDiscover on_discover = {})
        : on_call_(std::move(on_call)),
          on_discover_(std::move(on_discover)),
          tools_json_(std::move(tools_json)),
          http_(json_rpc_handler([this](const HttpRequest& r, const Json& m, const std::string& method) { return reply(r, m, method); })) {}

    std::string url() const { return http_.url(); }
    std::vector<Seen> seen(const std::string& method) const {
        std::lock_guard lock(mutex_);
        std::vector<Seen> out;
        for (const Seen& s : seen_)
            if (s.method == method) {
                Seen copy{s.method, s.id, Json()};
                copy.params.CopyFrom(s.params, copy.params.GetAllocator());
                out.push_back(std::move(copy));
            }
        return out;
    }
    std::size_t count(const std::string& method) const { return seen(method).size(); }

    // What a legacy server would answer (for the fallback tests): initialize and later requests.
    static HttpReply legacy(const Json& message, const std::string& method) {
        if (method == "initialize")
            return {"200 OK", "Content-Type: application/json\r\nMcp-Session-Id: legacy-1\r\n", initialize_result(message)};
        if (!message.HasMember("id")) return {"202 Accepted", "", ""};
        if (method == "tools/list") return json_reply(rpc_result(message, std::string(R"({"tools":)") + kWorkTool + "}"));
        if (method == "tools/call") return json_reply(rpc_result(message, R"({"content":[{"type":"text","text":"legacy work done"}]})"));
        return json_reply(rpc_error(message, -32601, R"(,"message":"method not found")"));
    }

private:
    HttpReply reply(const HttpRequest& request, const Json& message, const std::string& method) {
        int nth = 0;
        {
            std::lock_guard lock(mutex_);
            Seen s{method, message.HasMember("id") ? to_json(message["id"]) : std::string(), Json()};
            if (const JsonValue* p = member_at(message, "params")) s.params.CopyFrom(*p, s.params.GetAllocator());
            seen_.push_back(std::move(s));
            for (const Seen& each : seen_) nth += each.method == method ? 1 : 0;
        }
        if (method == "server/discover") {
            if (on_discover_)
                if (auto custom = on_discover_(request, message, nth)) return *custom;
            return json_reply(rpc_result(message, discover_result()));
        }
        if (on_discover_ && (method == "initialize" || request.has_header("mcp-session-id"))) return legacy(message, method);
        if (!message.HasMember("id")) return {"202 Accepted", "", ""};
        if (method == "tools/list") return json_reply(rpc_result(message, R"({"resultType":"complete","tools":)" + tools_json_ + "}"));
        if (method == "tools/call") {
            if (on_call_) return on_call_(message, nth);
            return json_reply(rpc_result(message, R"({"resultType":"complete","content":[{"type":"text","text":"work done"}]})"));
        }
        return json_reply(rpc_error(message, -32601, R"(,"message":"method not found")"));
    }

    OnCall on_call_;
    OnDiscover on_discover_;
    std::string tools_json_;
    mutable std::mutex mutex_;
    std::vector<Seen> seen_;
    RawHttpServer http_;  // last: it calls reply() until destroyed
};

std::string params_string(const Seen& s, const char* name) {
    return s.params.IsObject() ? string_at(s.params, name) : std::string();
}

std::string request_version(const Seen& s) {
    const JsonValue* meta = s.params.IsObject() ? member_at(s.params, "_meta") : nullptr;
    return meta ? string_at(*meta, "io.modelcontextprotocol/protocolVersion") : std::string();
}

// A Host connected to `server` over Streamable HTTP (with the members of `extra` in its entry).
struct Connected {
    LogCapture logs;
    std::unique_ptr<Host> host;
    Connected(const std::string& url, std::string_view extra = "{}") {
        HostOptions options = test_options(logs);
        options.connect_timeout = 5s;
        host = std::make_unique<Host>(options);
        EXPECT_TRUE(has_transport_plugin(*host, "http"));
        host->add_server("m", remote_config("http", url, extra));
        host->connect("m");
    }
    Json status_of_m() const {
        Json status = host->status_json();
        Json out;
        for (const JsonValue& s : status["servers"].GetArray())
            if (string_at(s, "name") == "m") out.CopyFrom(s, out.GetAllocator());
        return out;
    }
};

// Calls mcp__m__work and returns the typed error it must end in (a failure when it succeeds).
Error failed_call(Host& host, std::chrono::milliseconds bound = 8s) {
    RequestOptions ro;
    ro.timeout = bound;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host.call_tool("mcp__m__work", parse_json("{}"), ro);
    } catch (const Error& e) {
        EXPECT_LT(elapsed_ms(t0), bound.count()) << "ended by the timeout, not by a bound";
        return e;
    }
    ADD_FAILURE() << "the call cannot succeed";
    return Error(ErrorKind::Usage, "succeeded");
}

std::string first_text(const CallToolResult& result) { return result.text(); }

// ---- 1. input_required for ever -----------------------------------------------------------------

HttpReply input_required_forever(const Json& message, int) {
    return json_reply(rpc_result(message, R"({"resultType":"input_required",)"
                                          R"("inputRequests":{"roots":{"method":"roots/list","params":{}}},)"
                                          R"("requestState":"state-abc"})"));
}

void expect_round_cap(const ModernServer& server, Connected& c, int cap) {
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "after " + std::to_string(cap) + " rounds")) << e.what();
    EXPECT_TRUE(contains(e.what(), "maxInputRounds")) << e.what();
    const auto calls = server.seen("tools/call");
    ASSERT_EQ(calls.size(), static_cast<std::size_t>(cap + 1)) << "the first request and one retry per round";
    std::set<std::string> ids;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        ids.insert(calls[i].id);
        EXPECT_EQ(request_version(calls[i]), kModern) << "call " << i << " is not stateless";
        if (i == 0) {
            EXPECT_FALSE(calls[i].params.HasMember("requestState"));
            continue;
        }
        EXPECT_EQ(params_string(calls[i], "requestState"), "state-abc") << "retry " << i;
        EXPECT_TRUE(calls[i].params.HasMember("inputResponses")) << "retry " << i;
    }
    EXPECT_EQ(ids.size(), calls.size()) << "every retry is a new JSON-RPC request";
}

TEST(ModernServer, InputRequiredForEverEndsAtTheDefaultRoundCap) {
    ModernServer server(input_required_forever);
    Connected c(server.url());
    expect_round_cap(server, c, 10);
}

TEST(ModernServer, InputRequiredForEverEndsAtAConfiguredRoundCap) {
    ModernServer server(input_required_forever);
    Connected c(server.url(), R"({"maxInputRounds":3})");
    expect_round_cap(server, c, 3);
}

// ---- 2. requestState size -----------------------------------------------------------------------

std::string state_of(std::size_t bytes) {
    std::string s(bytes, 'x');
    for (std::size_t i = 0; i < bytes; ++i) s[i] = "abcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 7 + i / 38) % 38];
    return s;
}

TEST(ModernServer, AOneMegabyteRequestStateIsEchoedByteExact) {
    const std::string state = state_of(1'000'000);
    ModernServer server([&](const Json& message, int nth) {
        if (nth == 1) return json_reply(rpc_result(message, R"({"resultType":"input_required","requestState":)" + json_quote(state) + "}"));
        const JsonValue* p = member_at(message, "params");
        const bool intact = p && string_at(*p, "requestState") == state;
        return json_reply(rpc_result(message, std::string(R"({"resultType":"complete","content":[{"type":"text","text":")") +
                                                  (intact ? "state intact" : "state damaged") + R"("}]})"));
    });
    Connected c(server.url());
    RequestOptions ro;
    ro.timeout = 8s;
    const CallToolResult result = c.host->call_tool("mcp__m__work", parse_json("{}"), ro);
    EXPECT_EQ(first_text(result), "state intact");
    EXPECT_EQ(server.count("tools/call"), 2u);
}

TEST(ModernServer, ARequestStateOverTheBoundIsRefusedWithoutARetry) {
    const std::string state = state_of((4u << 20) + 1);
    ModernServer server([&](const Json& message, int) {
        return json_reply(rpc_result(message, R"({"resultType":"input_required","requestState":)" + json_quote(state) + "}"));
    });
    Connected c(server.url());
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "requestState of 4194305 bytes exceeds the client's bound of 4194304 bytes")) << e.what();
    EXPECT_EQ(server.count("tools/call"), 1u) << "no retry";
}

// ---- 3. result types never asked for ------------------------------------------------------------

TEST(ModernServer, AnUnknownResultTypeIsAProtocolErrorNamingIt) {
    ModernServer server([](const Json& message, int) {
        return json_reply(rpc_result(message, R"({"resultType":"partial","content":[]})"));
    });
    Connected c(server.url());
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "unknown resultType 'partial'")) << e.what();
    EXPECT_EQ(server.count("tools/call"), 1u);
}

// mcph declares the tasks extension; a CreateTaskResult not in the 2026-07-28 shape (here the 2025
// nesting under "task") is refused without a poll.
TEST(ModernServer, AMalformedTaskResultIsRefusedWithoutPolling) {
    ModernServer server([](const Json& message, int) {
        return json_reply(rpc_result(message, R"({"resultType":"task","task":{"taskId":"t1","status":"working"}})"));
    });
    Connected c(server.url());
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "taskId")) << e.what();
    EXPECT_EQ(server.count("tools/call"), 1u);
    EXPECT_EQ(server.count("tasks/get"), 0u);
}

// ---- 4. input requests: too many, and of an unknown method ------------------------------------------

TEST(ModernServer, ThirtyThreeInputRequestsInOneRoundAreRefused) {
    std::string requests;
    for (int i = 0; i < 33; ++i) requests += (i ? "," : "") + std::string(R"("r)") + std::to_string(i) + R"(":{"method":"roots/list"})";
    ModernServer server([&](const Json& message, int) {
        return json_reply(rpc_result(message, R"({"resultType":"input_required","inputRequests":{)" + requests + "}}"));
    });
    Connected c(server.url());
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "33 input requests in one round exceed the client's bound of 32")) << e.what();
    EXPECT_EQ(server.count("tools/call"), 1u) << "nothing answered, no retry";
}

TEST(ModernServer, AnInputRequestOfAnUnknownMethodIsLeftUnansweredAndTheOthersAreSent) {
    ModernServer server([](const Json& message, int nth) {
        if (nth == 1)
            return json_reply(rpc_result(message, R"({"resultType":"input_required","inputRequests":{)"
                                                  R"("roots":{"method":"roots/list"},"odd":{"method":"bogus/method","params":{}}},)"
                                                  R"("requestState":"s1"})"));
        return json_reply(rpc_result(message, R"({"resultType":"complete","content":[{"type":"text","text":"done"}]})"));
    });
    Connected c(server.url());
    RequestOptions ro;
    ro.timeout = 8s;
    const CallToolResult result = c.host->call_tool("mcp__m__work", parse_json("{}"), ro);
    EXPECT_EQ(first_text(result), "done");
    const auto calls = server.seen("tools/call");
    ASSERT_EQ(calls.size(), 2u);
    const JsonValue* responses = member_at(calls[1].params, "inputResponses");
    ASSERT_TRUE(responses && responses->IsObject()) << to_json(calls[1].params);
    EXPECT_TRUE(responses->HasMember("roots"));
    EXPECT_FALSE(responses->HasMember("odd"));
    EXPECT_EQ(params_string(calls[1], "requestState"), "s1");
    EXPECT_TRUE(c.logs.contains(LogLevel::Warn, "input request 'odd' (bogus/method) was not answered")) << c.logs.dump();
}

// ---- 5. HTTP 400 answers to server/discover ------------------------------------------------------

void expect_legacy_fallback(const std::string& body, const std::string& content_type) {
    ModernServer server({}, kWorkTool, [&](const HttpRequest&, const Json&, int) -> std::optional<HttpReply> {
        return HttpReply{"400 Bad Request", "Content-Type: " + content_type + "\r\n", body};
    });
    Connected c(server.url());
    EXPECT_EQ(string_at(c.status_of_m(), "era"), "legacy") << to_json(c.status_of_m());
    EXPECT_EQ(server.count("server/discover"), 1u);
    EXPECT_EQ(server.count("initialize"), 1u);
    RequestOptions ro;
    ro.timeout = 5s;
    EXPECT_EQ(first_text(c.host->call_tool("mcp__m__work", parse_json("{}"), ro)), "legacy work done");
}

TEST(ModernServer, A400WithAGarbageBodyToDiscoverFallsBackToLegacy) {
    expect_legacy_fallback("<html><body>Bad Request</body></html>", "text/html");
}

TEST(ModernServer, A400WithJsonThatIsNotAJsonRpcErrorFallsBackToLegacy) {
    expect_legacy_fallback(R"({"error":"bad request","detail":{"supported":["2026-07-28"]}})", "application/json");
}

TEST(ModernServer, OneUnsupportedVersionAnswerListingOurVersionIsRetriedOnce) {
    ModernServer server({}, kWorkTool, [](const HttpRequest&, const Json& message, int nth) -> std::optional<HttpReply> {
        if (nth > 1) return std::nullopt;
        return HttpReply{"400 Bad Request", "Content-Type: application/json\r\n", unsupported_version_error(message, R"(["2026-07-28"])")};
    });
    Connected c(server.url());
    EXPECT_EQ(string_at(c.status_of_m(), "era"), "modern");
    EXPECT_EQ(server.count("server/discover"), 2u) << "one corrective retry";
    EXPECT_EQ(server.count("initialize"), 0u);
    RequestOptions ro;
    ro.timeout = 5s;
    EXPECT_EQ(first_text(c.host->call_tool("mcp__m__work", parse_json("{}"), ro)), "work done");
}

TEST(ModernServer, UnsupportedVersionForEverListingOurVersionEndsAfterTwoDiscovers) {
    ModernServer server({}, kWorkTool, [](const HttpRequest&, const Json& message, int) -> std::optional<HttpReply> {
        return HttpReply{"400 Bad Request", "Content-Type: application/json\r\n", unsupported_version_error(message, R"(["2026-07-28"])")};
    });
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.connect_timeout = 5s;
    Host host(options);
    host.add_server("m", remote_config("http", server.url()));
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host.connect("m");
        ADD_FAILURE() << "the connect cannot succeed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
        EXPECT_TRUE(contains(e.what(), "refused protocol version 2026-07-28 on server/discover although it listed it as supported"))
            << e.what();
    }
    EXPECT_LT(elapsed_ms(t0), 5000);
    EXPECT_LE(server.count("server/discover"), 2u);
    EXPECT_GE(server.count("server/discover"), 1u);
    EXPECT_EQ(server.count("initialize"), 0u) << "a server naming our modern version is not legacy";
}

// ---- 6. stdio servers contradicting themselves, or silent on discover ----------------------------

// The server's own error for initialize, from one connect of the modern-only-init fake; `log`
// gets what the server received.
Error contradicting_server_error(const std::filesystem::path& log) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.connect_timeout = 8s;
    Host host(options);
    EXPECT_TRUE(has_stdio_plugin(host));
    host.add_server("m", fake_config("modern-only-init", log));
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host.connect("m");
    } catch (const Error& e) {
        EXPECT_LT(elapsed_ms(t0), 8000);
        return e;
    }
    ADD_FAILURE() << "the connect cannot succeed";
    return Error(ErrorKind::Usage, "connected");
}

std::size_t occurrences(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = haystack.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
    return n;
}

// -32601 on server/discover means legacy, so initialize follows; a -32022 to initialize listing
// only 2026-07-28 then contradicts the probe. mcph must end there (no second probe, no loop).
TEST(ModernServer, AStdioServerRefusingDiscoverAndThenInitializeAsModernEndsWithoutALoop) {
    TempDir dir("mcph-modern");
    const Error e = contradicting_server_error(dir / "received.log");
    EXPECT_TRUE(contains(e.what(), "refused initialize")) << e.what();
    const std::string received = read_file(dir / "received.log");
    EXPECT_EQ(occurrences(received, "\"server/discover\""), 1u) << received;
    EXPECT_EQ(occurrences(received, "\"initialize\""), 1u) << "no loop: " << received;
}

// The contradiction ends in a Protocol error naming both sides' versions.
TEST(ModernServer, AStdioServerRefusingDiscoverAndThenInitializeAsModernNamesBothSides) {
    TempDir dir("mcph-modern");
    const Error e = contradicting_server_error(dir / "received.log");
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_TRUE(contains(e.what(), "2026-07-28")) << "the server's side: " << e.what();
    EXPECT_TRUE(contains(e.what(), "2025-11-25")) << "mcph's side: " << e.what();
}

TEST(ModernServer, AStdioServerSilentOnDiscoverIsLegacyAfterTheProbeWait) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.connect_timeout = 10s;
    Host host(options);
    ASSERT_TRUE(has_stdio_plugin(host));
    Json config = fake_config("silent-discover");
    config.AddMember("discoverTimeoutMs", 1000, config.GetAllocator());  // the default is 5 s
    host.add_server("m", config);
    const auto t0 = std::chrono::steady_clock::now();
    host.connect("m");
    const long long took = elapsed_ms(t0);
    std::cerr << "silent-discover connect took " << took << " ms\n";
    EXPECT_GE(took, 900) << "the probe waits discoverTimeoutMs";
    EXPECT_LT(took, 4000);
    Json status = host.status_json();
    EXPECT_EQ(string_at(status["servers"][0], "era"), "legacy") << to_json(status);
    RequestOptions ro;
    ro.timeout = 5s;
    EXPECT_EQ(first_text(host.call_tool("mcp__m__work", parse_json("{}"), ro)), "work done");
}

// ---- 7. response streams that break before the response ------------------------------------------

// A 200 SSE stream carrying one progress notification and then ending, the response never sent.
HttpReply broken_stream() {
    return {"200 OK", "Content-Type: text/event-stream\r\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"soon\"}}\n\n"};
}

TEST(ModernServer, AStreamBrokenBeforeTheResponseIsReissuedOnceWithANewId) {
    ModernServer server([](const Json& message, int nth) {
        if (nth == 1) return broken_stream();
        return json_reply(rpc_result(message, R"({"resultType":"complete","content":[{"type":"text","text":"second time"}]})"));
    });
    Connected c(server.url());
    RequestOptions ro;
    ro.timeout = 8s;
    EXPECT_EQ(first_text(c.host->call_tool("mcp__m__work", parse_json("{}"), ro)), "second time");
    const auto calls = server.seen("tools/call");
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_NE(calls[0].id, calls[1].id);
}

TEST(ModernServer, AStreamThatAlwaysBreaksEndsAfterExactlyOneReissue) {
    ModernServer server([](const Json&, int) { return broken_stream(); });
    Connected c(server.url());
    const Error e = failed_call(*c.host);
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(contains(e.what(), "ended before the response")) << e.what();
    const auto calls = server.seen("tools/call");
    ASSERT_EQ(calls.size(), 2u) << "the request and one re-issue";
    EXPECT_NE(calls[0].id, calls[1].id);
}

// ---- 8. a tool whose x-mcp-header cannot be honoured ---------------------------------------------

constexpr const char* kHeaderTools =
    R"([{"name":"work","inputSchema":{"type":"object","properties":{"q":{"type":"string","x-mcp-header":"Query"}}}},)"
    R"({"name":"count","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"Num"}}}}])";

TEST(ModernServer, AToolWithAnInvalidHeaderAnnotationIsSetAsideAndTheOthersWork) {
    ModernServer server({}, kHeaderTools);
    {
        Connected c(server.url());
        const Json status = c.status_of_m();
        const JsonValue* aside = member_at(status, "setAsideTools");
        ASSERT_TRUE(aside && aside->IsArray() && aside->Size() == 1) << to_json(status);
        EXPECT_EQ(string_at((*aside)[0], "name"), "count");
        EXPECT_TRUE(contains(string_at((*aside)[0], "reason"), "number")) << to_json(status);
        RequestOptions ro;
        ro.timeout = 5s;
        EXPECT_EQ(first_text(c.host->call_tool("mcp__m__work", parse_json(R"({"q":"hi"})"), ro)), "work done");
        EXPECT_TRUE(c.logs.contains(LogLevel::Warn, "count")) << c.logs.dump();
        try {
            c.host->call_tool("mcp__m__count", parse_json(R"({"n":1})"), ro);
            ADD_FAILURE() << "a set-aside tool cannot be called";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::NotFound) << e.what();
        }
        EXPECT_EQ(server.count("tools/call"), 1u) << "the set-aside tool never reached the server";
    }
    const std::string config = servers_config("m", remote_entry_for(server.url()));
    CliResult tools = run_mcph(config, {"--connect-timeout", "5s", "tools"}, 15s);
    SCOPED_TRACE(tools.describe());
    EXPECT_EQ(tools.exit_code, 0);
    EXPECT_TRUE(contains(tools.out, "mcp__m__work"));
    EXPECT_FALSE(contains(tools.out, "mcp__m__count"));
    CliResult status = run_mcph(config, {"--connect-timeout", "5s", "status", "--json"}, 15s);
    SCOPED_TRACE(status.describe());
    EXPECT_TRUE(contains(status.out, "\"setAsideTools\"")) << status.out;
}

// A listen stream the server never acknowledges is given up after listenAckTimeoutMs (cancelled:
// notifications/cancelled over stdio) and opened again after the backoff; calls keep working.
TEST(ModernServer, AListenStreamNeverAcknowledgedIsCancelledAndOpenedAgain) {
    TempDir dir("mcph-modern");
    const auto log = dir / "received.log";
    LogCapture logs;
    HostOptions options = test_options(logs);
    Host host(options);
    ASSERT_TRUE(has_stdio_plugin(host));
    Json config = fake_config("listen-unacked", log);
    config.AddMember("listenAckTimeoutMs", 300, config.GetAllocator());
    host.add_server("m", config);
    auto session = host.connect("m");
    ASSERT_EQ(session->era(), "modern");
    ASSERT_TRUE(wait_until([&] { return logs.contains(LogLevel::Warn, "did not acknowledge subscriptions/listen"); }, 5s))
        << logs.dump();
    // Cancelled (stdio: notifications/cancelled), then a second listen after the 1 s backoff.
    ASSERT_TRUE(wait_until([&] { return occurrences(read_file(log), "\"subscriptions/listen\"") >= 2; }, 5s))
        << read_file(log);
    EXPECT_GE(occurrences(read_file(log), "\"notifications/cancelled\""), 1u) << read_file(log);
    Json status = host.status_json();
    EXPECT_NE(string_at(status["servers"][0]["subscription"], "state"), "acknowledged") << to_json(status);
    RequestOptions ro;
    ro.timeout = 5s;
    EXPECT_EQ(first_text(host.call_tool("mcp__m__work", parse_json("{}"), ro)), "work done");
}

}  // namespace
