// Attacks on the HTTP transports through the real host (issue #9 item 3, issue #10 item 7): a
// hostile Streamable HTTP server on a raw loopback socket answers `initialize` with JSON nested
// 100,000 deep (as a JSON body and as an SSE event), or with an SSE `id:` far over
// maxMessageBytes. Each connect must end in a clear error naming the bound — no crash, no stack
// overflow, memory within 2 × maxMessageBytes plus a small constant.
#include "loopback_listener.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include "contains.hpp"

namespace mcph::test {
namespace {

using namespace std::chrono_literals;


// One connection at a time: reads the request head (and a Content-Length body), then hands the
// socket to the script for POSTs; any other method gets 405 (no GET stream, no DELETE).
class HostileHttpServer {
public:
    using Script = std::function<void(int fd)>;

    explicit HostileHttpServer(Script post) : post_(std::move(post)) {}
    int port() const { return acceptor_.port(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/mcp"; }
    int posts() const { return posts_.load(); }

private:
    void serve(int client) {
        std::string pending;
        const std::optional<HttpRequest> request =
            read_http_request(client, pending, std::chrono::steady_clock::now() + 2s);
        if (request && request->is_post()) {
            ++posts_;
            post_(client);
        } else if (request) {
            send_all(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
        ::shutdown(client, SHUT_RDWR);
        ::close(client);
    }

    Script post_;
    std::atomic<int> posts_{0};
    LoopbackAcceptor acceptor_{[this](int client) { serve(client); }};  // last: its thread uses the above
};

// ASan's quarantine keeps freed chunks resident, TSan its shadow memory: an RSS bound means nothing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kRssIsMeaningful = false;
#else
constexpr bool kRssIsMeaningful = true;
#endif

// The high-water mark of this process's RSS since reset_peak() (VmHWM after clear_refs 5): a
// spike freed again before the end still counts.
bool reset_peak() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    return static_cast<bool>(out.flush());
}
long peak_kib() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

std::string deep(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

class TransportHttpAttack : public ::testing::Test {
protected:
    // Connects "hostile" at `url`; returns the error text (fails the test if it connected).
    std::string connect_error(const std::string& url, std::string_view extra = "{}") {
        return failed_connect(options, "hostile", remote_config("http", url, extra)).what();
    }
    LogCapture logs;
    HostOptions options = test_options(logs);
};

TEST_F(TransportHttpAttack, InitializeAnsweredWith100000DeepJsonIsAClearError) {
    HostileHttpServer server([](int fd) {
        std::string body = deep(100000);
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                            std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    });
    ASSERT_NE(server.port(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    std::string error = connect_error(server.url());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
    EXPECT_GE(server.posts(), 1);
    EXPECT_TRUE(contains(error, "nested deeper than 128")) << error;
}

TEST_F(TransportHttpAttack, InitializeAnsweredWith100000DeepSseEventIsAClearError) {
    HostileHttpServer server([](int fd) {
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                                        "data: " + deep(100000) + "\n\n");
    });
    ASSERT_NE(server.port(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    std::string error = connect_error(server.url());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
    EXPECT_TRUE(contains(error, "ended before the response")) << error;
    EXPECT_TRUE(contains(error, "nested deeper than 128")) << error;
}

TEST_F(TransportHttpAttack, HugeSseIdStaysWithinTheMemoryBound) {
    constexpr long kLimit = 1 << 20;
    HostileHttpServer server([](int fd) {
        if (!send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close"
                                             "\r\n\r\nid: "))
            return;
        const std::string chunk(64 << 10, '7');
        for (int i = 0; i < 1600 && send_all(fd, chunk); ++i) {  // up to 100 MiB
        }
    });
    ASSERT_NE(server.port(), 0);
    ASSERT_TRUE(reset_peak());
    long before = rss_kib();
    std::string error = connect_error(server.url(), R"({"maxMessageBytes":1048576})");
    long growth = peak_kib() - before;
    EXPECT_TRUE(contains(error, "larger than maxMessageBytes (1048576 bytes)")) << error;
    if (kRssIsMeaningful) {
        EXPECT_LT(growth, 2 * kLimit / 1024 + 16 * 1024) << "peak RSS growth in KiB";
    }
}

}  // namespace
}  // namespace mcph::test
