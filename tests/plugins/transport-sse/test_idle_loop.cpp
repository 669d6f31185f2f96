// The loop thread of a quiet legacy SSE transport retires to the plugin's idle watch
// (plugins/transport-sse/src/sse_engine_idle.cpp) and comes back for a server event, a hang-up, a
// POST's timeout, a send or close. Real loopback sockets against the scripted server; the
// plugin's threads are told apart by their names (mcph-sse-loop, mcph-sse-idle).
#include "fake_sse_server.hpp"
#include "harness.hpp"
#include "../resource_probe.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace sse_test {
namespace {

using mcph_test::this_thread_name;  // ../resource_probe.hpp
using mcph_test::threads_named;
using mcph_test::wait_threads_named;

constexpr const char* kLoop = "mcph-sse-loop";
constexpr const char* kWatch = "mcph-sse-idle";

std::string list_request(int id) { return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/list"})"; }

class SseIdleLoopTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
};

// An open session with nothing to do: the loop thread ends and the watch holds the stream's
// socket. The server's next event wakes it: a loop thread delivers it and retires again; a send
// to the retired transport goes out and its answer comes; close() leaves no thread behind.
TEST_F(SseIdleLoopTest, AQuietSessionRetiresAndAnEventOrASendBringsTheLoopBack) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), R"("loopIdleMs":100)"));
    const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
    std::string delivered_on;
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m == later) delivered_on = this_thread_name();
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    EXPECT_EQ(threads_named(kWatch), 1u);

    server.push_message(later);
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the event that came while the loop thread was retired was not delivered";
    EXPECT_EQ(delivered_on, kLoop);
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the revived loop thread did not retire again";

    for (int id = 1; id <= 3; ++id) {
        ASSERT_EQ(t.send(list_request(id)), MCPH_OK) << t.error();
        ASSERT_TRUE(t.recorder.wait_messages(static_cast<size_t>(id) + 1)) << "no answer to request " << id;
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "after request " << id;
    }
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_EQ(server.requests("GET").size(), 1u) << "the stream was never reopened: it stayed up throughout";
}

// The server hangs up while the loop thread is retired: the watch sees it, and the host is told
// the stream ended, as it would be with the thread there.
TEST_F(SseIdleLoopTest, AHangUpWhileRetiredEndsTheSession) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), R"("loopIdleMs":100)"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    server.cut_stream();
    ASSERT_TRUE(t.recorder.wait_closed()) << "the hang-up was not noticed";
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_RESET) << t.recorder.close_detail();
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A POST's timeoutMs is libcurl's timer, handed to the watch: a server that never answers a POST
// still fails the request with TIMEOUT at timeoutMs while the loop thread is retired.
TEST_F(SseIdleLoopTest, APostTimeoutFiresWhileTheLoopThreadIsRetired) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_delay = 4000ms;
        s.echo = false;
    });
    Transport t(config(server.sse_url(), R"("loopIdleMs":100,"timeoutMs":1500)"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto sent = Clock::now();
    ASSERT_EQ(t.send(list_request(5)), MCPH_OK) << t.error();
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    ASSERT_TRUE(wait_threads_named(kLoop, 0, 1200ms)) << "the loop thread did not retire while the POST was out";
    ASSERT_TRUE(t.recorder.wait_request_failures(1, 10s));
    EXPECT_EQ(t.recorder.request_failures()[0].request_id, "5");
    EXPECT_EQ(t.recorder.request_failures()[0].category, MCPH_FAILURE_TIMEOUT);
    EXPECT_GE(Clock::now() - sent, 1400ms);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A host with hundreds of servers has descriptors above 1023 (500 legacy SSE servers: ~2,000).
// The loop thread of a session whose sockets are all up there still retires -- libcurl names them
// through its socket callback, not an fd_set (plugins/http-common/src/curl_driver.hpp) -- and the
// watch still brings it back for the server's next event.
TEST_F(SseIdleLoopTest, ASessionWhoseSocketsAreAbove1023StillRetires) {
    // Another thread (the fake server's) may free a descriptor below the floor just before the
    // transport opens a socket, which then takes that number: the premise (no socket to the server
    // below 1024) is checked before anything is asserted, and the scenario runs again when it fails.
    for (int attempt = 1;; ++attempt) {
        FakeSseServer server;
        mcph_test::LowDescriptorsTaken low;
        if (!low.taken()) GTEST_SKIP() << "the hard RLIMIT_NOFILE leaves no room above 1100 descriptors";
        Transport t(config(server.sse_url(), R"("loopIdleMs":100)"));
        const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
        low.refill();
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        if (mcph_test::lowest_socket_to(server.port(), 1024) >= 0) {
            ASSERT_LT(attempt, 3) << "a socket to the server below 1024 in 3 attempts: the test's premise does not hold";
            t.close();
            continue;
        }
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
        server.push_message(later);
        ASSERT_TRUE(t.recorder.wait_messages(1)) << "the event that came while the loop thread was retired was not delivered";
        EXPECT_EQ(t.recorder.messages().front(), later);
        ASSERT_EQ(t.send(list_request(1)), MCPH_OK) << t.error();
        ASSERT_TRUE(t.recorder.wait_messages(2)) << "no answer to a request sent to the retired transport";
        t.close();
        EXPECT_EQ(threads_named(kLoop), 0u);
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
        return;
    }
}

// loopIdleMs 0 keeps the loop thread: next to a transport with 100 that retires (the proof that
// the quiet spell was long enough), the other's thread is still there and still answers.
TEST_F(SseIdleLoopTest, LoopIdleMsZeroKeepsTheLoopThread) {
    FakeSseServer server;
    Transport stays(config(server.sse_url(), R"("loopIdleMs":0)"));
    ASSERT_EQ(stays.start(), MCPH_OK) << stays.error();
    FakeSseServer other;
    Transport retires(config(other.sse_url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(retires.start(), MCPH_OK) << retires.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 1)) << "the loopIdleMs 100 transport's thread did not retire";
    std::this_thread::sleep_for(300ms);  // three of its spells more: still the one
    EXPECT_EQ(threads_named(kLoop), 1u);
    ASSERT_EQ(stays.send(list_request(1)), MCPH_OK);
    EXPECT_TRUE(stays.recorder.wait_messages(1));
}

// No descriptor for the idle watch: the loop thread stays for good for that transport, says so
// once with the limit it ran into, and still delivers what the server sends later.
TEST_F(SseIdleLoopTest, NoDescriptorForTheWatchKeepsTheLoopThreadAndSaysWhy) {
    if (mcph_test::kSanitized) GTEST_SKIP() << "the sanitizer runtime needs descriptors this test takes away";
    plugin().descriptor->shutdown();  // no watch from an earlier test: the first arm must build it
    FakeSseServer server;
    Transport t(config(server.sse_url(), R"("loopIdleMs":300)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    // Every descriptor this process may have is taken, before the loop has been quiet for 300 ms.
    mcph_test::DescriptorsTaken none_left;
    ASSERT_TRUE(none_left.taken());
    const std::string stays = "the SSE loop thread stays (loopIdleMs is off for this server)";
    const std::string why = mcph_test::wait_line_with([&] { return t.recorder.diagnostics(); }, stays);
    none_left.give_back();
    ASSERT_FALSE(why.empty()) << "no word from the loop thread that could not retire";
    EXPECT_NE(why.find("RLIMIT_NOFILE is reached"), std::string::npos) << why;
    std::this_thread::sleep_for(700ms);  // two quiet spells more: it tries no more
    EXPECT_EQ(threads_named(kLoop), 1u);
    EXPECT_EQ(threads_named(kWatch), 0u);
    EXPECT_EQ(mcph_test::count_lines_with(t.recorder.diagnostics(), stays), 1u);
    server.push_message(R"({"jsonrpc":"2.0","method":"notifications/later"})");
    EXPECT_TRUE(t.recorder.wait_messages(1)) << "the loop thread that stayed does not deliver";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace sse_test
