// The loop thread of a quiet Streamable HTTP transport retires to the plugin's idle watch
// (plugins/transport-http/src/engine_idle.cpp) and comes back for a server event, a send or close.
// Real loopback sockets against the scripted server (fake_server.hpp); the plugin's threads are
// told apart by their names (mcph-http-loop, mcph-http-idle).
#include "fake_server.hpp"
#include "harness.hpp"
#include "../resource_probe.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace http_test {
namespace {

constexpr const char* kLoop = "mcph-http-loop";
constexpr const char* kWatch = "mcph-http-idle";

using mcph_test::this_thread_name;  // ../resource_probe.hpp
using mcph_test::threads_named;
using mcph_test::wait_threads_named;

class HttpIdleLoopTest : public LoopbackTest {};

// A legacy session with its GET stream open and nothing else to do: the loop thread ends and the
// watch holds the stream's socket. The server's next event wakes it: a loop thread delivers it,
// then retires again after another quiet spell. close() leaves no thread of the transport behind.
TEST_F(HttpIdleLoopTest, AQuietStreamRetiresTheLoopThreadAndTheServersNextEventBringsItBack) {
    FakeServer server;
    Signal push;
    const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
    // Keep-alive comments far apart: each wakes the watch, and a loop thread reads it and retires
    // again loopIdleMs later (no progress: a comment delivers nothing).
    server.on(stream_then_answer(push, event(later), empty_result, 2s));
    Transport t(http_config(server.url(), R"("loopIdleMs":200)"));
    std::string delivered_on;
    Signal later_noted;
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m != later) return;
        delivered_on = this_thread_name();
        later_noted.set();
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);  // opens the GET stream (legacy era)
    ASSERT_TRUE(server.wait_requests(1, "GET"));
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    EXPECT_EQ(threads_named(kWatch), 1u);

    push.set();
    ASSERT_TRUE(later_noted.wait(5s)) << "the event that came while the loop thread was retired was not delivered";
    EXPECT_EQ(delivered_on, kLoop);
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the revived loop thread did not retire again";

    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_EQ(server.requests("GET").size(), 1u) << "the stream was never reopened: it stayed up throughout";
}

// The same with every socket of the transport above descriptor 1023, as in a host with hundreds
// of servers: libcurl names them through its socket callback (plugins/http-common/src/
// curl_driver.hpp), so the loop thread still retires, and the event still brings it back.
// Another thread (the fake server's) may free a descriptor below the floor just before the
// transport opens a socket, which then takes that number: the premise (no socket to the server
// below 1024) is checked before anything is asserted, and the scenario runs again when it fails.
TEST_F(HttpIdleLoopTest, AStreamWhoseSocketIsAbove1023StillRetires) {
    for (int attempt = 1;; ++attempt) {
        FakeServer server;
        Signal push;
        const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
        server.on(stream_then_answer(push, event(later), empty_result, 2s));
        mcph_test::LowDescriptorsTaken low;
        if (!low.taken()) GTEST_SKIP() << "the hard RLIMIT_NOFILE leaves no room above 1100 descriptors";
        Transport t(http_config(server.url(), R"("loopIdleMs":200)"));
        low.refill();
        Signal later_noted;
        t.recorder.on_message_hook = [&](std::string_view m) {
            if (m == later) later_noted.set();
        };
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        ASSERT_EQ(t.send(request(1)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1));
        low.refill();  // the POST's connection may be closed: the GET's must be above 1023 too
        ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
        ASSERT_TRUE(server.wait_requests(1, "GET"));
        if (mcph_test::lowest_socket_to(server.port(), 1024) >= 0) {
            ASSERT_LT(attempt, 3) << "a socket to the server below 1024 in 3 attempts: the test's premise does not hold";
            push.set();
            t.close();
            continue;
        }
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
        push.set();
        ASSERT_TRUE(later_noted.wait(5s)) << "the event that came while the loop thread was retired was not delivered";
        t.close();
        EXPECT_EQ(threads_named(kLoop), 0u);
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
        return;
    }
}

// With nothing open at all, a send to a retired transport goes out and its reply comes without a
// pump: the send starts a loop thread again.
TEST_F(HttpIdleLoopTest, ASendToARetiredTransportGoesOutAndItsReplyComes) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        const auto d = parse(ex.request.body);
        if (!d.HasMember("id")) return ex.respond(202, "");
        ex.json(empty_result(d["id"].GetInt()));
    });
    Transport t(http_config(server.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    for (int id = 2; id <= 4; ++id) {
        ASSERT_EQ(t.send(request(id)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(static_cast<size_t>(id))) << "request " << id;
        ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "after request " << id;
    }
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// close() on a retired legacy session still ends it on the server (DELETE with its session id),
// from a loop thread started for that, and no thread is left.
TEST_F(HttpIdleLoopTest, CloseOfARetiredSessionStillDeletesIt) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        if (ex.request.method == "DELETE") return ex.respond(200, "");
        const auto d = parse(ex.request.body);
        if (!d.HasMember("id")) return ex.respond(202, "");
        ex.json(empty_result(d["id"].GetInt()), {{"Mcp-Session-Id", "s-idle"}});
    });
    Transport t(http_config(server.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    t.close();
    const auto deletes = server.requests("DELETE");
    ASSERT_EQ(deletes.size(), 1u);
    EXPECT_EQ(deletes[0].header("mcp-session-id"), "s-idle");
    EXPECT_EQ(threads_named(kLoop), 0u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A pump with nothing sent before it, on a retired transport, times out in its slice and leaves a
// loop thread behind it (what it might leave running has a driver).
TEST_F(HttpIdleLoopTest, APumpOnARetiredTransportBringsTheLoopThreadBack) {
    FakeServer server;
    server.on([&](Exchange& ex) { ex.json(empty_result(parse(ex.request.body)["id"].GetInt())); });
    Transport t(http_config(server.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire";
    EXPECT_EQ(t.pump(20), MCPH_ERR_TIMEOUT);
    EXPECT_TRUE(wait_threads_named(kLoop, 1, 1s)) << "no loop thread after the pump";
    t.close();
    EXPECT_EQ(threads_named(kLoop), 0u);
}

// A long tool call: the loop thread retires while its response is outstanding (the watch holds the
// POST's socket), and the response, when it comes, is delivered by a loop thread started for it.
TEST_F(HttpIdleLoopTest, ALongCallsResponseComesWhileTheLoopThreadIsRetired) {
    FakeServer server;
    Signal answer;
    server.on([&](Exchange& ex) {
        if (!answer.wait(10s)) return ex.cut();
        ex.json(empty_result(parse(ex.request.body)["id"].GetInt()));
    });
    Transport t(http_config(server.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1));
    ASSERT_TRUE(wait_threads_named(kLoop, 0)) << "the loop thread did not retire during the call";
    answer.set();
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the response to the long call was not delivered";
    EXPECT_EQ(parse(t.recorder.messages().at(0))["id"].GetInt(), 1);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A request's deadline is the watch's timer: a silent server's request still fails with TIMEOUT at
// timeoutMs while the loop thread is retired.
TEST_F(HttpIdleLoopTest, ARequestDeadlineFiresWhileTheLoopThreadIsRetired) {
    FakeServer server;
    Signal release;
    server.on(silent_until(release));
    Transport t(http_config(server.url(), R"("loopIdleMs":100,"timeoutMs":2000)"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto sent = Clock::now();
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    ASSERT_TRUE(wait_threads_named(kLoop, 0, 1500ms)) << "the loop thread did not retire before the deadline";
    ASSERT_TRUE(t.recorder.wait_request_failures(1, 10s));
    EXPECT_EQ(t.recorder.request_failures().at(0).category, MCPH_FAILURE_TIMEOUT);
    EXPECT_GE(Clock::now() - sent, 1900ms);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    release.set();
    t.close();
}

// loopIdleMs 0 keeps the loop thread: next to a transport with 100 that retires (the proof that
// the quiet spell was long enough), the other's thread is still there.
TEST_F(HttpIdleLoopTest, LoopIdleMsZeroKeepsTheLoopThread) {
    FakeServer server;
    server.on([&](Exchange& ex) { ex.json(empty_result(parse(ex.request.body)["id"].GetInt())); });
    Transport stays(http_config(server.url(), R"("loopIdleMs":0)"));
    Transport retires(http_config(server.url(), R"("loopIdleMs":100)"));
    ASSERT_EQ(stays.start(), MCPH_OK) << stays.error();
    ASSERT_EQ(retires.start(), MCPH_OK) << retires.error();
    ASSERT_TRUE(wait_threads_named(kLoop, 1)) << "the loopIdleMs 100 transport's thread did not retire";
    std::this_thread::sleep_for(300ms);  // three of its spells more: still the one
    EXPECT_EQ(threads_named(kLoop), 1u);
    ASSERT_EQ(stays.send(request(1)), MCPH_OK);
    EXPECT_TRUE(stays.recorder.wait_messages(1));
}

// No descriptor for the idle watch: the loop thread stays for good for that transport, says so once
// with the limit it ran into, and still delivers what the server sends later.
TEST_F(HttpIdleLoopTest, NoDescriptorForTheWatchKeepsTheLoopThreadAndSaysWhy) {
    if (mcph_test::kSanitized) GTEST_SKIP() << "the sanitizer runtime needs descriptors this test takes away";
    plugin().descriptor->shutdown();  // no watch from an earlier test: the first arm must build it
    FakeServer server;
    Signal push;
    const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
    server.on(stream_then_answer(push, event(later), empty_result, 200ms));
    Transport t(http_config(server.url(), R"("loopIdleMs":300)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);  // opens the GET stream (legacy era)
    ASSERT_TRUE(server.wait_requests(1, "GET"));
    // Every descriptor this process may have is taken, before the loop has been quiet for 300 ms.
    mcph_test::DescriptorsTaken none_left;
    ASSERT_TRUE(none_left.taken());
    const std::string stays = "the HTTP loop thread stays (loopIdleMs is off for this server)";
    const std::string why = mcph_test::wait_line_with([&] { return t.recorder.diagnostics(); }, stays);
    none_left.give_back();
    ASSERT_FALSE(why.empty()) << "no word from the loop thread that could not retire";
    EXPECT_NE(why.find("RLIMIT_NOFILE is reached"), std::string::npos) << why;
    std::this_thread::sleep_for(700ms);  // two quiet spells more: it tries no more
    EXPECT_EQ(threads_named(kLoop), 1u);
    EXPECT_EQ(threads_named(kWatch), 0u);
    EXPECT_EQ(mcph_test::count_lines_with(t.recorder.diagnostics(), stays), 1u);
    push.set();
    EXPECT_TRUE(t.recorder.wait_messages(2)) << "the loop thread that stayed does not deliver";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace http_test
