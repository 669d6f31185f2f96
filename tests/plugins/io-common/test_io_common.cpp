#include "limit_hint.hpp"
#include "quiet_spell.hpp"
#include "wakeup.hpp"

#include <gtest/gtest.h>
#include <mcph/plugin_helper.hpp>

#include <poll.h>
#include <sys/resource.h>

#include <cerrno>
#include <string>

namespace {

using namespace std::chrono_literals;
using mcph::io::QuietSpell;
using Clock = QuietSpell::Clock;

bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

// ---- QuietSpell ----------------------------------------------------------------------------------

TEST(QuietSpell, IsOverOnlyAfterAWholeSpellWithoutProgress) {
    QuietSpell quiet(100ms);
    const auto t0 = Clock::now();
    quiet.restart(t0);
    EXPECT_FALSE(quiet.over(0, t0 + 99ms));
    EXPECT_TRUE(quiet.over(0, t0 + 100ms));
    EXPECT_FALSE(quiet.over(1, t0 + 150ms)) << "progress starts the spell again";
    EXPECT_FALSE(quiet.over(1, t0 + 249ms));
    EXPECT_TRUE(quiet.over(1, t0 + 250ms));
}

TEST(QuietSpell, ZeroOrTurnedOffNeverRetires) {
    QuietSpell never(0ms);
    EXPECT_FALSE(never.enabled());
    EXPECT_FALSE(never.over(0, Clock::now() + 24h));
    EXPECT_EQ(never.poll_ms(1000), 1000);

    QuietSpell off(10ms);
    off.restart(Clock::now());
    off.turn_off();
    EXPECT_FALSE(off.enabled());
    EXPECT_FALSE(off.over(0, Clock::now() + 1h));
    EXPECT_EQ(off.poll_ms(1000), 1000);
}

TEST(QuietSpell, PollIsCutToTheEndOfTheSpell) {
    QuietSpell quiet(2000ms);
    quiet.restart(Clock::now());
    const int ms = quiet.poll_ms(1000);
    EXPECT_EQ(ms, 1000) << "the loop's own bound is shorter";
    quiet.restart(Clock::now() - 1900ms);
    EXPECT_LE(quiet.poll_ms(1000), 100);
    EXPECT_GE(quiet.poll_ms(1000), 0);
    quiet.restart(Clock::now() - 1h);
    EXPECT_EQ(quiet.poll_ms(1000), 0) << "over already: look now";
}

TEST(QuietSpell, ATimerDueWithinTheNextSpellKeepsTheThread) {
    QuietSpell quiet(100ms);
    const auto now = Clock::now();
    EXPECT_TRUE(quiet.too_soon(now + 99ms, now));
    EXPECT_FALSE(quiet.too_soon(now + 100ms, now));
    EXPECT_FALSE(quiet.too_soon(Clock::time_point::max(), now)) << "no timer at all";
}

// arm_watch: nothing is armed before the spell is over, or while the connection waits for more
// than the server, or with a timer too soon; and when it is armed, the watch has the owner.
TEST(QuietSpell, ArmWatchArmsOnlyWhenQuietAndOnlyWaitingForTheServer) {
    auto& watch = mcph::io::IdleWatch::instance("mcph-test-idle");
    int owner = 0;
    auto never_revived = [](void*) {};
    std::string said;
    auto say = [&](const std::string& why) { said = why; };
    QuietSpell quiet(100ms);
    const auto t0 = Clock::now();
    quiet.restart(t0);
    int asked = 0;
    auto waiting = [&](bool answer, Clock::time_point timer) {
        return [&asked, answer, timer](std::vector<int>&, Clock::time_point& deadline) {
            ++asked;
            deadline = std::min(deadline, timer);
            return answer;
        };
    };
    EXPECT_FALSE(quiet.arm_watch(watch, &owner, never_revived, 0, t0 + 50ms, waiting(true, Clock::time_point::max()), say));
    EXPECT_EQ(asked, 0) << "the spell is not over: not even asked";
    EXPECT_FALSE(quiet.arm_watch(watch, &owner, never_revived, 0, t0 + 100ms, waiting(false, Clock::time_point::max()), say));
    EXPECT_EQ(asked, 1);
    EXPECT_FALSE(quiet.over(0, t0 + 150ms)) << "a look that found more to wait for starts the spell again";
    const auto t1 = t0 + 200ms;
    EXPECT_FALSE(quiet.arm_watch(watch, &owner, never_revived, 0, t1, waiting(true, t1 + 50ms), say)) << "a timer too soon";
    const auto t2 = t1 + 100ms;
    EXPECT_TRUE(quiet.arm_watch(watch, &owner, never_revived, 0, t2, waiting(true, t2 + 1h), say));
    EXPECT_TRUE(said.empty());
    watch.disarm(&owner);
    watch.stop_if_unused();
}

// ---- Wakeup ---------------------------------------------------------------------------------------

TEST(Wakeup, StaysReadableOnceSignalledUntilCleared) {
    mcph::io::Wakeup w;
    EXPECT_FALSE(readable(w.fd()));
    w.signal();
    w.signal();
    EXPECT_TRUE(readable(w.fd()));
    EXPECT_TRUE(readable(w.fd())) << "looking does not clear it";
    w.clear();
    EXPECT_FALSE(readable(w.fd()));
    w.clear();  // already clear: nothing to read, no error
    EXPECT_FALSE(readable(w.fd()));
}

// ---- limit_hint -----------------------------------------------------------------------------------

TEST(LimitHint, NamesTheLimitItsValueAndWhatAConnectionCosts) {
    rlimit lim{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
    const std::string files = mcph::io::limit_hint(EMFILE, {"each server holds 2 descriptors", ""});
    EXPECT_NE(files.find("RLIMIT_NOFILE is reached (soft " + std::to_string(lim.rlim_cur)), std::string::npos) << files;
    EXPECT_NE(files.find("; each server holds 2 descriptors): raise"), std::string::npos) << files;
    EXPECT_EQ(mcph::io::limit_hint(EMFILE).find("each server"), std::string::npos) << "no cost given, none said";
    EXPECT_NE(mcph::io::limit_hint(EAGAIN, {"", "each server runs 1 thread"}).find("RLIMIT_NPROC"), std::string::npos);
    EXPECT_NE(mcph::io::limit_hint(EAGAIN, {"", "each server runs 1 thread"}).find("each server runs 1 thread"),
              std::string::npos);
    EXPECT_NE(mcph::io::limit_hint(ENFILE).find("fs.file-max"), std::string::npos);
    EXPECT_EQ(mcph::io::limit_hint(ENOENT), "");
}

TEST(LimitHint, ThrowSystemErrorIsAnIoErrorWithTheHint) {
    try {
        mcph::io::throw_system_error(EMFILE, "eventfd");
        FAIL();
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_IO);
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("eventfd: Too many open files; the per-process open-file limit", 0), 0u) << what;
    }
}

}  // namespace
