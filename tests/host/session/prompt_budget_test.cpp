// PromptBudget (a token bucket) and ListRefreshGate (one refresh in flight plus a dirty flag).
#include "session/list_refresh_gate.hpp"
#include "session/prompt_budget.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using mcph::session::ListRefreshGate;
using mcph::session::PromptBudget;

TEST(PromptBudget, BurstThenOnePerRefill) {
    PromptBudget budget(3, 1000ms);
    const auto t0 = PromptBudget::Clock::time_point{} + 1h;
    EXPECT_TRUE(budget.try_take(t0));
    EXPECT_TRUE(budget.try_take(t0));
    EXPECT_TRUE(budget.try_take(t0));
    EXPECT_FALSE(budget.try_take(t0)) << "the burst is spent";
    EXPECT_FALSE(budget.try_take(t0 + 999ms));
    EXPECT_TRUE(budget.try_take(t0 + 1000ms)) << "one token a second";
    EXPECT_FALSE(budget.try_take(t0 + 1500ms));
    EXPECT_TRUE(budget.try_take(t0 + 2000ms)) << "the half second already earned counts";
}

TEST(PromptBudget, IdleTimeRefillsOnlyUpToTheBurst) {
    PromptBudget budget(2, 100ms);
    const auto t0 = PromptBudget::Clock::time_point{} + 1h;
    EXPECT_TRUE(budget.try_take(t0));
    const auto later = t0 + 24h;
    EXPECT_TRUE(budget.try_take(later));
    EXPECT_TRUE(budget.try_take(later));
    EXPECT_FALSE(budget.try_take(later)) << "a quiet day does not bank a day of prompts";
}

TEST(ListRefreshGate, NotificationsDuringARefreshCostOneMoreRefresh) {
    ListRefreshGate gate;
    EXPECT_TRUE(gate.request()) << "the first notification starts a refresh";
    for (int i = 0; i < 10000; ++i) EXPECT_FALSE(gate.request());
    EXPECT_TRUE(gate.finish()) << "one more refresh for all of them";
    EXPECT_FALSE(gate.finish()) << "nothing came meanwhile: the gate opens";
    EXPECT_TRUE(gate.request());
}

TEST(ListRefreshGate, AbandonOpensTheGate) {
    ListRefreshGate gate;
    EXPECT_TRUE(gate.request());
    EXPECT_FALSE(gate.request());
    gate.abandon();
    EXPECT_TRUE(gate.request());
    EXPECT_FALSE(gate.finish());
}

TEST(ListRefreshGate, StartsAreSpacedOut) {
    ListRefreshGate gate;
    const auto t0 = ListRefreshGate::Clock::time_point{} + 1h;
    EXPECT_EQ(gate.start_delay(t0, 200ms), 0ms) << "the first refresh starts at once";
    EXPECT_EQ(gate.start_delay(t0 + 50ms, 200ms), 150ms);
    EXPECT_EQ(gate.start_delay(t0 + 250ms, 200ms), 150ms) << "after the one planned at 200 ms";
    EXPECT_EQ(gate.start_delay(t0 + 10s, 200ms), 0ms);
}

}  // namespace
