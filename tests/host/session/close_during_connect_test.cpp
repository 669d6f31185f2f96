// SessionCore::close() from another thread while connect() is in progress (a reachability probe
// closing a session that is still connecting): the connect ends in a clear Connection error, the
// session is never marked connected after the close, and nothing races (this file runs under TSan
// in CI: scripts/test.sh).
#include "session/session_core.hpp"
#include "transport/in_process_transport.hpp"

#include <mcph/in_process_server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace mcph::detail {
namespace {

using namespace std::chrono_literals;

// One event a test waits for, with a bound so a broken build fails instead of hanging.
class Latch {
public:
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        cv_.notify_all();
    }
    bool wait(std::chrono::milliseconds bound = 5s) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, bound, [this] { return open_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

// Says when initialize arrives; answers it only when `answer` is set (else the handshake stays in
// progress).
class SilentServer : public InProcessServer {
public:
    Latch initialize_arrived;
    std::atomic<int> messages{0};
    std::atomic<bool> answer{false};

    void on_client_message(std::string_view message, const Reply& to_client) override {
        ++messages;
        if (message.find("\"initialize\"") == std::string_view::npos) return;
        initialize_arrived.open();
        if (answer)
            to_client(R"({"jsonrpc":"2.0","id":)" + to_json(parse_json(message)["id"]) +
                      R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}})");
    }
};

class CloseDuringConnect : public ::testing::Test {
protected:
    ~CloseDuringConnect() override { runtime_->stop(); }

    // A session pinned to the legacy era (initialize first, no server/discover probe), whose
    // transport factory first runs `before_transport`.
    std::shared_ptr<SessionCore> make_session(std::function<void()> before_transport = {}) {
        SessionSettings settings;
        settings.server_name = "s";
        settings.transport_type = "sdk";
        settings.config_json = R"({"protocolVersion":"2025-11-25"})";
        settings.connect_timeout = 10s;  // far beyond what any of these tests waits
        settings.request_timeout = 10s;
        auto server = server_;
        return std::make_shared<SessionCore>(
            std::move(settings),
            [server, before = std::move(before_transport)](transport::TransportListener* listener)
                -> std::unique_ptr<transport::Transport> {
                if (before) before();
                return std::make_unique<transport::InProcessTransport>(server, listener);
            },
            std::make_shared<plugins::HostServices>(plugins::HostServiceBindings{}), runtime_);
    }

    // connect() on a thread of its own; the future holds its outcome.
    static std::future<void> connect_async(const std::shared_ptr<SessionCore>& session) {
        return std::async(std::launch::async, [session] { session->connect(); });
    }

    static void expect_closed_error(std::future<void>& connecting) {
        ASSERT_EQ(connecting.wait_for(5s), std::future_status::ready) << "connect() did not end after close()";
        try {
            connecting.get();
            FAIL() << "connect() succeeded on a closed session";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
            EXPECT_NE(std::string(e.what()).find("closed"), std::string::npos) << e.what();
        }
    }

    std::shared_ptr<runtime::Runtime> runtime_ = std::make_shared<runtime::Runtime>();
    std::shared_ptr<SilentServer> server_ = std::make_shared<SilentServer>();
};

TEST_F(CloseDuringConnect, ACloseDuringTheHandshakeEndsTheConnectWithAConnectionError) {
    auto session = make_session();
    auto connecting = connect_async(session);
    ASSERT_TRUE(server_->initialize_arrived.wait()) << "the handshake never began";
    std::thread closer([&] { session->close(); });
    closer.join();
    expect_closed_error(connecting);
    EXPECT_FALSE(session->connected());
}

// The window the old code lost: close() before the transport exists left nothing to close, and
// establish() then connected anyway, leaving a closed session marked connected.
TEST_F(CloseDuringConnect, ACloseBeforeTheTransportExistsIsNotForgotten) {
    Latch in_factory, closed;
    auto session = make_session([&] {
        in_factory.open();
        closed.wait();
    });
    auto connecting = connect_async(session);
    ASSERT_TRUE(in_factory.wait());
    std::thread closer([&] {
        session->close();
        closed.open();
    });
    closer.join();
    expect_closed_error(connecting);
    EXPECT_FALSE(session->connected());
    EXPECT_EQ(server_->messages.load(), 0) << "a closed session sent its handshake";
}

// The server answers at once, so close() races the end of the handshake and the marking of the
// session as connected. Whatever the interleaving, the connect either failed or finished before
// the close, and the session ends closed (never connected after its close).
TEST_F(CloseDuringConnect, ACloseRacingTheEndOfTheHandshakeNeverLeavesTheSessionConnected) {
    int failed = 0;
    for (int i = 0; i < 20; ++i) {
        auto server = std::make_shared<SilentServer>();
        server->answer = true;
        server_ = server;  // a fresh server (and latch) each round
        auto session = make_session();
        auto connecting = connect_async(session);
        ASSERT_TRUE(server->initialize_arrived.wait()) << "round " << i;
        std::thread closer([&] { session->close(); });
        closer.join();
        ASSERT_EQ(connecting.wait_for(5s), std::future_status::ready) << "round " << i;
        try {
            connecting.get();
        } catch (const Error& e) {
            ++failed;
            EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
        }
        EXPECT_FALSE(session->connected()) << "round " << i << ": a closed session is marked connected";
    }
    RecordProperty("connects_that_failed", failed);
}

}  // namespace
}  // namespace mcph::detail
