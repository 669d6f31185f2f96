// mcph::Host against remote servers over real loopback HTTP/WebSocket: examples/hello-server's own
// Streamable HTTP endpoint (tools, resources, prompts, session expiry after a server restart), and
// the failure paths of remote connects (refused connection, failing headersHelper) plus a
// headersHelper whose headers must reach the server.
#include "loopback_listener.hpp"
#include "peer_process.hpp"
#include "test_support.hpp"
#include "../plugins/resource_probe.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <iostream>
#include <mutex>
#include <thread>
#include "contains.hpp"

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;


std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// ---- hello-server --http ----------------------------------------------------------------------------

class HelloServerHttp : public ::testing::Test {
protected:
    void SetUp() override {
        if (hello_server_path().empty())
            GTEST_SKIP() << "the hello-server target does not exist in this build (examples/hello-server)";
        ASSERT_TRUE(fs::exists(hello_server_path())) << hello_server_path();
        std::string error;
        port_ = start_listening_peer(
            peer_, [&](int port) { return argv(port); }, [](int) { return std::map<std::string, std::string>{}; }, log_,
            10s, error);
        ASSERT_NE(port_, 0) << error;
    }

    void TearDown() override {
        host_.reset();
        peer_.stop();
        if (HasFailure()) std::cout << "hello-server log:\n" << read_file(log_).substr(0, 20000) << "\n" << logs.dump();
        std::error_code ec;
        fs::remove(log_, ec);
    }

    std::vector<std::string> argv(int port) const {
        std::vector<std::string> args{hello_server_path().string(), "--http", "--port", std::to_string(port),
                                      "--notes", notes_.path().string()};
        if (get_stream_) args.insert(args.end(), {"--get-stream", "--verbose"});  // verbose: the stream's open and close
        return args;
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

    // hello-server speaks both eras; `extra` may pin one (e.g. {"protocolVersion":"2025-11-25"}).
    std::shared_ptr<ClientSession> connect(std::string_view extra = "{}") {
        host_ = std::make_unique<Host>(options);
        EXPECT_TRUE(has_transport_plugin(*host_, "http"));
        host_->add_server("hello", remote_config("http", url(), extra));
        return host_->connect("hello");
    }

    // Stops hello-server and starts it again on the same port.
    void restart_peer() {
        peer_.stop();
        // Same port again; a few tries, as the port may be briefly unavailable.
        std::string error;
        bool restarted = false;
        for (int attempt = 0; attempt < 20 && !restarted; ++attempt) {
            ASSERT_TRUE(peer_.start(argv(port_), {}, log_, error)) << error;
            const auto deadline = std::chrono::steady_clock::now() + 5s;
            while (std::chrono::steady_clock::now() < deadline && peer_.running() && !restarted)
                restarted = wait_for_port(port_, 50ms);
            if (!restarted) {
                peer_.stop();
                std::this_thread::sleep_for(100ms);
            }
        }
        ASSERT_TRUE(restarted) << "hello-server did not come back on port " << port_ << "\n" << read_file(log_);
    }

    static void expect_sum(const CallToolResult& r, double sum) {
        EXPECT_FALSE(r.is_error) << to_json(r.raw);
        const JsonValue* structured = r.structured();
        ASSERT_NE(structured, nullptr) << to_json(r.raw);
        ASSERT_TRUE(structured->IsObject() && structured->HasMember("sum") && (*structured)["sum"].IsNumber())
            << to_json(*structured);
        EXPECT_DOUBLE_EQ((*structured)["sum"].GetDouble(), sum);
    }

    bool get_stream_ = false;  // hello-server --get-stream: a session's GET is held open
    const std::string notes_text_ = "- remote notes\n- over http\n";
    TempFile notes_{"notes.txt", notes_text_};
    fs::path log_ = temp_path("hello-server.log");
    PeerProcess peer_;
    int port_ = 0;
    LogCapture logs;
    HostOptions options = test_options(logs);
    std::unique_ptr<Host> host_;
};

TEST_F(HelloServerHttp, AddReturnsTextAndStructuredContent) {
    connect();
    CallToolResult r = host_->call_tool("mcp__hello__add", parse_json(R"({"a":2,"b":3})"));
    EXPECT_EQ(r.text(), "5");
    expect_sum(r, 5.0);
    const auto status = host_->status();
    ASSERT_EQ(status.size(), 1u);
    EXPECT_EQ(status[0].type, "http");
    EXPECT_EQ(status[0].state, "connected");
}

TEST_F(HelloServerHttp, NotesResourceReadsTheNotesFile) {
    auto session = connect();
    bool listed = false;
    for (const Resource& r : session->cached_resources()) listed |= r.uri == "notes://today";
    EXPECT_TRUE(listed) << "notes://today not among the cached resources";
    Json read = session->read_resource("notes://today");
    ASSERT_TRUE(read.IsObject() && read.HasMember("contents") && read["contents"].IsArray() && !read["contents"].Empty())
        << to_json(read);
    const JsonValue& content = read["contents"][0];
    ASSERT_TRUE(content.HasMember("text") && content["text"].IsString()) << to_json(content);
    EXPECT_EQ(std::string(content["text"].GetString(), content["text"].GetStringLength()), notes_text_);
}

TEST_F(HelloServerHttp, ReviewCodePromptEmbedsTheCode) {
    auto session = connect();
    bool listed = false;
    for (const Prompt& p : session->cached_prompts()) listed |= p.name == "review-code";
    EXPECT_TRUE(listed);
    const std::string code = "fn main() { println!(\"remote\"); }";
    Json args(rapidjson::kObjectType);
    args.AddMember("code", JsonValue(code.c_str(), args.GetAllocator()), args.GetAllocator());
    Json prompt = session->get_prompt("review-code", args);
    ASSERT_TRUE(prompt.IsObject() && prompt.HasMember("messages") && prompt["messages"].IsArray() &&
                !prompt["messages"].Empty())
        << to_json(prompt);
    const JsonValue& text = prompt["messages"][0]["content"]["text"];
    ASSERT_TRUE(text.IsString()) << to_json(prompt);
    EXPECT_TRUE(contains(text.GetString(), code)) << to_json(prompt);
}

// A 2025-era session with a server that keeps the session's GET stream open (hello-server
// --get-stream, as servers with server-initiated messages do): the calls go out beside the held
// stream, on a connection of their own, and closing the host ends the stream at once -- the held
// GET neither delays a call nor the close.
class HelloServerHttpGetStream : public HelloServerHttp {
protected:
    HelloServerHttpGetStream() { get_stream_ = true; }
};

TEST_F(HelloServerHttpGetStream, CallsGoOutBesideTheHeldStreamAndCloseEndsItAtOnce) {
    auto session = connect(R"({"protocolVersion":"2025-11-25"})");
    ASSERT_EQ(session->era(), "legacy");
    for (int i = 0; i < 20; ++i)
        expect_sum(host_->call_tool("mcp__hello__add", parse_json(R"({"a":)" + std::to_string(i) + R"(,"b":1})")), i + 1.0);
    EXPECT_TRUE(contains(read_file(log_), "GET stream open")) << read_file(log_);
    EXPECT_FALSE(contains(read_file(log_), "GET stream closed")) << "the stream ended before the close";
    session.reset();
    const auto start = std::chrono::steady_clock::now();
    host_.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "the held stream delayed the close";
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!contains(read_file(log_), "GET stream closed by the client") && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(contains(read_file(log_), "GET stream closed by the client")) << read_file(log_);
    EXPECT_EQ(mcph_test::connections_to(static_cast<unsigned short>(port_)), 0u);
}

// The server restarts on the same port and forgets every session: the next request with the old
// Mcp-Session-Id gets 404, and the host must start a fresh session and retry the call once.
TEST_F(HelloServerHttp, ByDefaultTheModernEraIsUsedAndARestartNeedsNoRecovery) {
    auto session = connect();
    EXPECT_EQ(session->era(), "modern");
    EXPECT_EQ(session->protocol_version(), "2026-07-28");
    expect_sum(host_->call_tool("mcp__hello__add", parse_json(R"({"a":2,"b":3})")), 5.0);
    ASSERT_NO_FATAL_FAILURE(restart_peer());
    // Stateless: the restarted server serves the next call as it is, with no session to renew.
    expect_sum(host_->call_tool("mcp__hello__add", parse_json(R"({"a":20,"b":22})")), 42.0);
    EXPECT_FALSE(logs.contains(LogLevel::Info, "session expired")) << logs.dump();
    EXPECT_TRUE(session->connected());
}

TEST_F(HelloServerHttp, SessionExpiryAfterServerRestartIsRecovered) {
    auto session = connect(R"({"protocolVersion":"2025-11-25"})");  // sessions are a legacy-era thing
    EXPECT_EQ(session->era(), "legacy");
    expect_sum(host_->call_tool("mcp__hello__add", parse_json(R"({"a":2,"b":3})")), 5.0);
    ASSERT_NO_FATAL_FAILURE(restart_peer());

    const auto t0 = std::chrono::steady_clock::now();
    RequestOptions ro;
    ro.timeout = 15s;
    CallToolResult r = host_->call_tool("mcp__hello__add", parse_json(R"({"a":20,"b":22})"), ro);
    expect_sum(r, 42.0);
    EXPECT_LT(elapsed_ms(t0), 15000);
    EXPECT_TRUE(logs.contains(LogLevel::Info, "session expired")) << logs.dump();
    // The fresh session keeps working, for tools and for the other features.
    expect_sum(host_->call_tool("mcp__hello__add", parse_json(R"({"a":1,"b":1})"), ro), 2.0);
    Json read = session->read_resource("notes://today");
    EXPECT_TRUE(contains(to_json(read), "remote notes")) << to_json(read);
    EXPECT_TRUE(session->connected());
}

// ---- failure paths --------------------------------------------------------------------------------

class RemoteConnectRefused : public ::testing::TestWithParam<std::string> {};

TEST_P(RemoteConnectRefused, FailsWithAConnectionErrorNamingTheServer) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.connect_timeout = 10s;
    Host host(options);
    ASSERT_TRUE(has_transport_plugin(host, GetParam()));
    const int port = free_loopback_port();  // nothing listens there
    ASSERT_NE(port, 0);
    const std::string scheme = GetParam() == "ws" ? "ws" : "http";
    const std::string path = GetParam() == "sse" ? "/sse" : GetParam() == "ws" ? "/message" : "/mcp";
    host.add_server("closed-port", remote_config(GetParam(), scheme + "://127.0.0.1:" + std::to_string(port) + path));
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host.connect("closed-port");
        FAIL() << "connect to a closed port succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Connection) << to_string(e.kind()) << ": " << e.what();
        EXPECT_TRUE(contains(e.what(), "closed-port")) << e.what();
    }
    EXPECT_LT(elapsed_ms(t0), 10000);
    const auto status = host.status();
    ASSERT_EQ(status.size(), 1u);
    EXPECT_EQ(status[0].state, "failed");
}

INSTANTIATE_TEST_SUITE_P(Transports, RemoteConnectRefused, ::testing::Values("http", "sse", "ws"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// A minimal HTTP server on a loopback port: records each request's head and answers 500 (or
// whatever `response` is), so tests can see which headers a client sent.
class RecordingHttpServer {
public:
    RecordingHttpServer() = default;
    int port() const { return acceptor_.port(); }
    std::vector<std::string> requests() const {
        std::lock_guard lock(mutex_);
        return requests_;
    }

private:
    void serve(int client) {
        std::string pending;
        const std::optional<HttpRequest> request =
            read_http_request(client, pending, std::chrono::steady_clock::now() + 2s);
        const std::string head = request ? request->head : pending;
        if (head.empty()) {  // the host's reachability check: a TCP connect, no request
            ::close(client);
            return;
        }
        {
            std::lock_guard lock(mutex_);
            requests_.push_back(head.substr(0, head.find("\r\n\r\n")));
        }
        const std::string response =
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 8\r\nConnection: "
            "close\r\n\r\nrecorded";
        (void)send_all(client, response);
        ::shutdown(client, SHUT_RDWR);
        ::close(client);
    }

    mutable std::mutex mutex_;
    std::vector<std::string> requests_;
    LoopbackAcceptor acceptor_{[this](int client) { serve(client); }, 8};  // last: its thread uses the above
};

class HeadersHelper : public ::testing::Test {
protected:
    // Connects "helped" at `url` with `helper` as its headersHelper; returns the error, or fails.
    Error connect_error(const std::string& helper, const std::string& url) {
        Json config = remote_config("http", url);
        config.AddMember("headersHelper", JsonValue(helper.c_str(), config.GetAllocator()), config.GetAllocator());
        return failed_connect(options, "helped", config);
    }

    LogCapture logs;
    HostOptions options = test_options(logs);
};

TEST_F(HeadersHelper, FailingHelperFailsTheConnectWithoutLeakingItsOutput) {
    RecordingHttpServer server;  // must never be reached
    ASSERT_NE(server.port(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    Error e = connect_error("echo SECRET-TOKEN-123; echo SECRET-STDERR-456 >&2; exit 3",
                            "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp");
    EXPECT_LT(elapsed_ms(t0), 10000);
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(contains(e.what(), "helped")) << e.what();
    EXPECT_TRUE(contains(e.what(), "headersHelper")) << e.what();
    EXPECT_TRUE(contains(e.what(), "exited with status 3")) << e.what();
    EXPECT_FALSE(contains(e.what(), "SECRET")) << e.what();
    EXPECT_FALSE(logs.contains(LogLevel::Debug, "SECRET")) << logs.dump();
    EXPECT_TRUE(server.requests().empty()) << "the server was contacted despite the helper failing";
}

TEST_F(HeadersHelper, NonJsonOutputFailsTheConnectWithoutLeakingIt) {
    RecordingHttpServer server;
    ASSERT_NE(server.port(), 0);
    Error e = connect_error("echo 'Authorization: Bearer SECRET-TOKEN-789'",
                            "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp");
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(contains(e.what(), "helped")) << e.what();
    EXPECT_TRUE(contains(e.what(), "did not print a JSON object")) << e.what();
    EXPECT_FALSE(contains(e.what(), "SECRET")) << e.what();
    EXPECT_FALSE(contains(e.what(), "Bearer")) << e.what();
    EXPECT_FALSE(logs.contains(LogLevel::Debug, "SECRET")) << logs.dump();
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(HeadersHelper, HelperHeadersReachTheServer) {
    RecordingHttpServer server;
    ASSERT_NE(server.port(), 0);
    // The helper sees which server it is for.
    Error e = connect_error(R"(printf '{"X-Test":"1","X-Server":"%s"}' "$MCPH_SERVER_NAME")",
                            "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp");
    (void)e;  // the recording server answers 500: the connect fails, but only after sending the request
    const auto requests = server.requests();
    ASSERT_FALSE(requests.empty()) << "the server saw no request; error: " << e.what();
    const std::string first = lower(requests.front());
    EXPECT_TRUE(contains(first, "post /mcp")) << requests.front();
    EXPECT_TRUE(contains(first, "\r\nx-test: 1")) << requests.front();
    EXPECT_TRUE(contains(first, "\r\nx-server: helped")) << requests.front();
}

// Issue #4: the auth backend of one server is chosen by its config alone — the project's own
// OAuth plugin, or a third-party plugin loaded from another directory — with no rebuild.
class AuthBackendSwap : public ::testing::Test {
protected:
    // Connects "svc" at the recording server with `auth_fragment` merged into its config and
    // returns the first request head the server saw, plus the status view's auth backend.
    std::pair<std::string, std::string> first_request_with(const std::string& auth_fragment) {
        RecordingHttpServer server;
        EXPECT_NE(server.port(), 0);
        HostOptions o = options;
        o.plugin_dirs.push_back(MCPH_TEST_THIRD_PARTY_PLUGIN_DIR);
        Host host(o);
        std::string config = R"({"mcpServers":{"svc":{"type":"http","url":"http://127.0.0.1:)" +
                             std::to_string(server.port()) + R"(/mcp",)" + auth_fragment + "}}}";
        host.add_config_json(config);
        try {
            host.connect("svc");
        } catch (const Error&) {
            // the recording server answers 500: only the request it saw matters here
        }
        Json status = host.status_json();
        std::string backend;
        for (const auto& s : status["servers"].GetArray())
            if (s.HasMember("auth")) backend = s["auth"]["backend"].GetString();
        auto requests = server.requests();
        return {requests.empty() ? std::string() : lower(requests.front()), backend};
    }

    LogCapture logs;
    HostOptions options = test_options(logs);
};

TEST_F(AuthBackendSwap, ThirdPartyPluginFromAnotherDirectoryAddsItsHeaders) {
    auto [request, backend] = first_request_with(R"("auth":{"backend":"acme-static"})");
    EXPECT_EQ(backend, "acme-static");
    EXPECT_TRUE(contains(request, "\r\nauthorization: bearer acme-static-token")) << request;
}

TEST_F(AuthBackendSwap, SameServerWithTheOAuthBackendSendsNoTokenUntilChallenged) {
    Host probe(options);
    bool have_oauth = false;
    for (const auto& p : probe.plugins()) have_oauth = have_oauth || (p.loaded && p.auth_backend == "oauth");
    if (!have_oauth) GTEST_SKIP() << "the auth-oauth plugin is not built in this tree";
    auto [request, backend] = first_request_with(R"("oauth":{})");
    EXPECT_EQ(backend, "oauth");
    ASSERT_FALSE(request.empty());
    EXPECT_FALSE(contains(request, "acme-static-token")) << request;
    EXPECT_FALSE(contains(request, "\r\nauthorization:")) << request;
}

TEST_F(AuthBackendSwap, UnknownBackendIsAClearError) {
    Host host(options);
    host.add_config_json(R"({"mcpServers":{"svc":{"type":"http","url":"http://127.0.0.1:9/mcp","auth":{"backend":"nope"}}}})");
    try {
        host.connect("svc");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Plugin) << e.what();
        EXPECT_TRUE(contains(e.what(), "auth backend 'nope'")) << e.what();
    }
}

}  // namespace
}  // namespace mcph::test
