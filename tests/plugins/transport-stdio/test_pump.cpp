// ABI 1.3 `pump`: a host thread reads the server's output itself and the messages are delivered on
// that thread; the reader thread parks meanwhile and resumes when nobody pumps. Real processes.
#include "harness.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace stdio_test {
namespace {

using PumpClock = std::chrono::steady_clock;

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

// Pumps as the host does (20 ms slices, looking for the message after each) until `want` messages
// have arrived however they came, or `bound` passes; returns the last status. OK without the
// message: the reader thread had delivered another one since the previous pump; pump again.
mcph_status pump_until_delivered(Transport& t, size_t want, std::chrono::milliseconds bound) {
    const auto deadline = PumpClock::now() + bound;
    mcph_status st = MCPH_ERR_TIMEOUT;
    while (PumpClock::now() < deadline && t.recorder.message_count() < want) {
        st = t.pump(20);
        if (st != MCPH_ERR_TIMEOUT && st != MCPH_OK) break;
    }
    return st;
}

class StdioPumpTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
    void TearDown() override { EXPECT_FALSE(has_children()) << "a child process was not reaped"; }
};

TEST_F(StdioPumpTest, VtableOffersPumpAtAbi13) {
    EXPECT_GE(plugin().descriptor->abi_minor, 3u);
    ASSERT_GT(plugin().vtable->struct_size, offsetof(mcph_transport_vtable_v1, pump));
    EXPECT_NE(plugin().vtable->pump, nullptr);
}

TEST_F(StdioPumpTest, WhatAPumpDeliversIsDeliveredOnTheCallingThreadInOrder) {
    Transport t(Config{"cat"});
    DeliveryThreads threads;
    t.recorder.on_message_hook = [&](std::string_view) { threads.note(); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    constexpr int kCalls = 50;
    std::vector<std::string> sent;
    int pumped_here = 0;
    for (int i = 0; i < kCalls; ++i) {
        sent.push_back("{\"id\":" + std::to_string(i) + "}");
        ASSERT_EQ(t.send(sent.back()), MCPH_OK) << t.error();
        const size_t before = t.recorder.message_count();
        // Either this thread reads the echo (OK: delivered here), or the reader thread had it first
        // (the first call: it holds the role, delivers, and hands the role over: OK too).
        const mcph_status st = pump_until_delivered(t, static_cast<size_t>(i + 1), 5s);
        if (st == MCPH_OK) {
            const auto ids = threads.all();
            if (ids.size() > before && ids.back() == std::this_thread::get_id()) ++pumped_here;
        }
        ASSERT_TRUE(t.recorder.wait_messages(static_cast<size_t>(i + 1), 5s));
    }
    EXPECT_GT(pumped_here, 0) << "no call read its own reply";
    EXPECT_EQ(t.recorder.messages(), sent);  // once each, in order, whichever thread delivered
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

TEST_F(StdioPumpTest, PumpTimesOutWhenNothingArrives) {
    Transport t(Config{"cat"});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto start = PumpClock::now();
    EXPECT_EQ(t.pump(80), MCPH_ERR_TIMEOUT);
    const auto took = PumpClock::now() - start;
    EXPECT_GE(took, 70ms);
    EXPECT_LT(took, 5s);
    EXPECT_EQ(t.recorder.message_count(), 0u);
    t.close();
}

TEST_F(StdioPumpTest, PumpBeforeStartAndAfterCloseIsClosed) {
    Transport t(Config{"cat"});
    EXPECT_EQ(t.pump(10), MCPH_ERR_CLOSED);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    t.close();
    EXPECT_EQ(t.pump(10), MCPH_ERR_CLOSED);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

TEST_F(StdioPumpTest, ASecondThreadPumpingAtOnceIsToldNotNow) {
    Transport t(Config{"cat"});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    std::atomic<bool> stop{false};
    std::atomic<int> busy{0};
    std::thread other([&] {
        while (!stop.load())
            if (t.pump(200) == MCPH_BUSY) ++busy;
    });
    const auto deadline = PumpClock::now() + 10s;
    while (busy.load() == 0 && PumpClock::now() < deadline)
        if (t.pump(0) == MCPH_BUSY) ++busy;
    stop = true;
    other.join();
    EXPECT_GT(busy.load(), 0) << "two threads pumped at once without either being told MCPH_BUSY";
    // And reading still works afterwards.
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 5s));
    t.close();
}

TEST_F(StdioPumpTest, PumpFromInsideOnMessageIsNotNow) {
    Transport t(Config{"cat"});
    std::atomic<int> inner{-1};
    t.recorder.on_message_hook = [&](std::string_view) { inner = t.pump(10); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 5s));
    EXPECT_EQ(inner.load(), MCPH_BUSY);
    t.close();
}

// After a pump gave the role back, the parked reader resumes within its grace: a message the
// server sends while nobody pumps (a notification between calls) still arrives.
TEST_F(StdioPumpTest, AMessageSentWhileNobodyPumpsIsDeliveredByTheReader) {
    Transport t(sh("read x; echo \"$x\"; sleep 0.3; echo '{\"method\":\"notifications/later\"}'; cat"));
    DeliveryThreads threads;
    t.recorder.on_message_hook = [&](std::string_view) { threads.note(); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    (void)pump_until_delivered(t, 1, 5s);  // the "call"; then nobody pumps
    ASSERT_TRUE(t.recorder.wait_messages(2, 5s)) << "the message between calls was not delivered";
    EXPECT_EQ(t.recorder.messages().back(), R"({"method":"notifications/later"})");
    EXPECT_NE(threads.all().back(), std::this_thread::get_id());
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// The first call after a quiet spell: the reader thread holds the role, in its poll. The caller
// does not make it yield; when the reply comes, the reader hands the role over without reading it,
// and the reply is delivered on the calling thread (pump's promise), the pump saying OK then, not
// at its deadline. The same after the reader delivered something itself (a notification between
// calls): the next call still reads its own reply.
TEST_F(StdioPumpTest, TheFirstCallAfterAQuietSpellReadsItsReplyOnTheCallingThread) {
    Transport t(sh("while read l; do sleep 0.1; echo \"$l\"; done"));
    DeliveryThreads threads;
    t.recorder.on_message_hook = [&](std::string_view) { threads.note(); };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    const auto call = [&](size_t n) {
        const auto start = PumpClock::now();
        const mcph_status st = pump_until_delivered(t, n, 10s);
        ASSERT_EQ(t.recorder.message_count(), n);
        EXPECT_EQ(st, MCPH_OK);
        EXPECT_LT(PumpClock::now() - start, 4s) << "the pump waited for its deadline, not for the reply";
        EXPECT_EQ(threads.all().back(), std::this_thread::get_id()) << "the reply was not delivered on the calling thread";
    };
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    call(1);
    ASSERT_EQ(t.send(R"({"id":2})"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2, 5s));  // nobody pumps: the reader thread delivers it
    std::this_thread::sleep_for(20ms);              // a quiet spell: the reader thread keeps the role
    ASSERT_EQ(t.send(R"({"id":3})"), MCPH_OK);
    call(3);
    EXPECT_EQ(t.recorder.messages(), (std::vector<std::string>{R"({"id":1})", R"({"id":2})", R"({"id":3})"}));
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A reply the reader thread delivered just before the caller pumped (the caller had looked and
// found nothing, then the reply came) is not waited for: the pump says OK at once.
TEST_F(StdioPumpTest, AReplyTheReaderDeliveredJustBeforeThePumpIsNotWaitedFor) {
    Transport t(Config{"cat"});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 5s));  // delivered by the reader thread, nobody pumping
    const auto start = PumpClock::now();
    EXPECT_EQ(t.pump(5000), MCPH_OK);
    EXPECT_LT(PumpClock::now() - start, 2s) << "the pump waited for a reply that had already come";
    t.close();
}

TEST_F(StdioPumpTest, ServerDeathDuringAPumpIsReportedOnceWithItsExitStatus) {
    Transport t(sh("read x; echo oops >&2; exit 3", "\"shutdownGraceMs\":200"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(R"({"id":1})"), MCPH_OK);
    // Pump until a pump reports the end. The server may die before the first pump (then that pump
    // says CLOSED), during one (OK: this thread delivered on_closed; or CLOSED: the reader thread
    // did), or just after one timed out (the next says CLOSED). Always at least one pump: CI once
    // saw the close delivered before a `while` loop's first round, leaving its initial TIMEOUT.
    const auto deadline = PumpClock::now() + 10s;
    mcph_status st = MCPH_ERR_TIMEOUT;
    do {
        st = t.pump(100);
    } while ((st == MCPH_ERR_TIMEOUT || (st == MCPH_OK && t.recorder.closed_count() == 0)) &&
             PumpClock::now() < deadline);
    ASSERT_TRUE(t.recorder.wait_closed(5s));
    EXPECT_TRUE(st == MCPH_OK || st == MCPH_ERR_CLOSED) << st;
    EXPECT_EQ(t.recorder.closed_count(), 1);
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_PROCESS_EXITED);
    EXPECT_EQ(t.recorder.close_failure().os_error, 3);
    EXPECT_NE(t.recorder.close_failure().stderr_tail.find("oops"), std::string::npos);
    EXPECT_EQ(t.pump(10), MCPH_ERR_CLOSED);
    t.close();
}

TEST_F(StdioPumpTest, CloseEndsAPumpInProgressAndNothingFiresAfterIt) {
    Transport t(Config{"cat"});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    std::atomic<bool> pumping{false};
    std::atomic<int> last{-1};
    std::thread pumper([&] {
        pumping = true;
        mcph_status st = MCPH_ERR_TIMEOUT;
        const auto deadline = PumpClock::now() + 10s;
        while (st == MCPH_ERR_TIMEOUT && PumpClock::now() < deadline) st = t.pump(5000);
        last = st;
    });
    while (!pumping.load()) std::this_thread::yield();
    std::this_thread::sleep_for(50ms);  // let it get inside (either way the outcome below holds)
    const auto start = PumpClock::now();
    t.close();
    pumper.join();
    EXPECT_LT(PumpClock::now() - start, 5s);
    EXPECT_EQ(last.load(), MCPH_ERR_CLOSED);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace stdio_test
