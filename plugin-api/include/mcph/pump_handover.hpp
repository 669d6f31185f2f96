// mcph::plugin::PumpHandover — for a transport plugin that implements `pump` (ABI 1.3) and also
// reads on a thread of its own: how that thread gives the read role to a host thread waiting in
// pump() (docs/plugin-abi.md, "The hand-over").
//
// Why: a pump that finds the plugin's thread reading (the first call after a quiet spell, or every
// call of an agent that calls many servers in turn) used to ask it to yield through a wake-up
// descriptor: a write and a read of that descriptor and the thread's wake-up, before the reply
// had even come. Instead the reading thread stays in its wait; when that wait ends (the reply is
// there, typically) it sees the waiting pumper and hands the role over without reading, and the
// pumper reads and delivers the reply on its own thread, as pump promises. If the pumper came while
// the thread was delivering, the thread hands over after that delivery, and a reply it delivered
// just before the pump came is not waited for: in both cases the pump returns MCPH_OK at once.
//
// The protocol, around the plugin's own role mutex and "the reading thread holds the role" flag:
//   * pumper, role mutex held, that thread holding the role: wait(lock, cv, deadline, holding).
//     delivered: return MCPH_OK (the role is the pumper's if holding() is false now);
//     handed_over: the role is the pumper's, nothing was delivered: read as usual;
//     timed_out: MCPH_ERR_TIMEOUT, the thread keeps the role; reader_stopped: the thread left the
//     role for another reason (the end, close): the pumper holds it and goes on as usual.
//   * reading thread: when its wait for input ends, before reading: if wanted(), hand over;
//     after each round that delivered n > 0 messages: if delivered(n), hand over. To hand over,
//     role mutex held: if hand_over_locked(after_delivery), clear "holding", notify `cv`, park;
//     otherwise the pumper left meanwhile: keep the role and read on.
// The pumper stores `wanted_` and then looks at `delivered_`; the reading thread adds to
// `delivered_` and then looks at `wanted_`. Both sequentially consistent, so at least one of them
// sees the other: a delivery is never missed by a pumper that goes on to wait. Header-only.
#ifndef MCPH_PUMP_HANDOVER_HPP
#define MCPH_PUMP_HANDOVER_HPP

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace mcph::plugin {

class PumpHandover {
public:
    enum class Outcome {
        delivered,       // the reading thread delivered since the previous pump returned (if it
                         // then handed the role over, holding() is false: the role is ours)
        handed_over,     // it gave us the role before reading what woke it: read it ourselves
        timed_out,       // the deadline passed; it still holds the role
        reader_stopped,  // it left the role without a hand-over (the end, close): ours now
    };

    // [pumper; `lock` holds the role mutex; `holding()` is true] Waits on `cv` (released by the
    // reading thread under the role mutex) until `holding()` turns false or `deadline` passes.
    // `nudge()` runs before the wait: a plugin whose thread would otherwise wait long for nothing
    // (one woken anyway by the caller's send, as a curl loop is) ends that wait now.
    template <class Holding, class Nudge>
    Outcome wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 std::chrono::steady_clock::time_point deadline, Holding holding, Nudge nudge) {
        handed_over_ = false;
        wanted_.store(true);
        Outcome outcome = Outcome::delivered;
        if (delivered_.exchange(0) == 0) {
            nudge();
            if (!cv.wait_until(lock, deadline, [&] { return !holding(); })) outcome = Outcome::timed_out;
            else if (!handed_over_) outcome = Outcome::reader_stopped;
            else outcome = handed_over_delivered_ ? Outcome::delivered : Outcome::handed_over;
        }
        wanted_.store(false);
        delivered_.store(0);  // the host looks for its reply after every pump anyway
        handed_over_ = false;
        return outcome;
    }
    template <class Holding>
    Outcome wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 std::chrono::steady_clock::time_point deadline, Holding holding) {
        return wait(lock, cv, deadline, holding, [] {});
    }

    // [reading thread] Before reading what ended its wait: true when a pumper waits (hand over).
    bool wanted() const noexcept { return wanted_.load(); }

    // [reading thread] After a round that delivered `n` messages: true when a pumper waits (end
    // the round and hand over). n = 0 only looks.
    bool delivered(std::size_t n) noexcept {
        delivered_.fetch_add(n);
        return wanted_.load();
    }

    // [reading thread, role mutex held] True: the pumper still waits and now learns that it was
    // handed the role, and whether a delivery came first (give the role up and notify). False: it
    // left meanwhile; keep the role.
    bool hand_over_locked(bool after_delivery) noexcept {
        if (!wanted_.load()) return false;
        handed_over_ = true;
        handed_over_delivered_ = after_delivery;
        return true;
    }

private:
    std::atomic<bool> wanted_{false};        // a pumper waits for the reading thread's role
    std::atomic<std::size_t> delivered_{0};  // messages that thread delivered since a pumper looked
    bool handed_over_ = false;               // role mutex: the role was given to the waiting pumper
    bool handed_over_delivered_ = false;     // role mutex: ... after a delivery
};

}  // namespace mcph::plugin

#endif  // MCPH_PUMP_HANDOVER_HPP
