#include "connection/reconnect_policy.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"

#include <cstdlib>
#include <optional>
#include <string>

namespace {

using mcph::test::ScopedEnv;

using mcph::connection::CrashLoopGuard;
using mcph::connection::ReconnectPolicy;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Sets (or unsets, for nullptr) one variable for the scope, restoring what was there before.

struct CleanEnv {
    ScopedEnv a{"MCPH_RECONNECT_ATTEMPTS", nullptr};
    ScopedEnv b{"MCPH_RECONNECT_INITIAL_MS", nullptr};
    ScopedEnv c{"MCPH_RECONNECT_MAX_MS", nullptr};
    ScopedEnv d{"MCPH_RECONNECT_STABLE_MS", nullptr};
};

TEST(ReconnectPolicy, DefaultsAreTheSeedsConstants) {
    ReconnectPolicy p;
    EXPECT_EQ(p.max_attempts, 5);
    EXPECT_EQ(p.initial_backoff, milliseconds(1000));
    EXPECT_EQ(p.max_backoff, milliseconds(30000));
    EXPECT_EQ(p.stable_after, milliseconds(30000));
}

TEST(ReconnectPolicy, DelayDoublesFromInitialAndIsCapped) {
    ReconnectPolicy p;
    const struct {
        int attempt;
        long long ms;
    } cases[] = {{1, 1000}, {2, 2000}, {3, 4000}, {4, 8000}, {5, 16000}, {6, 30000}, {7, 30000}, {1000000, 30000},
                 {0, 1000},  {-3, 1000}};
    for (const auto& c : cases) EXPECT_EQ(p.delay_before(c.attempt), milliseconds(c.ms)) << "attempt " << c.attempt;
}

TEST(ReconnectPolicy, CapBelowADoublingStepIsExact) {
    ReconnectPolicy p;
    p.initial_backoff = milliseconds(300);
    p.max_backoff = milliseconds(1000);
    EXPECT_EQ(p.delay_before(3), milliseconds(1000));  // 1200 capped
    EXPECT_EQ(p.delay_before(2), milliseconds(600));
}

TEST(ReconnectPolicy, EnvironmentUnsetOrEmptyGivesDefaults) {
    CleanEnv clean;
    ScopedEnv empty("MCPH_RECONNECT_ATTEMPTS", "");
    ReconnectPolicy p = ReconnectPolicy::from_environment();
    EXPECT_EQ(p.max_attempts, 5);
    EXPECT_EQ(p.max_backoff, milliseconds(30000));
}

TEST(ReconnectPolicy, EnvironmentOverridesEachField) {
    CleanEnv clean;
    ScopedEnv a("MCPH_RECONNECT_ATTEMPTS", "0");
    ScopedEnv b("MCPH_RECONNECT_INITIAL_MS", "250");
    ScopedEnv c("MCPH_RECONNECT_MAX_MS", "4000");
    ScopedEnv d("MCPH_RECONNECT_STABLE_MS", "0");
    ReconnectPolicy p = ReconnectPolicy::from_environment();
    EXPECT_EQ(p.max_attempts, 0);
    EXPECT_EQ(p.initial_backoff, milliseconds(250));
    EXPECT_EQ(p.max_backoff, milliseconds(4000));
    EXPECT_EQ(p.stable_after, milliseconds(0));
}

TEST(ReconnectPolicy, InvalidEnvironmentValueNamesTheVariable) {
    const struct {
        const char* name;
        const char* value;
    } cases[] = {
        {"MCPH_RECONNECT_ATTEMPTS", "five"},    {"MCPH_RECONNECT_ATTEMPTS", "-1"},
        {"MCPH_RECONNECT_ATTEMPTS", "5 "},      {"MCPH_RECONNECT_ATTEMPTS", "1001"},
        {"MCPH_RECONNECT_INITIAL_MS", "0"},     {"MCPH_RECONNECT_INITIAL_MS", "1s"},
        {"MCPH_RECONNECT_MAX_MS", "0"},         {"MCPH_RECONNECT_MAX_MS", "99999999999999999999"},
        {"MCPH_RECONNECT_MAX_MS", "500"},  // below the default initial backoff of 1000
        {"MCPH_RECONNECT_STABLE_MS", "-5"},     {"MCPH_RECONNECT_STABLE_MS", "+5"},
    };
    for (const auto& c : cases) {
        CleanEnv clean;
        ScopedEnv set(c.name, c.value);
        try {
            ReconnectPolicy::from_environment();
            ADD_FAILURE() << c.name << "=" << c.value << " was accepted";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(c.name), std::string::npos) << e.what();
        }
    }
}

TEST(CrashLoopGuard, SpendsTheBudgetThenGivesUp) {
    CrashLoopGuard guard;
    const long long expected[] = {1000, 2000, 4000, 8000, 16000};
    for (long long ms : expected) EXPECT_EQ(guard.on_attempt_failed(), milliseconds(ms));
    EXPECT_EQ(guard.on_attempt_failed(), std::nullopt);
    EXPECT_EQ(guard.attempts(), 5);
}

TEST(CrashLoopGuard, ServerDyingRightAfterConnectingKeepsUsingTheBudget) {
    CrashLoopGuard guard;
    Clock::time_point t{};
    for (int i = 0; i < 5; ++i) {
        guard.on_connected(t);
        t += std::chrono::seconds(2);  // up for 2 s, well under stable_after
        EXPECT_TRUE(guard.on_disconnected(t).has_value()) << "drop " << i;
    }
    guard.on_connected(t);
    EXPECT_EQ(guard.on_disconnected(t + std::chrono::seconds(1)), std::nullopt) << "the crash loop must end";
}

TEST(CrashLoopGuard, StableConnectionEarnsAFreshBudget) {
    CrashLoopGuard guard;
    for (int i = 0; i < 4; ++i) guard.on_attempt_failed();
    Clock::time_point t{};
    guard.on_connected(t);
    EXPECT_EQ(guard.on_disconnected(t + std::chrono::seconds(30)), milliseconds(1000));
    EXPECT_EQ(guard.attempts(), 1);
}

TEST(CrashLoopGuard, DisconnectWithoutConnectDoesNotReset) {
    CrashLoopGuard guard;
    guard.on_attempt_failed();
    guard.on_attempt_failed();
    EXPECT_EQ(guard.on_disconnected(Clock::time_point{} + std::chrono::hours(1)), milliseconds(4000));
}

TEST(CrashLoopGuard, ZeroAttemptsNeverReconnectsAndResetRestoresTheBudget) {
    ReconnectPolicy none;
    none.max_attempts = 0;
    EXPECT_EQ(CrashLoopGuard(none).on_attempt_failed(), std::nullopt);

    CrashLoopGuard guard;
    for (int i = 0; i < 5; ++i) guard.on_attempt_failed();
    guard.reset();
    EXPECT_EQ(guard.attempts(), 0);
    EXPECT_EQ(guard.on_attempt_failed(), milliseconds(1000));
}

}  // namespace
