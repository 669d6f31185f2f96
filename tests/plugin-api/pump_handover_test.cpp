// mcph/pump_handover.hpp: the hand-over of the read role from a plugin's reading thread to a host
// thread waiting in pump(). The pumper runs on a thread of its own; this thread plays the reading
// thread, and learns that the pumper waits through delivered(0) (which only looks).
#include <mcph/pump_handover.hpp>

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace {

using mcph::plugin::PumpHandover;
using Outcome = PumpHandover::Outcome;
using HandoverClock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The plugin's side of the protocol: its role mutex, the pumper's condition variable, and whether
// the reading thread holds the role.
struct Role {
    std::mutex mutex;
    std::condition_variable cv;
    bool reading = true;
    PumpHandover handover;

    Outcome pump(std::chrono::milliseconds bound) {
        std::unique_lock lock(mutex);
        return handover.wait(lock, cv, HandoverClock::now() + bound, [this] { return reading; });
    }
    // [reading thread] Until a pumper waits (bounded; false if none came).
    bool wait_for_pumper() {
        const auto deadline = HandoverClock::now() + 10s;
        while (!handover.delivered(0))
            if (HandoverClock::now() > deadline) return false;
            else std::this_thread::yield();
        return true;
    }
};

TEST(PumpHandover, ADeliveryBeforeThePumpIsNotWaitedFor) {
    Role role;
    EXPECT_FALSE(role.handover.delivered(1));  // nobody pumps yet
    const auto start = HandoverClock::now();
    EXPECT_EQ(role.pump(10s), Outcome::delivered);
    EXPECT_LT(HandoverClock::now() - start, 5s);
    // Counted once: the next pump waits.
    EXPECT_EQ(role.pump(20ms), Outcome::timed_out);
}

TEST(PumpHandover, APumpTimesOutWhileTheReadingThreadKeepsTheRole) {
    Role role;
    const auto start = HandoverClock::now();
    EXPECT_EQ(role.pump(50ms), Outcome::timed_out);
    EXPECT_GE(HandoverClock::now() - start, 45ms);
}

// The usual case: the reading thread's wait ends (the reply came) with the pumper waiting; it
// hands the role over before reading, and the pumper reads the reply itself.
TEST(PumpHandover, TheReadingThreadHandsTheRoleOverBeforeReadingWhatWokeIt) {
    Role role;
    EXPECT_FALSE(role.handover.wanted());
    auto pumper = std::async(std::launch::async, [&] { return role.pump(10s); });
    ASSERT_TRUE(role.wait_for_pumper());
    EXPECT_TRUE(role.handover.wanted());
    {
        std::lock_guard lock(role.mutex);
        ASSERT_TRUE(role.handover.hand_over_locked(false));
        role.reading = false;
    }
    role.cv.notify_all();
    EXPECT_EQ(pumper.get(), Outcome::handed_over);
    EXPECT_FALSE(role.handover.wanted());
}

// The pumper came while the reading thread was delivering (perhaps the reply): the pump says
// delivered, with the role handed over after that delivery if the pumper was already waiting, or
// at once without it if it saw the delivery first (then no hand-over is made: it left).
TEST(PumpHandover, APumperThatCameDuringADeliveryIsToldItWasDelivered) {
    Role role;
    auto pumper = std::async(std::launch::async, [&] { return role.pump(10s); });
    ASSERT_TRUE(role.wait_for_pumper());
    EXPECT_TRUE(role.handover.delivered(1));
    {
        std::lock_guard lock(role.mutex);
        if (role.handover.hand_over_locked(true)) role.reading = false;
    }
    role.cv.notify_all();
    const auto start = HandoverClock::now();
    EXPECT_EQ(pumper.get(), Outcome::delivered);
    EXPECT_LT(HandoverClock::now() - start, 5s);
}

TEST(PumpHandover, APumperThatLeftIsNotHandedTheRole) {
    Role role;
    role.handover.delivered(1);
    EXPECT_EQ(role.pump(10s), Outcome::delivered);  // left at once, with the earlier delivery
    std::lock_guard lock(role.mutex);
    EXPECT_FALSE(role.handover.hand_over_locked(true));  // so the reading thread keeps the role
}

TEST(PumpHandover, TheReadingThreadStoppingWithoutADeliveryLeavesTheRoleToThePumper) {
    Role role;
    auto pumper = std::async(std::launch::async, [&] { return role.pump(10s); });
    ASSERT_TRUE(role.wait_for_pumper());
    {
        std::lock_guard lock(role.mutex);
        role.reading = false;  // the end of the stream, or close(): no hand-over
    }
    role.cv.notify_all();
    EXPECT_EQ(pumper.get(), Outcome::reader_stopped);
}

}  // namespace
