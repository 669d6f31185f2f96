// Reachability diagnosed from the connect's own outcome (issue #16, host/src/connection/
// reachability_watch.hpp), through the real Host and transport plugins against loopback sockets:
// a server that answers sees one connection per request and no bare TCP probe before the
// handshake; a refused port, a name that does not resolve and a silent host (SYNs dropped) still
// end in a Connection error naming the step that failed — the silent one within the reachability
// bound (5 s), not the handshake's longer connect timeout.
#include "loopback_listener.hpp"
#include "peer_process.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <fcntl.h>

#include <mutex>
#include <vector>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;

bool has_text(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

// Answers every request with HTTP 500 and records, per accepted connection, whether a request
// arrived on it at all (a bare TCP connect closed at once, as the old check made, carries none).
class CountingServer {
public:
    int port() const { return acceptor_.port(); }
    std::pair<int, int> connections_and_bare() const {
        std::lock_guard lock(mutex_);
        return {connections_, bare_};
    }

private:
    void serve(int client) {
        std::string pending;
        const std::optional<HttpRequest> request =
            read_http_request(client, pending, std::chrono::steady_clock::now() + 2s);
        const std::string head = request ? request->head : pending;
        {
            std::lock_guard lock(mutex_);
            ++connections_;
            if (head.empty()) ++bare_;
        }
        const std::string response =
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno";
        if (!head.empty()) (void)send_all(client, response);
        ::shutdown(client, SHUT_RDWR);
        ::close(client);
    }

    mutable std::mutex mutex_;
    int connections_ = 0;
    int bare_ = 0;
    LoopbackAcceptor acceptor_{[this](int client) { serve(client); }, 8};  // last: its thread uses the above
};

HostOptions reach_options(const LogCapture& logs, std::chrono::milliseconds connect_timeout) {
    HostOptions options = test_options(logs);
    options.connect_timeout = connect_timeout;
    options.reachability_check = true;
    options.reconnect = HostOptions::Reconnect{};
    options.reconnect->max_attempts = 0;  // one attempt: the test reads its error
    return options;
}

TEST(ReachabilityConnect, AnAnsweringServerSeesNoProbeBeforeTheHandshake) {
    LogCapture logs;
    CountingServer server;
    ASSERT_NE(server.port(), 0);
    Error e = failed_connect(reach_options(logs, 5s), "answers",
                             remote_config("http", "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp"));
    EXPECT_EQ(e.kind(), ErrorKind::Remote) << e.what();  // the server's 500, not a reachability verdict
    EXPECT_FALSE(has_text(e.what(), "unreachable")) << e.what();
    ASSERT_TRUE(wait_until([&] { return server.connections_and_bare().first >= 1; }, 3s));
    const auto [connections, bare] = server.connections_and_bare();
    EXPECT_EQ(bare, 0) << connections << " connection(s), " << bare << " without a request";
}

class ReachabilityRefused : public ::testing::TestWithParam<std::string> {};

TEST_P(ReachabilityRefused, AClosedPortNamesTheTcpStep) {
    LogCapture logs;
    const int port = free_loopback_port();
    ASSERT_NE(port, 0);
    const std::string scheme = GetParam() == "ws" ? "ws" : "http";
    const std::string endpoint = "127.0.0.1:" + std::to_string(port);
    const auto t0 = std::chrono::steady_clock::now();
    Error e = failed_connect(reach_options(logs, 10s), "closed", remote_config(GetParam(), scheme + "://" + endpoint + "/mcp"));
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(has_text(e.what(), "server 'closed' is unreachable: TCP connect to " + endpoint + " failed")) << e.what();
    EXPECT_TRUE(has_text(e.what(), "connection refused")) << e.what();
    EXPECT_LT(elapsed_ms(t0), 5000);
}

INSTANTIATE_TEST_SUITE_P(Transports, ReachabilityRefused, ::testing::Values("http", "ws"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ReachabilityConnect, ANameThatDoesNotResolveNamesTheDnsStep) {
    LogCapture logs;
    const auto t0 = std::chrono::steady_clock::now();
    Error e = failed_connect(reach_options(logs, 10s), "nowhere", remote_config("http", "http://nonexistent.invalid:8080/mcp"));
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(has_text(e.what(), "server 'nowhere' is unreachable: DNS lookup of 'nonexistent.invalid'")) << e.what();
    EXPECT_LT(elapsed_ms(t0), 7000);  // the resolver's failure, or the 5 s reachability bound
}

// A listener whose accept queue is full drops new SYNs (Linux): the handshake's own connect would
// wait out its connect timeout (20 s here). The probe started beside it ends the attempt at the
// reachability bound, min(connect timeout, 5 s), naming the TCP step.
// Over every remote transport: http through the probe beside the connect (which aborts it); sse and
// ws, whose plugins block in start() for their handshake and cannot be aborted, through the check
// run first. Either way the bound is the same.
class ReachabilitySilent : public ::testing::TestWithParam<std::string> {};

TEST_P(ReachabilitySilent, ASilentHostEndsAtTheReachabilityBoundNotTheConnectTimeout) {
    int port = 0;
    const int listener = listen_on_loopback(port, 0);
    ASSERT_GE(listener, 0);
    // Fill the queue: connects that complete stay queued (never accepted); one that does not
    // complete within 200 ms means SYNs are now dropped.
    std::vector<int> fillers;
    bool silent = false;
    for (int i = 0; i < 8 && !silent; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        ASSERT_GE(fd, 0);
        fillers.push_back(fd);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        (void)!::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        pollfd p{fd, POLLOUT, 0};
        silent = ::poll(&p, 1, 200) == 0;
    }
    const auto cleanup = [&] {
        for (int fd : fillers) ::close(fd);
        ::close(listener);
    };
    if (!silent) {
        cleanup();
        GTEST_SKIP() << "this kernel never dropped a SYN for a full accept queue";
    }
    LogCapture logs;
    const std::string endpoint = "127.0.0.1:" + std::to_string(port);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string scheme = GetParam() == "ws" ? "ws" : "http";
    Error e = failed_connect(reach_options(logs, 20s), "silent", remote_config(GetParam(), scheme + "://" + endpoint + "/mcp"));
    const auto took = elapsed_ms(t0);
    cleanup();
    EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    EXPECT_TRUE(has_text(e.what(), "server 'silent' is unreachable: TCP connect to " + endpoint + " timed out after 5000 ms"))
        << e.what();
    EXPECT_GE(took, 4900) << e.what();
    EXPECT_LT(took, 6500) << e.what();  // today's bound (5 s) plus slack, far below the 20 s connect timeout
}

INSTANTIATE_TEST_SUITE_P(Transports, ReachabilitySilent, ::testing::Values("http", "sse", "ws"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace mcph::test
