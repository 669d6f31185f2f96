// ABI 1.3 `pump` on the HTTP transport: a host thread waiting for a reply drives the curl loop
// itself and the reply is delivered on that thread; the loop thread parks meanwhile and resumes
// when nobody pumps. Real loopback sockets against the scripted server (fake_server.hpp).
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace http_test {
namespace {

// Which thread each message was delivered on (recorded inside on_message).
struct DeliveryThreads {
    std::mutex mutex;
    std::vector<std::thread::id> ids;
    void note() {
        std::lock_guard lock(mutex);
        ids.push_back(std::this_thread::get_id());
    }
    std::vector<std::thread::id> all() {
        std::lock_guard lock(mutex);
        return ids;
    }
};

size_t message_count(Transport& t) { return t.recorder.messages().size(); }

// Pumps (as the host does, in 20 ms slices) until `done` holds or `bound` passes. Counts the
// statuses seen; returns whether `done` held.
template <class Done>
bool pump_until(Transport& t, Done&& done, std::map<mcph_status, int>& seen, std::chrono::milliseconds bound = 10s) {
    const auto deadline = Clock::now() + bound;
    while (!done()) {
        if (Clock::now() >= deadline) return false;
        const mcph_status st = t.pump(20);
        ++seen[st];
        // BUSY: another thread drives; wait for the result the old way (a short, event-ended wait).
        if (st == MCPH_BUSY) (void)t.recorder.wait_messages(message_count(t) + 1, 5ms);
        if (st != MCPH_OK && st != MCPH_ERR_TIMEOUT && st != MCPH_BUSY) return done();
    }
    return true;
}

class HttpPumpTest : public LoopbackTest {};

TEST_F(HttpPumpTest, VtableOffersPump) {
    ASSERT_GT(plugin().vtable->struct_size, offsetof(mcph_transport_vtable_v1, pump));
    EXPECT_NE(plugin().vtable->pump, nullptr);
}

// Every OK pump came with a delivery (on the pumping thread, or the loop thread's before it handed
// the role over), in order, each once; and most calls read their own reply.
TEST_F(HttpPumpTest, PumpedCallsGetTheirRepliesOnTheCallingThread) {
    FakeServer server;
    server.on([](Exchange& ex) {
        const auto d = parse(ex.request.body);
        const int id = d["id"].GetInt();
        if (id % 2 == 0) return ex.json(empty_result(id));  // JSON and SSE responses alike
        ex.sse_begin();
        ex.sse_send(event(empty_result(id)));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    DeliveryThreads threads;
    t.recorder.on_message_hook = [&](std::string_view) { threads.note(); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    constexpr int kCalls = 40;
    std::vector<std::string> expected;
    int pumped_here = 0;
    for (int i = 1; i <= kCalls; ++i) {
        ASSERT_EQ(t.send(request(i)), MCPH_OK) << t.error();
        expected.push_back(empty_result(i));
        bool delivered_here = false;
        const auto deadline = Clock::now() + 10s;
        const size_t before = threads.all().size();
        while (message_count(t) < static_cast<size_t>(i) && Clock::now() < deadline) {
            const mcph_status st = t.pump(20);
            ASSERT_TRUE(st == MCPH_OK || st == MCPH_ERR_TIMEOUT) << st;
            if (st == MCPH_OK) {
                // Delivered here, or by the loop thread, which then handed the role over (the
                // first call: it drove the loop when the call came).
                const auto ids = threads.all();
                delivered_here = delivered_here || (ids.size() > before && ids.back() == std::this_thread::get_id());
            }
        }
        ASSERT_TRUE(t.recorder.wait_messages(static_cast<size_t>(i), 1s));
        pumped_here += delivered_here ? 1 : 0;
    }
    EXPECT_GT(pumped_here, kCalls / 2) << "the loop thread took most replies: it was not parked";
    EXPECT_EQ(t.recorder.messages(), expected);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_LE(t.recorder.concurrent_callbacks(), 1) << "on_message must be serialised";
}

TEST_F(HttpPumpTest, PumpBeforeStartAndAfterCloseIsClosed) {
    FakeServer server;
    Transport t(http_config(server.url()));
    EXPECT_EQ(t.pump(10), MCPH_ERR_CLOSED);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    t.close();
    EXPECT_EQ(t.pump(10), MCPH_ERR_CLOSED);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

TEST_F(HttpPumpTest, PumpFromInsideOnMessageIsNotNow) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(empty_result(1)); });
    Transport t(http_config(server.url()));
    std::atomic<int> inner{-1};
    Signal hooked;
    t.recorder.on_message_hook = [&](std::string_view) {
        inner = t.pump(10);
        hooked.set();
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(hooked.wait());  // the loop thread delivers: nobody pumps here
    EXPECT_EQ(inner.load(), MCPH_BUSY);
    t.close();
}

// 16 requests from 4 threads, all pumping at once: the server answers none until all 16 are in,
// so the threads wait together; one drives, the others are told BUSY and wait, and every reply
// arrives exactly once.
TEST_F(HttpPumpTest, SixteenPumpedRequestsFromFourThreadsAllComplete) {
    constexpr int kThreads = 4, kPerThread = 4, kTotal = kThreads * kPerThread;
    FakeServer server;
    std::mutex mutex;
    std::condition_variable cv;
    int arrived = 0;
    server.on([&](Exchange& ex) {
        const int id = parse(ex.request.body)["id"].GetInt();
        {
            std::unique_lock lock(mutex);
            ++arrived;
            cv.notify_all();
            cv.wait_for(lock, 10s, [&] { return arrived >= kTotal; });
        }
        ex.json(empty_result(id));
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    std::mutex seen_mutex;
    std::map<mcph_status, int> seen_all;
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < kThreads; ++k) {
        threads.emplace_back([&, k] {
            std::map<mcph_status, int> seen;
            for (int j = 0; j < kPerThread; ++j)
                if (t.send(request(1 + k * kPerThread + j)) != MCPH_OK) ++failed;
            const bool all = pump_until(t, [&] { return message_count(t) >= static_cast<size_t>(kTotal); }, seen);
            if (!all) ++failed;
            std::lock_guard lock(seen_mutex);
            for (const auto& [st, n] : seen) seen_all[st] += n;
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_GT(seen_all[MCPH_BUSY], 0) << "threads pumped at once without being told MCPH_BUSY";
    EXPECT_EQ(seen_all.count(MCPH_ERR_CLOSED), 0u);
    std::vector<std::string> got = t.recorder.messages();
    std::sort(got.begin(), got.end());
    std::vector<std::string> want;
    for (int id = 1; id <= kTotal; ++id) want.push_back(empty_result(id));
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "each reply exactly once";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_LE(t.recorder.concurrent_callbacks(), 1) << "on_message must be serialised";
}

// close() from another thread while a pump waits for a reply that never comes: the pump returns
// CLOSED soon, close() returns, nothing fires after.
TEST_F(HttpPumpTest, CloseDuringAPumpEndsItWithClosed) {
    FakeServer server;
    Signal release;
    server.on(silent_until(release));
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    std::atomic<int> last{-1};
    std::thread pumper([&] {
        mcph_status st = MCPH_ERR_TIMEOUT;
        const auto deadline = Clock::now() + 10s;
        // BUSY: the test's own probe below held the role for a moment.
        while ((st == MCPH_ERR_TIMEOUT || st == MCPH_BUSY) && Clock::now() < deadline) st = t.pump(5000);
        last = st;
    });
    ASSERT_TRUE(server.wait_requests(1));
    // Proof the other thread is inside pump: a pump from here is told BUSY.
    const auto deadline = Clock::now() + 10s;
    bool busy = false;
    while (!busy && Clock::now() < deadline) busy = t.pump(0) == MCPH_BUSY;
    ASSERT_TRUE(busy);
    const auto start = Clock::now();
    t.close();
    pumper.join();
    EXPECT_LT(Clock::now() - start, 3s);
    EXPECT_EQ(last.load(), MCPH_ERR_CLOSED);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_TRUE(t.recorder.messages().empty());
    release.set();
}

// A server that never answers: each pump ends in its slice with TIMEOUT, and the request's own
// timeout (timeoutMs) still fires while only pumps drive the loop; that pump returns OK.
TEST_F(HttpPumpTest, SilentServerPumpTimesOutInItsSliceAndTheRequestTimeoutFires) {
    FakeServer server;
    Signal release;
    server.on(silent_until(release));
    Transport t(http_config(server.url(), R"("timeoutMs":300)"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto sent = Clock::now();
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    const auto slice_start = Clock::now();
    EXPECT_EQ(t.pump(50), MCPH_ERR_TIMEOUT);
    const auto slice = Clock::now() - slice_start;
    EXPECT_GE(slice, 45ms);
    EXPECT_LT(slice, 250ms) << "a pump must end in its slice";
    mcph_status st = MCPH_ERR_TIMEOUT;
    const auto deadline = Clock::now() + 10s;
    while (t.recorder.request_failures().empty() && Clock::now() < deadline) st = t.pump(20);
    ASSERT_EQ(t.recorder.request_failures().size(), 1u);
    EXPECT_EQ(st, MCPH_OK) << "the pump that delivered the timeout says so";
    const auto took = Clock::now() - sent;
    EXPECT_GE(took, 290ms);
    EXPECT_LT(took, 3s);
    EXPECT_EQ(t.recorder.request_failures().at(0).category, MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    release.set();
    t.close();
}

// One response is cut mid-stream during a pump: that request fails clearly, the other request in
// flight is answered, and the transport stays open.
TEST_F(HttpPumpTest, ServerClosingMidResponseDuringAPumpFailsOnlyThatRequest) {
    FakeServer server;
    server.on([](Exchange& ex) {
        const int id = parse(ex.request.body)["id"].GetInt();
        if (id == 2) {
            ex.sse_begin();
            ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/progress"})"));
            ex.cut();  // no event id: the stream cannot be resumed
            return;
        }
        ex.json(empty_result(id));
    });
    Transport t(http_config(server.url()), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    std::map<mcph_status, int> seen;
    ASSERT_TRUE(pump_until(t, [&] { return t.recorder.request_failures().size() == 1 && message_count(t) == 2; }, seen));
    EXPECT_EQ(t.recorder.request_failures().at(0).category, MCPH_FAILURE_RESET);
    const auto messages = t.recorder.messages();
    EXPECT_NE(std::find(messages.begin(), messages.end(), empty_result(3)), messages.end());
    EXPECT_EQ(t.recorder.closed_count(), 0);
    EXPECT_EQ(seen.count(MCPH_ERR_CLOSED), 0u);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A notification and a server request arrive on the pumped call's stream; the server request is
// answered from inside on_message on the pumping thread (a send re-entering the driver), and the
// stream goes on to the result only once the answer arrived.
TEST_F(HttpPumpTest, NotificationAndServerRequestDuringAPumpAreDeliveredAndAnswered) {
    FakeServer server;
    Signal answered;
    const std::string ping = R"({"jsonrpc":"2.0","id":"s1","method":"ping"})";
    const std::string note = R"({"jsonrpc":"2.0","method":"notifications/progress"})";
    server.on([&](Exchange& ex) {
        const auto d = parse(ex.request.body);
        if (!d.HasMember("method")) {  // the answer to our ping
            answered.set();
            return ex.respond(202, "");
        }
        ex.sse_begin();
        ex.sse_send(event(note));
        ex.sse_send(event(ping));
        if (!answered.wait(5s)) return ex.cut();
        ex.sse_send(event(empty_result(1)));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    DeliveryThreads threads;
    std::atomic<int> answer_status{-1};
    t.recorder.on_message_hook = [&](std::string_view m) {
        threads.note();
        if (m == ping) answer_status = t.send(R"({"jsonrpc":"2.0","id":"s1","result":{}})");
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    std::map<mcph_status, int> seen;
    ASSERT_TRUE(pump_until(t, [&] { return message_count(t) >= 3; }, seen));
    EXPECT_EQ(t.recorder.messages(), (std::vector<std::string>{note, ping, empty_result(1)}));
    EXPECT_EQ(answer_status.load(), MCPH_OK);
    EXPECT_TRUE(answered.is_set());
    EXPECT_GT(seen[MCPH_OK], 0);
    const auto ids = threads.all();
    EXPECT_GT(std::count(ids.begin(), ids.end(), std::this_thread::get_id()), 0) << "nothing was delivered by the pump";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// The first call after a quiet spell: the loop thread holds the role, in its poll. The caller does
// not make it yield; when the reply comes, the loop thread hands the role over without performing,
// and the reply is delivered on the calling thread (pump's promise), the pump saying OK then, not
// at its deadline. The same after the loop thread delivered something itself.
TEST_F(HttpPumpTest, TheFirstCallAfterAQuietSpellReadsItsReplyOnTheCallingThread) {
    FakeServer server;
    server.on([](Exchange& ex) {
        std::this_thread::sleep_for(100ms);  // the caller is waiting by then
        ex.json(empty_result(parse(ex.request.body)["id"].GetInt()));
    });
    Transport t(http_config(server.url()));
    DeliveryThreads threads;
    t.recorder.on_message_hook = [&](std::string_view) { threads.note(); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto call = [&](size_t n) {
        const auto start = Clock::now();
        std::map<mcph_status, int> seen;
        ASSERT_TRUE(pump_until(t, [&] { return message_count(t) >= n; }, seen));
        EXPECT_EQ(seen[MCPH_BUSY], 0);
        EXPECT_LT(Clock::now() - start, 4s) << "the pump waited for its deadline, not for the reply";
        EXPECT_EQ(threads.all().back(), std::this_thread::get_id()) << "the reply was not delivered on the calling thread";
    };
    std::this_thread::sleep_for(20ms);  // a quiet spell: the loop thread holds the role
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    call(1);
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2, 5s));  // nobody pumps: the loop thread delivers it
    std::this_thread::sleep_for(20ms);              // a quiet spell: the loop thread keeps the role
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    call(3);
    EXPECT_EQ(t.recorder.messages(), (std::vector<std::string>{empty_result(1), empty_result(2), empty_result(3)}));
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A reply the loop thread delivered just before the caller pumped is not waited for.
TEST_F(HttpPumpTest, AReplyTheLoopThreadDeliveredJustBeforeThePumpIsNotWaitedFor) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(empty_result(parse(ex.request.body)["id"].GetInt())); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 5s));  // delivered by the loop thread, nobody pumping
    const auto start = Clock::now();
    EXPECT_EQ(t.pump(5000), MCPH_OK);
    EXPECT_LT(Clock::now() - start, 2s) << "the pump waited for a reply that had already come";
    t.close();
}

// After a pump gave the role back, the parked loop thread resumes within its grace: a
// notification on the GET stream while nobody pumps is still delivered (by the loop thread).
TEST_F(HttpPumpTest, AMessageWhileNobodyPumpsIsDeliveredByTheLoopThread) {
    FakeServer server;
    Signal call_answered;
    const std::string later = R"({"jsonrpc":"2.0","method":"notifications/later"})";
    server.on(stream_then_answer(call_answered, event(later), empty_result));
    Transport t(http_config(server.url()));
    DeliveryThreads threads;
    Signal later_noted;  // the hook runs after the recorder counted the message: wait for the hook
    t.recorder.on_message_hook = [&](std::string_view m) {
        threads.note();
        if (m == later) later_noted.set();
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);  // opens the GET stream (legacy era)
    ASSERT_TRUE(server.wait_requests(1, "GET"));
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    std::map<mcph_status, int> seen;
    ASSERT_TRUE(pump_until(t, [&] { return message_count(t) >= 1; }, seen));  // the "call"
    call_answered.set();  // then nobody pumps
    ASSERT_TRUE(later_noted.wait(5s)) << "the message between calls was not delivered";
    EXPECT_EQ(t.recorder.messages().back(), later);
    EXPECT_NE(threads.all().back(), std::this_thread::get_id());
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace http_test
