// Issue #12, "What it must show" item 3, over real sockets: mcph::Host with the real HTTP
// transport plugin, an auth plugin ("test-token", plugins/slow_token_auth.cpp) that gets its
// token from a scripted authorization server on loopback, and a scripted MCP server on loopback.
//  - The AS delays a refresh by 3 s while another request of the same server is in flight and its
//    stream is delivering: that other response arrives at once, not after the refresh.
//  - close() while an interactive sign-in waits for a redirect that never comes returns promptly.
#include "loopback_listener.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A one-shot event with its time.
class Event {
public:
    void set() {
        std::lock_guard lock(mutex_);
        if (set_) return;
        set_ = true;
        at_ = Clock::now();
        cv_.notify_all();
    }
    bool wait(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return set_; });
    }
    Clock::time_point at() {
        std::lock_guard lock(mutex_);
        return at_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool set_ = false;
    Clock::time_point at_{};
};

std::string http_response(int status, const std::string& type, const std::string& body, const std::string& extra = "") {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + type + "\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n" + extra + "Connection: close\r\n\r\n" + body;
}

std::string id_of(const std::string& body) {
    const size_t at = body.find("\"id\":");
    if (at == std::string::npos) return "";
    return body.substr(at + 5, body.find_first_of(",}", at + 5) - at - 5);
}

// A 2025-11-25 MCP server with two tools: "slow" answers on an SSE stream — a progress event at
// once, the result when `release_slow` is set — and "quick" wants token t2 (t1 gets a 401).
class McpServer {
public:
    Event slow_streaming;
    Event release_slow;
    std::atomic<int> quick_refused{0};

    int port() const { return server_.port(); }

private:
    void serve(int fd, const HttpRequest& request) {
        const std::string& body = request.body;
        auto rpc = [&](const std::string& result) {
            send_all(fd, http_response(200, "application/json",
                                       R"({"jsonrpc":"2.0","id":)" + id_of(body) + R"(,"result":)" + result + "}"));
        };
        if (request.method == "GET") return (void)send_all(fd, http_response(405, "text/plain", ""));
        if (body.find("\"method\":\"notifications/") != std::string::npos)
            return (void)send_all(fd, http_response(202, "text/plain", ""));
        if (body.find("\"method\":\"initialize\"") != std::string::npos)
            return rpc(R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}})");
        if (body.find("\"method\":\"tools/list\"") != std::string::npos)
            return rpc(R"({"tools":[{"name":"slow","inputSchema":{"type":"object"}},{"name":"quick","inputSchema":{"type":"object"}}]})");
        if (body.find("\"method\":\"tools/call\"") == std::string::npos) {
            return (void)send_all(fd, http_response(200, "application/json",
                                                    R"({"jsonrpc":"2.0","id":)" + id_of(body) +
                                                        R"(,"error":{"code":-32601,"message":"no such method"}})"));
        }
        if (body.find("\"name\":\"quick\"") != std::string::npos) {
            if (request.lower_head().find("\r\nauthorization: bearer t2") == std::string::npos) {
                ++quick_refused;
                return (void)send_all(fd, http_response(401, "text/plain", "", "WWW-Authenticate: Bearer error=\"invalid_token\"\r\n"));
            }
            return rpc(R"({"content":[{"type":"text","text":"quick done"}]})");
        }
        // slow: the stream is open and delivering; the result waits for the test's signal.
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
        send_all(fd, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n");
        slow_streaming.set();
        const bool released = release_slow.wait(10s);
        send_all(fd, "data: {\"jsonrpc\":\"2.0\",\"id\":" + id_of(body) +
                         ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + (released ? "slow done" : "slow timeout") +
                         "\"}]}}\n\n");
    }
    // One request per connection: every response says Connection: close (the slow stream ends so).
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::OneRequest,
                               [this](int fd, const HttpRequest& request) { serve(fd, request); }};
};

// The token endpoint: the first token (t1) at once; the next (the refresh, t2) after 3 s.
class TokenServer {
public:
    Event refresh_asked;
    Event refresh_answered;
    std::atomic<int> requests{0};
    std::chrono::milliseconds refresh_delay{3000};

    int port() const { return server_.port(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/token"; }

private:
    void serve(int fd) {
        if (requests.fetch_add(1) == 0) return (void)send_all(fd, http_response(200, "text/plain", "t1"));
        refresh_asked.set();
        std::this_thread::sleep_for(refresh_delay);
        refresh_answered.set();
        send_all(fd, http_response(200, "text/plain", "t2"));
    }
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::OneRequest,
                               [this](int fd, const HttpRequest&) { serve(fd); }};
};

class AuthOffTheIoThread : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
        ::setenv("no_proxy", "127.0.0.1,localhost", 1);
        ASSERT_NE(mcp.port(), 0);
        ASSERT_NE(as.port(), 0);
        options.plugin_dirs.push_back(MCPH_TEST_TOKEN_AUTH_PLUGIN_DIR);
    }
    std::string config(bool sign_in) const {
        return R"({"mcpServers":{"svc":{"type":"http","url":"http://127.0.0.1:)" + std::to_string(mcp.port()) +
               R"(/mcp","auth":{"backend":"test-token","tokenUrl":")" + as.url() + R"(","signIn":)" +
               (sign_in ? "true" : "false") + "}}}}";
    }

    McpServer mcp;
    TokenServer as;
    LogCapture logs;
    HostOptions options = test_options(logs);
};

TEST_F(AuthOffTheIoThread, ASlowRefreshDoesNotHoldUpAnotherRequestsStream) {
    Host host(options);
    host.add_config_json(config(false));
    host.connect("svc");
    // A: its stream is open and delivering when B starts.
    auto a = std::async(std::launch::async, [&] {
        CallToolResult r = host.call_tool("mcp__svc__slow", parse_json("{}"));
        return std::make_pair(r.text(), Clock::now());
    });
    ASSERT_TRUE(mcp.slow_streaming.wait(5s));
    // B: refused with t1, so the auth refreshes — and the AS takes 3 s.
    auto b = std::async(std::launch::async, [&] {
        CallToolResult r = host.call_tool("mcp__svc__quick", parse_json("{}"));
        return std::make_pair(r.text(), Clock::now());
    });
    ASSERT_TRUE(as.refresh_asked.wait(5s)) << "B's challenge never reached the token endpoint";
    mcp.release_slow.set();  // A's server sends its result now, mid-refresh
    ASSERT_EQ(a.wait_for(10s), std::future_status::ready);
    const auto [a_text, a_at] = a.get();
    EXPECT_EQ(a_text, "slow done");
    ASSERT_EQ(b.wait_for(10s), std::future_status::ready);
    const auto [b_text, b_at] = b.get();
    EXPECT_EQ(b_text, "quick done");
    ASSERT_TRUE(as.refresh_answered.wait(1s));
    // The ordering of real events: A's response came while the refresh was still running.
    EXPECT_LT(a_at, as.refresh_answered.at()) << "A's response waited for B's refresh";
    EXPECT_LT(a_at - mcp.release_slow.at(), 1s);
    EXPECT_GT(b_at, as.refresh_answered.at());
    EXPECT_EQ(mcp.quick_refused.load(), 1);
    EXPECT_EQ(as.requests.load(), 2);
}

TEST_F(AuthOffTheIoThread, CloseDuringAPendingSignInReturnsPromptly) {
    Event browser_opened;
    options.open_url = [&](const std::string&) {
        browser_opened.set();
        return true;  // "opened" — and the user never finishes signing in
    };
    auto host = std::make_unique<Host>(options);
    host->add_config_json(config(true));
    host->connect("svc");
    auto call = std::async(std::launch::async, [&] {
        try {
            host->call_tool("mcp__svc__quick", parse_json("{}"));
            return std::string("answered");
        } catch (const Error& e) {
            return std::string(e.what());
        }
    });
    ASSERT_TRUE(browser_opened.wait(5s)) << "the challenge did not start a sign-in";
    const auto t0 = Clock::now();
    host->close();
    const auto closed_in = Clock::now() - t0;
    EXPECT_LT(closed_in, 1s) << std::chrono::duration_cast<std::chrono::milliseconds>(closed_in).count() << " ms";
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    EXPECT_NE(call.get(), "answered");
    const auto t1 = Clock::now();
    host.reset();
    EXPECT_LT(Clock::now() - t1, 1s) << "destroying the host waited for the sign-in";
}

}  // namespace
}  // namespace mcph::test
