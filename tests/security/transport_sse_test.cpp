// Attacks on the legacy SSE transport through the real host (issue #10 item 6): a server that
// opens the event stream and never sends the `endpoint` event used to hold the connect for
// connectTimeoutMs + 5 s (15 s with `--connect-timeout 2s`); the whole connect is now bounded by
// connectTimeoutMs.
#include "loopback_listener.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>
#include "contains.hpp"

namespace mcph::test {
namespace {

using namespace std::chrono_literals;


// Answers every request with the head of an event stream, then sends nothing more (keeping each
// connection open until destroyed).
class SilentSseServer {
public:
    SilentSseServer() = default;
    ~SilentSseServer() {
        acceptor_.stop();  // before the connections it kept are closed
        for (int c : clients_) ::close(c);
    }
    int port() const { return acceptor_.port(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/sse"; }
    int streams() const { return streams_.load(); }

private:
    void serve(int client) {
        clients_.push_back(client);
        char buf[4096];
        pollfd c{client, POLLIN, 0};
        if (::poll(&c, 1, 2000) <= 0 || ::recv(client, buf, sizeof buf, 0) <= 0) return;
        const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                                 ": open, but no endpoint event will follow\n\n";
        (void)!::send(client, head.data(), head.size(), MSG_NOSIGNAL);
        ++streams_;
    }

    std::atomic<int> streams_{0};
    std::vector<int> clients_;
    LoopbackAcceptor acceptor_{[this](int client) { serve(client); }};  // last: its thread uses the above
};

TEST(TransportSseAttack, StreamWithoutEndpointEventIsCutAtConnectTimeout) {
    SilentSseServer server;
    ASSERT_NE(server.port(), 0);
    LogCapture logs;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string error =
        failed_connect(test_options(logs), "silent", remote_config("sse", server.url(), R"({"connectTimeoutMs":1500})")).what();
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    EXPECT_GE(server.streams(), 1);
    EXPECT_LT(took, 4000ms) << error;
    EXPECT_TRUE(contains(error, "no endpoint event")) << error;
    EXPECT_TRUE(contains(error, "(connectTimeoutMs)")) << error;
}

}  // namespace
}  // namespace mcph::test
