// The service thread of a quiet WebSocket connection retires to the plugin's idle watch
// (plugins/transport-ws/src/ws_idle.cpp) and a new one takes the connection over for a server
// message, a hang-up, a ping that is due, a send or close. Real loopback sockets (plain and TLS)
// against the scripted Beast server; the plugin's threads are told apart by their names
// (mcph-ws-loop, mcph-ws-idle).
#include "fake_server.hpp"
#include "harness.hpp"
#include "../resource_probe.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <thread>

namespace ws_test {
namespace {

using Clock = std::chrono::steady_clock;
using mcph_test::this_thread_name;  // ../resource_probe.hpp
using mcph_test::threads_named;
using mcph_test::wait_threads_named;

constexpr const char* kLoop = "mcph-ws-loop";
constexpr const char* kWatch = "mcph-ws-idle";

std::string request(int id) { return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})"; }
const std::string kLater = R"({"jsonrpc":"2.0","method":"notifications/later"})";

// The largest buffer the kernel gives a TCP socket for `which` ("tcp_wmem": the third of the three
// figures in /proc/sys/net/ipv4/<which>); 0 when unreadable.
size_t tcp_buffer_max(const std::string& which) {
    std::ifstream in("/proc/sys/net/ipv4/" + which);
    size_t low = 0, normal = 0, high = 0;
    return in >> low >> normal >> high ? high : 0;
}

// A flag the test raises and a server script waits for (bounded: a failed test never hangs).
class Signal {
public:
    void raise() { raised_.store(true); }
    bool wait(std::chrono::milliseconds bound = 10s) const {
        for (const auto deadline = Clock::now() + bound; Clock::now() < deadline; std::this_thread::sleep_for(2ms))
            if (raised_.load()) return true;
        return false;
    }

private:
    std::atomic<bool> raised_{false};
};

class WsIdleLoopTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
};

// A quiet connection's service thread ends and the watch holds the socket. The server's next
// message brings a thread back, which delivers it and retires again; sends to the retired
// transport go out and their answers come; close() still runs the close handshake (code 1000 at
// the server) and leaves no thread behind. One connection throughout.
TEST_F(WsIdleLoopTest, AQuietConnectionRetiresAndAServerMessageOrASendBringsTheServiceBack) {
    Signal push;
    FakeWsServer server([&](Session& s) {
        if (push.wait()) s.write(kLater);
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url(), R"("loopIdleMs":100,"pingIntervalMs":0)"));
    std::string delivered_on;
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m == kLater) delivered_on = this_thread_name();
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the service thread did not retire";
    EXPECT_EQ(threads_named(kWatch), 1u);

    push.raise();
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the message that came while the thread was retired was not delivered";
    EXPECT_EQ(delivered_on, kLoop);
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the revived service thread did not retire again";

    for (int id = 1; id <= 3; ++id) {
        ASSERT_EQ(t.send(request(id)), MCPH_OK) << t.error();
        ASSERT_TRUE(t.recorder.wait_messages(static_cast<size_t>(id) + 1)) << "no answer to request " << id;
        EXPECT_EQ(t.recorder.messages().back(), request(id));
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "after request " << id;
    }
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_EQ(t.recorder.closed_count(), 0) << "our own close is not reported";
    ASSERT_TRUE(server.wait_sessions_finished(1, 5s));
    EXPECT_EQ(server.close_codes().at(0), 1000) << "the close handshake ran on a revived thread";
    EXPECT_EQ(server.handshakes().size(), 1u) << "the connection stayed up throughout";
}

// The ping's time is handed to the watch: a retired connection still pings, and the pongs keep
// it (the server below answers pings while it reads). Once the server stops reading (no pongs),
// it is dropped with TIMEOUT while the thread is retired between pings — as with the thread there.
TEST_F(WsIdleLoopTest, PingsGoOutWhileRetiredAndASilentServerIsDropped) {
    const std::string stop = request(99);
    FakeWsServer server([&](Session& s) {
        while (auto m = s.read())
            if (*m == stop) break;
        s.idle(10s);  // no reads: pings go unanswered
    });
    Transport t(ws_config(server.url(), R"("loopIdleMs":100,"pingIntervalMs":300)"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the service thread did not retire between pings";
    EXPECT_FALSE(t.recorder.wait_closed(1200ms)) << "four pings answered while retired, yet: " << t.recorder.close_detail();
    ASSERT_EQ(t.send(stop), MCPH_OK) << t.error();
    // The thread retires between the pings that follow (each wakes it from the watch): without
    // the ping's time in the watch, nothing would ever find the server silent.
    ASSERT_TRUE(t.recorder.wait_closed(5s)) << "a server that answers no ping was never dropped";
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_EQ(t.recorder.close_category(), MCPH_FAILURE_TIMEOUT) << t.recorder.close_detail();
    EXPECT_NE(t.recorder.close_detail().find("ping timeout"), std::string::npos) << t.recorder.close_detail();
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// The server closes (1000) or hangs up while the thread is retired: the watch sees it, and the
// host is told how the connection ended, as it would be with the thread there.
TEST_F(WsIdleLoopTest, AServerCloseOrHangUpWhileRetiredIsReported) {
    for (const bool clean : {true, false}) {
        SCOPED_TRACE(clean ? "close frame 1000" : "TCP hang-up");
        Signal end;
        FakeWsServer server([&](Session& s) {
            end.wait();
            if (clean)
                s.close(1000, "bye");
            else
                s.drop();
        });
        Transport t(ws_config(server.url(), R"("loopIdleMs":100)"), /*typed=*/true);
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the service thread did not retire";
        end.raise();
        ASSERT_TRUE(t.recorder.wait_closed()) << "the end of the connection was not noticed";
        if (clean) {
            EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_CLEAN) << t.recorder.close_detail();
            EXPECT_NE(t.recorder.close_detail().find("1000 normal closure): bye"), std::string::npos)
                << t.recorder.close_detail();
        } else {
            EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
            EXPECT_EQ(t.recorder.close_category(), MCPH_FAILURE_RESET) << t.recorder.close_detail();
        }
        t.close();
        EXPECT_EQ(threads_named(kLoop), 0u);
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
    }
}

// A message larger than the socket buffers, to a server that does not read for a while: lws holds
// what the socket did not take, so the thread must not retire (the watch waits for input only,
// and none comes before the server has read everything). When the server reads again, the whole
// message arrives and the answer comes.
TEST_F(WsIdleLoopTest, AWriteTheServerDoesNotTakeYetKeepsTheThreadUntilItIsAllWritten) {
    Signal read_again;
    FakeWsServer server([&](Session& s) {
        read_again.wait();
        if (auto m = s.read()) s.write(std::to_string(m->size()));
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url(), R"("loopIdleMs":100,"pingIntervalMs":0)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the service thread did not retire";
    // More than the sockets can hold, so bytes are left waiting for the server: our send buffer
    // grows to the kernel's tcp_wmem maximum at most, and the server's receive buffer stays near its
    // start (it grows only as the application reads, and the server reads nothing yet).
    const size_t fill = std::max<size_t>(16u << 20, tcp_buffer_max("tcp_wmem") + (8u << 20));
    const std::string big = R"({"jsonrpc":"2.0","method":"big","params":{"x":")" + std::string(fill, 'x') + "\"}}";
    ASSERT_EQ(t.send(big), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 1)) << "the send did not bring the thread back";
    std::this_thread::sleep_for(500ms);  // five quiet spells with bytes waiting to be written
    EXPECT_EQ(threads_named(kLoop), 1u) << "the thread retired while the server had not taken the message";
    read_again.raise();
    ASSERT_TRUE(t.recorder.wait_messages(1, 20s)) << "the rest of the message never went out";
    EXPECT_EQ(t.recorder.messages().at(0), std::to_string(big.size()));
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the thread did not retire once all was written";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// loopIdleMs 0 keeps the service thread: next to a transport with 100 that retires (the proof
// that the quiet spell was long enough), the other's thread is still there and still answers.
TEST_F(WsIdleLoopTest, LoopIdleMsZeroKeepsTheServiceThread) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport stays(ws_config(server.url(), R"("loopIdleMs":0)"));
    ASSERT_EQ(stays.start(), MCPH_OK) << stays.error();
    FakeWsServer other([](Session& s) { s.echo_until_closed(); });
    Transport retires(ws_config(other.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(retires.start(), MCPH_OK) << retires.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 1)) << "the loopIdleMs 100 transport's thread did not retire";
    std::this_thread::sleep_for(300ms);  // three of its spells more: still the one
    EXPECT_EQ(threads_named(kLoop), 1u);
    ASSERT_EQ(stays.send(request(1)), MCPH_OK);
    EXPECT_TRUE(stays.recorder.wait_messages(1));
}

// wss://: the thread retires between TLS records too; what the server sends later is decrypted
// by the next thread, and a send goes out through the same TLS session.
TEST_F(WsIdleLoopTest, AQuietTlsConnectionRetiresAndComesBack) {
    TestCertificate cert;
    if (!cert.ok) GTEST_SKIP() << "the openssl CLI could not make a test certificate";
    FakeWsServer::Options tls;
    tls.cert_file = cert.cert_file;
    tls.key_file = cert.key_file;
    Signal push;
    FakeWsServer server(
        [&](Session& s) {
            if (push.wait()) {
                s.write(kLater);
                s.write(kLater);  // two records in a row: the second may be decrypted with the first
            }
            s.echo_until_closed();
        },
        tls);
    Transport t(ws_config("wss://localhost:" + std::to_string(server.port()) + "/mcp",
                          R"("loopIdleMs":100,"caFile":)" + json_string(cert.cert_file)));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the service thread did not retire";
    push.raise();
    ASSERT_TRUE(t.recorder.wait_messages(2)) << "what came over TLS while retired was not all delivered";
    ASSERT_TRUE(wait_threads_named(kLoop, 0));
    ASSERT_EQ(t.send(request(7)), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(3));
    EXPECT_EQ(t.recorder.messages().at(2), request(7));
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    ASSERT_TRUE(server.wait_sessions_finished(1, 5s));
    EXPECT_EQ(server.close_codes().at(0), 1000);
}

}  // namespace
}  // namespace ws_test
