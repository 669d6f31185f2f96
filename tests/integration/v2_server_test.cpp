// mcph::Host against a real 2026-07-28 ("modern" era) server: tests/peers/v2-server.mjs, built on
// the official TypeScript server SDK (2.4.0, pinned in tests/peers/package.json), over stdio and
// Streamable HTTP, modern-only (--legacy reject) and dual-era (--legacy default). What is proved:
// the era and version negotiated, a pinned legacy version, MRTR answered by the application's
// callbacks (form and URL elicitation, sampling), x-mcp-header values the SDK checks, a restart
// mid-use, progress and cancellation. The peer has no tool that logs, so on_log is not covered here.
#include "governance_support.hpp"
#include "peer_process.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <mutex>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kServer = "v2";
constexpr const char* kModernVersion = "2026-07-28";
constexpr const char* kLegacyVersion = "2025-11-25";
constexpr const char* kConsentUrl = "https://example.com/mcph-consent";

enum class Wire { Stdio, Http };
enum class Legacy { Reject, Default };
struct Variant {
    Wire wire;
    Legacy legacy;
};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) {
    return std::string(info.param.wire == Wire::Stdio ? "Stdio" : "Http") +
           (info.param.legacy == Legacy::Reject ? "ModernOnly" : "DualEra");
}

fs::path v2_server_script() { return peers_dir() / "v2-server.mjs"; }

// Standard Base64 (RFC 4648, with padding): the expected Mcp-Param-* sentinel of a value that
// cannot travel as a plain header. Written here because the test must not reuse the code under test.
std::string base64(std::string_view in) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                           static_cast<unsigned char>(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
    }
    if (i < in.size()) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string member_string(const JsonValue* object, const char* name) {
    if (!object || !object->IsObject() || !object->HasMember(name) || !(*object)[name].IsString()) return "<absent>";
    return std::string((*object)[name].GetString(), (*object)[name].GetStringLength());
}

Json object_with(const char* key, const std::string& value) {
    Json o(rapidjson::kObjectType);
    o.AddMember(JsonValue(key, o.GetAllocator()), JsonValue(value.c_str(), o.GetAllocator()), o.GetAllocator());
    return o;
}

Json slow_args(int steps, int ms) {
    Json o(rapidjson::kObjectType);
    o.AddMember("steps", steps, o.GetAllocator());
    o.AddMember("ms", ms, o.GetAllocator());
    return o;
}

// The v2 server over the variant's wire; the host in `host`, built from `options` at connect().
class V2Server : public ::testing::TestWithParam<Variant> {
protected:
    void SetUp() override {
        if (!fs::exists(peers_dir() / "node_modules" / "@modelcontextprotocol" / "server"))
            GTEST_SKIP() << "npm test peers not installed (" << (peers_dir() / "node_modules")
                         << " lacks @modelcontextprotocol/server); run scripts/setup.sh (CI installs them)";
        ASSERT_TRUE(fs::exists(node_path())) << "Node is missing: " << node_path();
        ASSERT_TRUE(fs::exists(v2_server_script())) << v2_server_script();
        if (GetParam().wire == Wire::Http) start_http(0);
    }

    void TearDown() override {
        host.reset();
        peer_.stop();
        if (HasFailure() && fs::exists(peer_log_))
            std::cout << "peer log (" << peer_log_ << "):\n" << read_file(peer_log_).substr(0, 20000);
        std::error_code ec;
        fs::remove(peer_log_, ec);
        fs::remove(pid_file_, ec);
    }

    std::string legacy_flag() const { return GetParam().legacy == Legacy::Reject ? "reject" : "default"; }
    std::vector<std::string> server_argv(int port) const {
        std::vector<std::string> argv{node_path().string(), v2_server_script().string(), "--transport",
                                      GetParam().wire == Wire::Stdio ? "stdio" : "http", "--legacy", legacy_flag()};
        if (port) argv.insert(argv.end(), {"--port", std::to_string(port)});
        return argv;
    }

    // HTTP: starts the server on `port` (0: a free one) and waits until it accepts connections.
    void start_http(int port) {
        std::string error;
        if (port == 0) {
            port_ = start_listening_peer(
                peer_, [&](int p) { return server_argv(p); }, [](int) { return std::map<std::string, std::string>{}; },
                peer_log_, 30s, error);
            ASSERT_NE(port_, 0) << error;
            return;
        }
        ASSERT_TRUE(peer_.start(server_argv(port), {}, peer_log_, error)) << error;
        ASSERT_TRUE(wait_for_port(port, 15s)) << "the v2 server did not listen again on port " << port << "\n"
                                               << read_file(peer_log_);
    }

    // The server's config, with `extra` members (a JSON object text). Stdio runs the server through
    // /bin/sh, which writes its pid to pid_file_ and then execs node (the process mcph talks to).
    Json config(std::string_view extra = "{}") const {
        if (GetParam().wire == Wire::Http)
            return remote_config("http", "http://127.0.0.1:" + std::to_string(port_) + "/mcp", extra);
        std::string command = "echo $$ > '" + pid_file_.string() + "'; exec";
        for (const std::string& a : server_argv(0)) command += " '" + a + "'";
        Json c = stdio_config("/bin/sh", {"-c", command});
        Json more = parse_json(std::string(extra));
        for (auto& m : more.GetObject()) c.AddMember(JsonValue(m.name, c.GetAllocator()), JsonValue(m.value, c.GetAllocator()), c.GetAllocator());
        return c;
    }

    std::shared_ptr<ClientSession> connect(std::string_view extra = "{}") {
        host = std::make_unique<Host>(options);
        EXPECT_TRUE(has_transport_plugin(*host, GetParam().wire == Wire::Stdio ? "stdio" : "http"));
        host->add_server(kServer, config(extra));
        return host->connect(kServer);
    }

    CallToolResult call(const std::string& tool, const JsonValue& args, const RequestOptions& ro = {}) {
        return host->call_tool(std::string("mcp__") + kServer + "__" + tool, args, ro);
    }
    CallToolResult call(const std::string& tool) { return call(tool, Json(rapidjson::kObjectType)); }

    int cancellations() {
        CallToolResult r = call("cancellations");
        EXPECT_FALSE(r.is_error) << to_json(r.raw);
        return std::atoi(r.text().c_str());
    }

    // Polls the server's `cancellations` counter until it exceeds `before` (bounded).
    bool cancellation_counted(int before, std::chrono::milliseconds within) {
        return wait_until([&] { return cancellations() > before; }, within);
    }

    pid_t stdio_server_pid() const {
        const std::string text = fs::exists(pid_file_) ? read_file(pid_file_) : std::string();
        return static_cast<pid_t>(std::atol(text.c_str()));
    }

    LogCapture logs;
    HostOptions options = test_options(logs);
    std::unique_ptr<Host> host;
    PeerProcess peer_;
    int port_ = 0;
    fs::path peer_log_ = temp_path("v2-server.log");
    fs::path pid_file_ = temp_path("v2-server.pid");
};

// Subsets of the variants, for what only some of them can show.
class V2DualServer : public V2Server {};        // --legacy default
class V2ModernOnlyServer : public V2Server {};  // --legacy reject
class V2DualStdioServer : public V2Server {};   // legacy era with server->client requests
class V2HttpServer : public V2Server {};
class V2StdioServer : public V2Server {};

// ---- 1. era negotiation -------------------------------------------------------------------------

TEST_P(V2Server, ConnectsInTheModernEraListsToolsAndEchoes) {
    auto session = connect();
    EXPECT_EQ(session->era(), "modern");
    EXPECT_EQ(session->protocol_version(), kModernVersion);
    const ConnectionState now = host->state(kServer);
    const auto* connected = std::get_if<state::Connected>(&now);
    ASSERT_NE(connected, nullptr);
    EXPECT_EQ(connected->era, "modern");
    EXPECT_EQ(connected->server_info.name, "mcph-v2-peer");
    const auto tools = session->cached_tools();
    for (const char* t : {"echo", "ask_name", "open_link", "summarize", "regional_lookup", "slow", "cancellations"})
        EXPECT_TRUE(has_tool(tools, t)) << t;
    CallToolResult r = call("echo", object_with("text", "hello, 2026"));
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "hello, 2026");
}

std::string legacy_pin() { return std::string(R"({"protocolVersion":")") + kLegacyVersion + "\"}"; }

TEST_P(V2DualServer, PinnedLegacyVersionIsServed) {
    auto session = connect(legacy_pin());
    EXPECT_EQ(session->era(), "legacy");
    EXPECT_EQ(session->protocol_version(), kLegacyVersion);
    CallToolResult r = call("echo", object_with("text", "old times"));
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "old times");
}

// A modern-only server refuses the pinned legacy opening with -32022 and data.supported: the error
// names the pinned version, what the server speaks, and what to configure.
TEST_P(V2ModernOnlyServer, PinnedLegacyVersionRefusalNamesTheServersVersions) {
    Error e = failed_connect(options, kServer, config(legacy_pin()));
    const std::string message = e.what();
    EXPECT_NE(message.find(kModernVersion), std::string::npos)
        << "the error should name the version the server speaks: " << message << "\ndata: " << e.data_json();
    EXPECT_NE(message.find(kLegacyVersion), std::string::npos) << "the error should name the pinned version: " << message;
}

// The `mcph` CLI: `status --json` reports the era and version, `call` runs a tool; in scratch
// config locations, with only this server (--strict-mcp-config).
struct CliRun {
    fs::path dir = temp_path("v2-cli");
    CliLocations where{dir / "repo", dir / "config", dir / "managed", dir / "home"};
    CliRun() { where.create(); }
    ~CliRun() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    CliResult operator()(const Json& config, std::vector<std::string> args) {
        std::vector<std::string> argv{"--strict-mcp-config", "--mcp-config",
                                      std::string(R"({"mcpServers":{")") + kServer + "\":" + to_json(config) + "}}"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_cli(argv, where.env(), where.repo, 20s);
    }
};

TEST_P(V2Server, CliStatusShowsTheModernEraAndCallWorks) {
    ASSERT_TRUE(fs::exists(cli_path())) << cli_path();
    CliRun mcph;
    const CliResult status = mcph(config(), {"status", "--json"});
    ASSERT_EQ(status.exit_code, 0) << status.describe();
    Json doc = parse_or_fail(status.out, "`mcph status --json` output");
    const JsonValue* server = find_named(member_at(doc, "servers"), kServer);
    ASSERT_NE(server, nullptr) << status.describe();
    EXPECT_EQ(string_at(*server, "state"), "connected") << status.describe();
    EXPECT_EQ(string_at(*server, "era"), "modern") << status.describe();
    EXPECT_EQ(string_at(*server, "protocolVersion"), kModernVersion) << status.describe();

    const CliResult echo = mcph(config(), {"call", std::string("mcp__") + kServer + "__echo", R"({"text":"from the cli"})"});
    ASSERT_EQ(echo.exit_code, 0) << echo.describe();
    EXPECT_NE(echo.out.find("from the cli"), std::string::npos) << echo.describe();
}

TEST_P(V2DualServer, CliStatusShowsAPinnedLegacyEra) {
    ASSERT_TRUE(fs::exists(cli_path())) << cli_path();
    CliRun mcph;
    const CliResult status = mcph(config(legacy_pin()), {"status", "--json"});
    ASSERT_EQ(status.exit_code, 0) << status.describe();
    Json doc = parse_or_fail(status.out, "`mcph status --json` output");
    const JsonValue* server = find_named(member_at(doc, "servers"), kServer);
    ASSERT_NE(server, nullptr) << status.describe();
    EXPECT_EQ(string_at(*server, "era"), "legacy") << status.describe();
    EXPECT_EQ(string_at(*server, "protocolVersion"), kLegacyVersion) << status.describe();
}

// ---- 2. MRTR through the application's callbacks ------------------------------------------------

TEST_P(V2Server, FormElicitationAcceptedGreetsByName) {
    std::atomic<int> asked{0};
    std::string mode;
    options.callbacks.elicitation = [&](const ElicitationRequest& req) {
        ++asked;
        mode = req.mode;
        ElicitationResponse resp;
        resp.action = "accept";
        resp.content = object_with("name", "Ada");
        return resp;
    };
    connect();
    CallToolResult r = call("ask_name");
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "Hello, Ada");
    EXPECT_EQ(member_string(r.structured(), "name"), "Ada");
    EXPECT_EQ(asked.load(), 1);
    EXPECT_EQ(mode, "form");
}

TEST_P(V2Server, FormElicitationDeclinedIsReported) {
    std::atomic<int> asked{0};
    options.callbacks.elicitation = [&](const ElicitationRequest& req) {
        ++asked;
        EXPECT_EQ(req.message, "What is your name?");
        return ElicitationResponse{"decline", Json()};
    };
    connect();
    CallToolResult r = call("ask_name");
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "no name: decline");
    EXPECT_EQ(asked.load(), 1);
}

TEST_P(V2Server, UrlElicitationShowsTheFullUrlAndReflectsTheAnswer) {
    std::mutex m;
    std::vector<ElicitationRequest> seen;
    std::string answer = "accept";
    options.callbacks.elicitation = [&](const ElicitationRequest& req) {
        std::lock_guard lock(m);
        seen.push_back(ElicitationRequest{req.server, req.mode, req.message, req.url, Json()});
        return ElicitationResponse{answer, Json()};
    };
    connect();
    CallToolResult accepted = call("open_link");
    EXPECT_FALSE(accepted.is_error) << to_json(accepted.raw);
    EXPECT_EQ(accepted.text(), "link: accept");
    answer = "decline";
    CallToolResult declined = call("open_link");
    EXPECT_FALSE(declined.is_error) << to_json(declined.raw);
    EXPECT_EQ(declined.text(), "link: decline");
    std::lock_guard lock(m);
    ASSERT_EQ(seen.size(), 2u);
    for (const auto& req : seen) {
        EXPECT_EQ(req.server, kServer);
        EXPECT_EQ(req.mode, "url");
        EXPECT_EQ(req.url, kConsentUrl);
        EXPECT_EQ(req.message, "Please open this page to continue");
    }
}

TEST_P(V2Server, SamplingAnswerComesBackInTheToolResult) {
    std::string prompt;
    options.callbacks.sampling = [&](const std::string&, const JsonValue& params) {
        prompt = to_json(params);
        return parse_json(R"({"role":"assistant","content":{"type":"text","text":"short and sweet"},"model":"test-model","stopReason":"endTurn"})");
    };
    connect();
    CallToolResult r = call("summarize", object_with("text", "a very long story"));
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "summary: short and sweet");
    EXPECT_EQ(member_string(r.structured(), "model"), "test-model");
    EXPECT_NE(prompt.find("Summarize: a very long story"), std::string::npos) << prompt;
}

// The dual server with a pinned legacy version: the SDK's shim turns the same input_required
// return into a real elicitation/create request, answered by the same callback.
// Stdio only: the SDK's stateless legacy HTTP serving answers each POST alone, so it cannot send a
// server->client request (it says so in an isError tool result instead of asking).
TEST_P(V2DualStdioServer, PinnedLegacyEraElicitationGoesThroughTheSameCallback) {
    options.callbacks.elicitation = [&](const ElicitationRequest& req) {
        EXPECT_EQ(req.mode, "form");
        return ElicitationResponse{"accept", object_with("name", "Grace")};
    };
    auto session = connect(legacy_pin());
    ASSERT_EQ(session->era(), "legacy");
    CallToolResult r = call("ask_name");
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "Hello, Grace");
}

// ---- 3. x-mcp-header (Streamable HTTP, modern era) ------------------------------------------------

// Mcp-Param-* headers exist on Streamable HTTP only.
TEST_P(V2HttpServer, RegionArgumentTravelsAsMcpParamHeader) {
    connect();
    CallToolResult plain = call("regional_lookup", object_with("region", "eu-west-1"));
    EXPECT_FALSE(plain.is_error) << to_json(plain.raw);
    EXPECT_EQ(member_string(plain.structured(), "region"), "eu-west-1");
    EXPECT_EQ(member_string(plain.structured(), "header"), "eu-west-1") << to_json(plain.raw);

    // Not a plain header value (leading space, non-ASCII): sent as the Base64 sentinel, which the
    // SDK decodes and compares with the argument before the tool runs (a mismatch is an error).
    const std::string awkward = " Zürich-\xe6\x9d\xb1\xe4\xba\xac";
    CallToolResult encoded = call("regional_lookup", object_with("region", awkward));
    EXPECT_FALSE(encoded.is_error) << to_json(encoded.raw);
    EXPECT_EQ(member_string(encoded.structured(), "region"), awkward);
    EXPECT_EQ(member_string(encoded.structured(), "header"), "=?base64?" + base64(awkward) + "?=") << to_json(encoded.raw);
}

// ---- 4. restart mid-use ---------------------------------------------------------------------------

TEST_P(V2HttpServer, RestartedServerNeedsNoSessionRecovery) {
    auto session = connect();
    ASSERT_EQ(session->era(), "modern");
    ASSERT_EQ(call("echo", object_with("text", "before")).text(), "before");
    peer_.stop();
    start_http(port_);
    CallToolResult r;
    ASSERT_NO_THROW(r = call("echo", object_with("text", "after"))) << logs.dump();
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "after");
    EXPECT_TRUE(std::holds_alternative<state::Connected>(host->state(kServer)));
    EXPECT_EQ(host->session(kServer)->era(), "modern");
}

TEST_P(V2StdioServer, KilledServerIsReconnected) {
    options.reconnect = HostOptions::Reconnect{5, 100ms, 400ms, 2s};
    std::atomic<int> connects{0};
    options.on_state_change = [&](const std::string&, const ConnectionState& s) {
        if (std::holds_alternative<state::Connected>(s)) ++connects;
    };
    connect();
    ASSERT_EQ(call("echo", object_with("text", "before")).text(), "before");
    const pid_t first = stdio_server_pid();
    ASSERT_GT(first, 0);
    ASSERT_EQ(connects.load(), 1);
    ASSERT_EQ(::kill(first, SIGKILL), 0);
    ASSERT_TRUE(wait_until([&] { return connects.load() >= 2; }, 10s)) << logs.dump();
    EXPECT_NE(stdio_server_pid(), first);
    auto session = host->session(kServer);
    ASSERT_TRUE(session);
    EXPECT_EQ(session->era(), "modern");
    CallToolResult r;
    ASSERT_NO_THROW(r = call("echo", object_with("text", "after"))) << logs.dump();
    EXPECT_EQ(r.text(), "after");
}

// ---- 5. progress and cancellation ------------------------------------------------------------------

TEST_P(V2Server, ProgressArrivesThroughOnProgress) {
    connect();
    std::mutex m;
    std::vector<Progress> seen;
    RequestOptions ro;
    ro.on_progress = [&](const Progress& p) {
        std::lock_guard lock(m);
        seen.push_back(p);
    };
    CallToolResult r = call("slow", slow_args(3, 50), ro);
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "done");
    std::lock_guard lock(m);
    ASSERT_EQ(seen.size(), 3u);
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_DOUBLE_EQ(seen[i].progress, static_cast<double>(i + 1));
        EXPECT_EQ(seen[i].total, std::optional<double>(3));
        EXPECT_EQ(seen[i].message, "step " + std::to_string(i + 1));
    }
}

Json tool_call_params(const char* name, Json args) {
    Json p(rapidjson::kObjectType);
    p.AddMember("name", JsonValue(name, p.GetAllocator()), p.GetAllocator());
    p.AddMember("arguments", JsonValue(args, p.GetAllocator()), p.GetAllocator());
    return p;
}

TEST_P(V2Server, CancelledSlowCallIsCountedByTheServer) {
    auto session = connect();
    const int before = cancellations();
    std::atomic<int> progress{0};
    RequestOptions ro;
    ro.on_progress = [&](const Progress&) { ++progress; };
    PendingRequest pending = session->request("tools/call", tool_call_params("slow", slow_args(50, 100)), ro);
    // Cancel once the server is provably running the tool (it sent progress).
    ASSERT_TRUE(wait_until([&] { return progress.load() >= 1; }, 5s)) << logs.dump();
    pending.cancel();
    try {
        pending.get();
        ADD_FAILURE() << "a cancelled request must not complete normally";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled) << e.what();
    }
    EXPECT_TRUE(cancellation_counted(before, 4s)) << "the server never saw the cancellation\n" << logs.dump();
}

TEST_P(V2Server, TimedOutSlowCallIsCancelledAtTheServer) {
    connect();
    const int before = cancellations();
    RequestOptions ro;
    ro.timeout = 400ms;
    try {
        call("slow", slow_args(50, 100), ro);
        ADD_FAILURE() << "the slow call should have timed out";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Timeout) << e.what();
    }
    EXPECT_TRUE(cancellation_counted(before, 4s)) << "the server never saw the cancellation\n" << logs.dump();
}

constexpr Variant kStdioModernOnly{Wire::Stdio, Legacy::Reject};
constexpr Variant kStdioDual{Wire::Stdio, Legacy::Default};
constexpr Variant kHttpModernOnly{Wire::Http, Legacy::Reject};
constexpr Variant kHttpDual{Wire::Http, Legacy::Default};

INSTANTIATE_TEST_SUITE_P(Variants, V2Server, ::testing::Values(kStdioModernOnly, kStdioDual, kHttpModernOnly, kHttpDual),
                         variant_name);
INSTANTIATE_TEST_SUITE_P(Variants, V2DualServer, ::testing::Values(kStdioDual, kHttpDual), variant_name);
INSTANTIATE_TEST_SUITE_P(Variants, V2ModernOnlyServer, ::testing::Values(kStdioModernOnly, kHttpModernOnly), variant_name);
INSTANTIATE_TEST_SUITE_P(Variants, V2DualStdioServer, ::testing::Values(kStdioDual), variant_name);
INSTANTIATE_TEST_SUITE_P(Variants, V2HttpServer, ::testing::Values(kHttpModernOnly, kHttpDual), variant_name);
INSTANTIATE_TEST_SUITE_P(Variants, V2StdioServer, ::testing::Values(kStdioModernOnly, kStdioDual), variant_name);

}  // namespace
}  // namespace mcph::test
