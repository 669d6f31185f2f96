#include "limit_hint.hpp"
#include "loop_role.hpp"
#include "quiet_spell.hpp"
#include "wakeup.hpp"
#include "../resource_probe.hpp"

#include <gtest/gtest.h>
#include <mcph/plugin_helper.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include <atomic>
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

// ---- LoopRole -------------------------------------------------------------------------------------

constexpr const char* kRoleWatch = "mcph-role-idle";

// A connection in miniature: its "I/O thread" body only counts that it ran; the thread starter may
// be told to fail (EAGAIN at the thread limit, which root cannot reach for real).
struct Connection {
    std::atomic<int> runs{0};
    std::atomic<int> starts{0};
    std::atomic<int> failures_left{0};
    mcph::io::IdleWatch& watch = mcph::io::IdleWatch::instance(kRoleWatch);
    mcph::io::LoopRole role{watch, this, &Connection::revive_from_watch, "the test loop thread", [this] { ++runs; },
                            std::chrono::milliseconds(20), [this](const char* what, mcph::io::LoopRole::Body body) {
                                ++starts;
                                if (failures_left.load() > 0) {
                                    --failures_left;
                                    throw mcph::plugin::Error(MCPH_ERR_IO, std::string("cannot start ") + what + ": EAGAIN");
                                }
                                return std::thread(std::move(body));
                            }};
    static void revive_from_watch(void* self) { static_cast<Connection*>(self)->role.revive(true); }
    bool wait_runs(int n) const {
        for (int i = 0; i < 1000 && runs.load() < n; ++i) std::this_thread::sleep_for(5ms);
        return runs.load() >= n;
    }
    // A revive from the watch marks the loop owned after the new thread started, so its body may
    // run first: wait for the mark.
    bool wait_owned() const {
        for (int i = 0; i < 1000 && role.retired(); ++i) std::this_thread::sleep_for(5ms);
        return !role.retired();
    }
};

// Whether the watch holds no entry: stop_if_unused() ends its thread only then (and at once).
bool watch_is_empty() {
    mcph::io::IdleWatch::instance(kRoleWatch).stop_if_unused();
    return mcph_test::threads_named(kRoleWatch) == 0;
}

TEST(LoopRole, GivesUpOnlyWithoutRequestsMarkingItselfRetiredBeforeItLooks) {
    Connection c;
    c.role.start();
    ASSERT_TRUE(c.wait_runs(1));
    const int fd = ::eventfd(0, EFD_CLOEXEC);
    const int fds[] = {fd};
    c.watch.arm(&c, fds, &Connection::revive_from_watch);
    bool marked_when_asked = false;
    EXPECT_FALSE(c.role.give_up([&] {
        marked_when_asked = c.role.retired();
        return false;  // a request came: stay
    }));
    EXPECT_TRUE(marked_when_asked) << "a sender that pushed after the look must see the mark";
    EXPECT_FALSE(c.role.retired());
    EXPECT_TRUE(watch_is_empty()) << "backing off disarms the watch";

    c.watch.arm(&c, fds, &Connection::revive_from_watch);
    EXPECT_TRUE(c.role.give_up([] { return true; }));
    EXPECT_TRUE(c.role.retired());
    EXPECT_FALSE(c.role.revive(false)) << "a caller's revive starts the next thread";
    EXPECT_TRUE(c.wait_runs(2));
    EXPECT_FALSE(c.role.retired());
    EXPECT_TRUE(watch_is_empty()) << "the caller's revive disarmed the watch";
    c.role.take_last().join();
    ::close(fd);
}

// The watch fired while the thread was still deciding: it stays (once), however quiet.
TEST(LoopRole, AReviveFromTheWatchWhileRetiringKeepsTheThread) {
    Connection c;
    c.role.start();
    c.role.revive(true);  // not retired yet: only noted
    EXPECT_FALSE(c.role.give_up([] { return true; }));
    EXPECT_FALSE(c.role.retired());
    EXPECT_TRUE(c.role.give_up([] { return true; })) << "the note is used up by one back-off";
    c.role.take_last().join();
    EXPECT_TRUE(c.role.stopped_retired()) << "it was left retired: its owner cleans up";
}

// No thread can be started: the connection stays retired, the failure says so, and the watch
// tries again every `retry` until a thread starts.
TEST(LoopRole, AThreadThatCannotStartIsTriedAgainFromTheWatch) {
    Connection c;
    c.role.start();
    ASSERT_TRUE(c.role.give_up([] { return true; }));
    c.failures_left = 1000;
    const auto failed = c.role.revive(false);
    ASSERT_TRUE(failed.has_value());
    EXPECT_EQ(failed->rfind("cannot start the test loop thread: EAGAIN; tried again every 20 ms", 0), 0u) << *failed;
    EXPECT_TRUE(c.role.retired()) << "no thread: the loop stays retired";
    const int tried = c.starts.load();
    c.failures_left = 2;  // the next two tries fail too, then one runs
    ASSERT_TRUE(c.wait_runs(2)) << "the watch never tried again";
    EXPECT_TRUE(c.wait_owned()) << "the thread that started does not own the loop";
    EXPECT_GE(c.starts.load(), tried + 3) << "two more failed tries, then the one that ran";
    c.role.take_last().join();
}

// take_last(): no thread and no retry after it, even with a retry armed when it came.
TEST(LoopRole, TakeLastEndsRevivesAndRetries) {
    Connection c;
    c.role.start();
    ASSERT_TRUE(c.role.give_up([] { return true; }));
    c.failures_left = 1000;
    ASSERT_TRUE(c.role.revive(false).has_value());  // a retry is armed
    std::thread last = c.role.take_last();
    ASSERT_FALSE(last.joinable()) << "the failed start left no thread to join";
    const int starts = c.starts.load();
    EXPECT_FALSE(c.role.revive(false).has_value());
    EXPECT_FALSE(c.role.revive(true).has_value());
    EXPECT_EQ(c.starts.load(), starts) << "nothing is started after take_last";
    EXPECT_TRUE(watch_is_empty()) << "the retry was disarmed";
    EXPECT_TRUE(c.role.stopped_retired());
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
