#include "connection/reachability.hpp"
#include "test_helpers.hpp"

#include <mcph/error.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::connection::check_reachable;
using std::chrono::milliseconds;
using tcp = boost::asio::ip::tcp;

using host_test::contains;

// A port where nobody listens: bound and held until the process ends, never listening, so a
// connection is refused and no other socket (a listener of a test running beside) can take it.
unsigned short closed_port() {
    static boost::asio::io_context io;  // before `held`: destroyed after the sockets that use it
    static std::vector<tcp::socket> held;
    tcp::socket s(io, tcp::v4());
    s.bind(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    const unsigned short port = s.local_endpoint().port();
    held.push_back(std::move(s));
    return port;
}

TEST(Reachability, ListeningPortIsReachable) {
    boost::asio::io_context io;
    tcp::acceptor a(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    std::string port = std::to_string(a.local_endpoint().port());
    EXPECT_EQ(check_reachable("http://127.0.0.1:" + port + "/mcp", milliseconds(2000)), std::nullopt);
    EXPECT_EQ(check_reachable("ws://127.0.0.1:" + port, milliseconds(2000)), std::nullopt);
    // "localhost" may resolve to ::1 first, where nobody listens: the next address must be tried.
    EXPECT_EQ(check_reachable("https://localhost:" + port + "/x?y=1", milliseconds(2000)), std::nullopt);
}

TEST(Reachability, ClosedPortIsRefusedAndNamed) {
    std::string port = std::to_string(closed_port());
    auto why = check_reachable("http://127.0.0.1:" + port + "/", milliseconds(2000));
    ASSERT_TRUE(why.has_value());
    EXPECT_TRUE(contains(*why, "TCP connect to 127.0.0.1:" + port + " failed")) << *why;
    EXPECT_TRUE(contains(*why, "connection refused")) << *why;
}

TEST(Reachability, Ipv6LiteralKeepsItsBracketsInTheMessage) {
    std::string port = std::to_string(closed_port());
    auto why = check_reachable("http://[::1]:" + port + "/", milliseconds(2000));
    ASSERT_TRUE(why.has_value());
    // Refused, or unreachable where the sandbox has no IPv6: either way the TCP step, named right.
    EXPECT_TRUE(contains(*why, "TCP connect to [::1]:" + port + " failed")) << *why;
}

// A listener with a backlog of 0 that never accepts: once a probe or two sit in its queue, the
// kernel drops further SYNs.
struct FullQueueListener {
    boost::asio::io_context io;
    tcp::acceptor acceptor{io};
    std::string port;
    FullQueueListener() {
        acceptor.open(tcp::v4());
        acceptor.bind(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
        acceptor.listen(0);
        port = std::to_string(acceptor.local_endpoint().port());
    }
};

// A listener whose accept queue is full drops new SYNs on Linux, so the connect hangs: the deadline,
// not the kernel, must end it, and the message must name the TCP step. Each probe that got through
// stays in the queue (it is never accepted), so a few probes fill it.
TEST(Reachability, SilentPortTimesOutAtTheTcpStep) {
    FullQueueListener listener;
    const std::string& port = listener.port;
    const milliseconds timeout(300);
    for (int i = 0; i < 8; ++i) {
        auto start = std::chrono::steady_clock::now();
        auto why = check_reachable("http://127.0.0.1:" + port + "/", timeout);
        auto took = std::chrono::steady_clock::now() - start;
        if (!why) continue;  // still room in the queue
        EXPECT_EQ(*why, "TCP connect to 127.0.0.1:" + port + " timed out after 300 ms");
        EXPECT_LT(took, timeout + milliseconds(300));
        return;
    }
    GTEST_SKIP() << "this kernel never dropped a SYN for a full accept queue";
}

// A probe started late into an attempt (ReachabilityWatch) spends only what is left of the budget,
// and its time-out still names the whole budget: the attempt ends when a first-thing check would.
TEST(Reachability, ALateProbeEndsAtTheAttemptsDeadlineAndNamesTheWholeBudget) {
    FullQueueListener listener;
    const std::string& port = listener.port;
    const milliseconds timeout(600), spent(400);
    for (int i = 0; i < 8; ++i) {
        auto start = std::chrono::steady_clock::now();
        auto why = mcph::connection::check_reachable("http://127.0.0.1:" + port + "/", timeout, spent);
        auto took = std::chrono::steady_clock::now() - start;
        if (!why) continue;  // still room in the queue
        EXPECT_EQ(*why, "TCP connect to 127.0.0.1:" + port + " timed out after 600 ms");
        EXPECT_GE(took, milliseconds(190));
        EXPECT_LT(took, timeout - spent + milliseconds(250));  // what was left, not the whole 600 ms
        return;
    }
    GTEST_SKIP() << "this kernel never dropped a SYN for a full accept queue";
}

TEST(Reachability, UnresolvableHostIsADnsFailureWithinTheTimeout) {
    const milliseconds timeout(1500);
    auto start = std::chrono::steady_clock::now();
    auto why = check_reachable("http://nonexistent.invalid/", timeout);
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(why.has_value());
    EXPECT_TRUE(contains(*why, "DNS lookup of 'nonexistent.invalid'")) << *why;
    EXPECT_LT(took, timeout + milliseconds(500)) << *why;
}

TEST(Reachability, BadUrlsAreNamedAsSuch) {
    for (const char* url : {"not a url", "", "ftp://x", "http://", "http://:80/", "http://h:99999/", "http://h:0/",
                            "file:///etc/passwd"}) {
        auto why = check_reachable(url, milliseconds(500));
        ASSERT_TRUE(why.has_value()) << url;
        EXPECT_EQ(why->rfind("not a valid URL: '" + std::string(url) + "'", 0), 0u) << *why;
    }
    EXPECT_TRUE(contains(*check_reachable("ftp://x", milliseconds(500)), "scheme 'ftp'"));
}

TEST(Reachability, NonPositiveTimeoutIsAUsageError) {
    try {
        check_reachable("http://127.0.0.1/", milliseconds(0));
        ADD_FAILURE() << "accepted";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
    }
}

}  // namespace
