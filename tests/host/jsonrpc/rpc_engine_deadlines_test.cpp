// RpcEngine's deadline index: the owner keeps one timer at next_deadline(); requests expire
// earliest first; arm_timeouts fires only for a deadline sooner than the timer's wake-up; progress
// with reset moves a deadline, a cancel or an answer removes it. The owner's timer is simulated by
// calling check_timeouts(next_deadline()), as SessionCore's timer handler does when it fires.
#include "jsonrpc/rpc_engine.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::ErrorKind;
using mcph::Json;
using mcph::jsonrpc::Clock;
using mcph::jsonrpc::EngineHooks;
using mcph::jsonrpc::RequestSettings;
using mcph::jsonrpc::RpcEngine;

// An engine that swallows what it sends and counts arm_timeouts; each async request records the
// order in which it failed (by the tag the test gave it) and with which error kind.
struct Deadlines {
    Deadlines() {
        EngineHooks hooks;
        hooks.send = [](std::string_view, const mcph::transport::MessageFacts*) {};
        hooks.arm_timeouts = [this] { ++armed; };
        engine = std::make_shared<RpcEngine>("deadline-server", std::move(hooks));
    }

    std::int64_t start(int tag, std::chrono::milliseconds timeout, bool reset_on_progress = false) {
        RequestSettings s;
        s.timeout = timeout;
        s.reset_timeout_on_progress = reset_on_progress;
        if (reset_on_progress) s.on_progress = [](const mcph::Progress&) {};
        return engine->start_request_async("tools/call", Json(), std::move(s), [this, tag](Json, const mcph::Error* e) {
            std::lock_guard lock(mutex);
            finished.push_back(tag);
            kinds.push_back(e ? e->kind() : ErrorKind::Protocol);
            if (!e) answered.push_back(tag);
        });
    }

    // What the owner's timer does when it fires at next_deadline(); returns false when unarmed.
    bool fire() {
        const Clock::time_point due = engine->next_deadline();
        if (due == Clock::time_point::max()) return false;
        engine->check_timeouts(due);
        ++fired;
        return true;
    }

    std::shared_ptr<RpcEngine> engine;
    std::atomic<int> armed{0};
    int fired = 0;
    std::mutex mutex;
    std::vector<int> finished;
    std::vector<ErrorKind> kinds;
    std::vector<int> answered;
};

std::string progress(std::int64_t token) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":" +
           std::to_string(token) + ",\"progress\":1}}";
}

std::string response(std::int64_t id) { return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"result\":{}}"; }

TEST(RpcEngineDeadlines, EarliestDeadlineFirstAndOnlyWhatIsDue) {
    Deadlines d;
    const auto before = Clock::now();
    d.start(300, 300s);
    d.start(100, 100s);
    d.start(200, 200s);
    const auto after = Clock::now();
    const auto next = d.engine->next_deadline();
    EXPECT_GE(next, before + 100s);
    EXPECT_LE(next, after + 100s) << "the earliest deadline is the 100 s request's";

    EXPECT_EQ(d.engine->check_timeouts(next - 1ms), 3u) << "nothing is due before the earliest deadline";
    EXPECT_TRUE(d.finished.empty());
    EXPECT_EQ(d.engine->check_timeouts(after + 150s), 2u);
    ASSERT_EQ(d.finished, std::vector<int>({100}));
    EXPECT_EQ(d.kinds[0], ErrorKind::Timeout);
    while (d.fire()) {
    }
    EXPECT_EQ(d.finished, std::vector<int>({100, 200, 300}));
    EXPECT_EQ(d.fired, 2);
    EXPECT_EQ(d.engine->timed_pending_count(), 0u);
    EXPECT_EQ(d.engine->next_deadline(), Clock::time_point::max()) << "nothing left: the timer stops";
}

TEST(RpcEngineDeadlines, ArmsOnlyForADeadlineSoonerThanTheWakeUp) {
    Deadlines d;
    d.start(1, 60s);
    EXPECT_EQ(d.armed.load(), 1) << "the first timed request arms the timer";
    for (int i = 0; i < 100; ++i) d.start(2, 60s);
    EXPECT_EQ(d.armed.load(), 1) << "later deadlines need no re-arm: no cross-thread wake-up per call";
    d.start(3, 1s);
    EXPECT_EQ(d.armed.load(), 2) << "a shorter timeout is due sooner: the timer must move";
    mcph::jsonrpc::RequestSettings listen;
    listen.long_lived = true;
    d.engine->start_request_async("subscriptions/listen", Json(), listen, [](Json, const mcph::Error*) {});
    EXPECT_EQ(d.armed.load(), 2) << "a long-lived request has no deadline";
    EXPECT_EQ(d.engine->timed_pending_count(), 102u);
    EXPECT_EQ(d.engine->pending_count(), 103u);
}

TEST(RpcEngineDeadlines, ProgressWithResetMovesTheDeadline) {
    Deadlines d;
    const std::int64_t id = d.start(1, 100ms, true);
    const auto first = d.engine->next_deadline();
    std::this_thread::sleep_for(20ms);
    d.engine->handle_message(progress(id));
    const auto moved = d.engine->next_deadline();
    EXPECT_GE(moved, first + 20ms) << "the reset deadline is now + timeout";
    d.engine->check_timeouts(first);  // the timer set for the old deadline wakes: nothing is due
    EXPECT_TRUE(d.finished.empty());
    EXPECT_EQ(d.engine->next_deadline(), moved) << "and re-arms at the moved deadline";
    ASSERT_TRUE(d.fire());
    EXPECT_EQ(d.finished, std::vector<int>({1}));
    EXPECT_EQ(d.kinds[0], ErrorKind::Timeout);
}

TEST(RpcEngineDeadlines, CancelAndAnswerRemoveTheirDeadlines) {
    Deadlines d;
    const std::int64_t a = d.start(1, 10s);
    const std::int64_t b = d.start(2, 20s);
    d.start(3, 30s);
    const auto after_b = d.engine->next_deadline();
    d.engine->cancel(a, "test");
    EXPECT_EQ(d.kinds.at(0), ErrorKind::Cancelled);
    EXPECT_GT(d.engine->next_deadline(), after_b + 9s) << "the cancelled request's deadline is gone";
    d.engine->handle_message(response(b));
    EXPECT_EQ(d.answered, std::vector<int>({2}));
    EXPECT_EQ(d.engine->timed_pending_count(), 1u);
    ASSERT_TRUE(d.fire());
    EXPECT_EQ(d.finished, std::vector<int>({1, 2, 3}));
    EXPECT_EQ(d.kinds.at(2), ErrorKind::Timeout);
    EXPECT_FALSE(d.fire());
}

TEST(RpcEngineDeadlines, FailAllClearsTheIndex) {
    Deadlines d;
    for (int i = 0; i < 5; ++i) d.start(i, 10s);
    d.engine->fail_all(mcph::Error(ErrorKind::Connection, "gone"));
    EXPECT_EQ(d.engine->timed_pending_count(), 0u);
    EXPECT_EQ(d.engine->next_deadline(), Clock::time_point::max());
    d.engine->reopen();
    d.start(9, 1s);
    EXPECT_NE(d.engine->next_deadline(), Clock::time_point::max());
}

// Requests that reuse the map nodes of finished ones (the engine keeps them: issue #16) carry their
// own ids and deadlines: answers and timeouts reach the right request, an answer to a finished id
// is ignored, and long-lived requests between them leave the index alone.
TEST(RpcEngineDeadlines, RequestsOnReusedNodesKeepTheirOwnIdsAndDeadlines) {
    Deadlines d;
    std::vector<std::int64_t> done;
    for (int round = 0; round < 20; ++round) {  // more rounds than spare nodes, finished each way
        const std::int64_t answered = d.start(round * 10 + 1, 3600s);
        const std::int64_t cancelled = d.start(round * 10 + 2, 3600s);
        d.engine->handle_message(response(answered));
        d.engine->cancel(cancelled, "test");
        done.push_back(answered);
    }
    EXPECT_EQ(d.engine->pending_count(), 0u);
    EXPECT_EQ(d.engine->timed_pending_count(), 0u);
    EXPECT_EQ(d.engine->next_deadline(), Clock::time_point::max()) << "no stale deadline left in the index";

    mcph::jsonrpc::RequestSettings listen;
    listen.long_lived = true;
    d.engine->start_request_async("subscriptions/listen", Json(), listen, [](Json, const mcph::Error*) {});
    const auto before = Clock::now();
    const std::int64_t late = d.start(900, 200s);
    const std::int64_t soon = d.start(901, 100s);
    const auto next = d.engine->next_deadline();
    EXPECT_GE(next, before + 100s);
    EXPECT_LT(next, before + 101s) << "the index holds the reused nodes' new deadlines";
    for (std::int64_t id : done) d.engine->handle_message(response(id));  // finished ids: ignored
    EXPECT_EQ(d.engine->pending_count(), 3u);
    ASSERT_TRUE(d.fire());
    ASSERT_TRUE(d.fire());
    EXPECT_FALSE(d.fire()) << "the long-lived request has no deadline";
    ASSERT_GE(d.finished.size(), 2u);
    EXPECT_EQ(d.finished[d.finished.size() - 2], 901) << "earliest first";
    EXPECT_EQ(d.finished.back(), 900);
    EXPECT_EQ(d.kinds.back(), ErrorKind::Timeout);
    EXPECT_EQ(d.engine->pending_count(), 1u);
    EXPECT_NE(late, soon);
}

// 10,000 pending requests with shuffled timeouts (a minute apart, far more than the time it takes
// to start them all, so the order is the timeouts' order; 1 s apart was not under ASan on a loaded
// machine, where starting them took 11 s): each timer firing expires exactly the one due, earliest
// first, and arm_timeouts ran only when a request was due sooner than all before it.
TEST(RpcEngineDeadlines, TenThousandPendingTimeOutInOrderWithOneTimer) {
    constexpr int kCount = 10000;
    Deadlines d;
    std::vector<int> order(kCount);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(14));
    int prefix_minima = 0, lowest = kCount;
    for (int v : order) {
        d.start(v, std::chrono::minutes(v + 1));
        if (v < lowest) {
            lowest = v;
            ++prefix_minima;
        }
    }
    EXPECT_EQ(d.armed.load(), prefix_minima);
    EXPECT_LT(prefix_minima, 50) << "a shuffled stream re-arms ~ln(n) times, not per request";
    EXPECT_EQ(d.engine->timed_pending_count(), static_cast<std::size_t>(kCount));

    std::size_t remaining = kCount;
    while (remaining > 0) {
        const auto due = d.engine->next_deadline();
        ASSERT_NE(due, Clock::time_point::max());
        const std::size_t left = d.engine->check_timeouts(due);
        ASSERT_EQ(left, remaining - 1) << "one request is due per firing";
        remaining = left;
    }
    ASSERT_EQ(d.finished.size(), static_cast<std::size_t>(kCount));
    for (int i = 0; i < kCount; ++i) ASSERT_EQ(d.finished[static_cast<std::size_t>(i)], i) << "out of order at " << i;
    EXPECT_TRUE(std::all_of(d.kinds.begin(), d.kinds.end(), [](ErrorKind k) { return k == ErrorKind::Timeout; }));
    EXPECT_EQ(d.engine->next_deadline(), Clock::time_point::max());
}

}  // namespace
