// When a connection's I/O thread may retire to the idle watch (idle_watch.hpp): after `idle`
// without progress — the thread's own count of what it did (messages taken, deliveries,
// transfers started or ended...), any change of which starts the spell again — and then only if
// no timer of its own is due within another `idle` (the thread would be back at once).
// arm_watch() is the first half of a retirement, the same in every plugin; the second, giving the
// loop up under the plugin's own lock, differs with what may still wake the connection.
// [the I/O thread only; handed from one thread to the next with the connection's loop]
#pragma once

#include "idle_watch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace mcph::io {

class QuietSpell {
public:
    using Clock = std::chrono::steady_clock;

    explicit QuietSpell(std::chrono::milliseconds idle) : idle_(idle) {}

    bool enabled() const { return idle_.count() > 0 && !off_; }  // idle 0: never retire
    void turn_off() { off_ = true; }                              // the watch could not be set up: for good

    // A thread starts (it waits a whole spell before it may retire), or looked and stayed.
    void restart(Clock::time_point now) { since_ = now; }

    // The spell is over: `progress` has not moved for `idle`.
    bool over(std::uint64_t progress, Clock::time_point now) {
        if (!enabled()) return false;
        if (progress != seen_) {
            seen_ = progress;
            since_ = now;
            return false;
        }
        return now - since_ >= idle_;
    }

    // A timer of the thread's own due this soon keeps it.
    bool too_soon(Clock::time_point deadline, Clock::time_point now) const { return deadline - now < idle_; }

    // The spell is over, `waiting(sockets, deadline)` says the connection only waits for the
    // server (on `sockets`; its next timer lowered into `deadline`), that timer is not too soon,
    // and `watch` is armed for `owner` with both. False: the thread stays, for now; for good when
    // the watch cannot be set up (out of descriptors or threads), and then `say_why(error)` once.
    template <class Waiting, class SayWhy>
    bool arm_watch(IdleWatch& watch, void* owner, IdleWatch::Revive revive, std::uint64_t progress,
                   Clock::time_point now, Waiting&& waiting, SayWhy&& say_why) {
        if (!over(progress, now)) return false;
        std::vector<int> sockets;
        Clock::time_point deadline = Clock::time_point::max();
        if (!waiting(sockets, deadline) || too_soon(deadline, now)) {
            restart(now);  // looked again after another spell
            return false;
        }
        try {
            watch.arm(owner, sockets, revive, deadline);
        } catch (const std::exception& e) {
            turn_off();
            say_why(std::string(e.what()));
            return false;
        }
        return true;
    }

    // `max_ms`, cut to when the spell would be over (the loop looks again then).
    int poll_ms(int max_ms) const {
        if (!enabled()) return max_ms;
        const auto due = std::chrono::ceil<std::chrono::milliseconds>(since_ + idle_ - Clock::now()).count();
        return static_cast<int>(std::clamp<long long>(due, 0, max_ms));
    }

private:
    const std::chrono::milliseconds idle_;
    bool off_ = false;
    std::uint64_t seen_ = 0;
    Clock::time_point since_{};
};

}  // namespace mcph::io
