// Attacks on the legacy SSE transport through the real host (issue #10 item 6): a server that
// opens the event stream and never sends the `endpoint` event used to hold the connect for
// connectTimeoutMs + 5 s (15 s with `--connect-timeout 2s`); the whole connect is now bounded by
// connectTimeoutMs.
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

namespace mcph::test {
namespace {

using namespace std::chrono_literals;

bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

// Answers every request with the head of an event stream, then sends nothing more (keeping each
// connection open until destroyed).
class SilentSseServer {
public:
    SilentSseServer() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 16) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            return;
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~SilentSseServer() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
        for (int c : clients_) ::close(c);
        if (fd_ >= 0) ::close(fd_);
    }
    int port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/sse"; }
    int streams() const { return streams_.load(); }

private:
    void serve() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) continue;
            clients_.push_back(client);
            char buf[4096];
            pollfd c{client, POLLIN, 0};
            if (::poll(&c, 1, 2000) <= 0 || ::recv(client, buf, sizeof buf, 0) <= 0) continue;
            const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                                     ": open, but no endpoint event will follow\n\n";
            (void)!::send(client, head.data(), head.size(), MSG_NOSIGNAL);
            ++streams_;
        }
    }

    int fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> streams_{0};
    std::vector<int> clients_;
    std::thread thread_;
};

TEST(TransportSseAttack, StreamWithoutEndpointEventIsCutAtConnectTimeout) {
    SilentSseServer server;
    ASSERT_NE(server.port(), 0);
    LogCapture logs;
    Host host(test_options(logs));
    ASSERT_TRUE(has_transport_plugin(host, "sse"));
    host.add_server("silent", remote_config("sse", server.url(), R"({"connectTimeoutMs":1500})"));
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    try {
        host.connect("silent");
        ADD_FAILURE() << "connected without an endpoint event";
    } catch (const Error& e) {
        error = e.what();
    }
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    EXPECT_GE(server.streams(), 1);
    EXPECT_LT(took, 4000ms) << error;
    EXPECT_TRUE(contains(error, "no endpoint event")) << error;
    EXPECT_TRUE(contains(error, "(connectTimeoutMs)")) << error;
}

}  // namespace
}  // namespace mcph::test
