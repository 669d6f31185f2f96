// Decides, from the failures a live connection's transport reports, when it is really dead (seed
// 000 §18.8). Each failure arrives already classified (terminal_errors.hpp: typed fields, no text).
//
// The seed closes and reconnects after 3 *consecutive* terminal errors, and any non-terminal error
// resets that count. Here only a failure that proves the server answered resets it; one that says
// nothing either way (FailureMeaning::Unknown) is ignored. That filters one-off network blips, but misses a link that keeps failing in
// between ordinary errors (T, N, T, N, T... never reaches 3 in a row). So a second rule watches a
// sliding window: `window_threshold` terminal errors within `window`, interleaved or not, ask the
// caller for a cheap liveness probe (a JSON-RPC `ping`). A failed probe means reconnect; a
// successful one proves the link works, and the window starts over.
//
// Not thread-safe: the caller (the server's state machine) holds its lock around every call.
#pragma once

#include "connection/terminal_errors.hpp"

#include <chrono>
#include <deque>

namespace mcph::connection {

// Outside the class only because C++ does not allow a nested struct with member initialisers as a
// default argument of its enclosing class; spelled ConnectionHealth::Settings by users.
struct ConnectionHealthSettings {
    int consecutive_threshold = 3;  // terminal errors in a row → Reconnect (the seed's rule)
    int window_threshold = 3;       // terminal errors within `window` → Probe
    std::chrono::seconds window{60};
};

class ConnectionHealth {
public:
    using Clock = std::chrono::steady_clock;
    enum class Action {
        None,       // carry on
        Probe,      // send a `ping` and report its outcome with probe_result()
        Reconnect,  // close the connection (rejecting pending requests) and reconnect
    };
    using Settings = ConnectionHealthSettings;

    // Throws mcph::Error(Usage) if a threshold or the window is not positive.
    explicit ConnectionHealth(Settings s = {});

    // One failure, by what it means (classify_failure()). Asks for at most one probe at a time:
    // while one is outstanding, the answer is None or Reconnect. After Reconnect the state is
    // cleared, as if by reset().
    Action record_failure(FailureMeaning meaning, Clock::time_point now);

    // The outcome of the probe asked for. Ignored (None) when no probe is outstanding, e.g. one
    // that completes after a reset(). Alive → None, and the errors seen so far are forgiven;
    // dead → Reconnect, and the state is cleared.
    Action probe_result(bool alive, Clock::time_point now);

    // A fresh connection: forget everything, including an outstanding probe.
    void reset();

    bool probe_outstanding() const { return probe_outstanding_; }

private:
    void forget_before(Clock::time_point now);
    Action record_terminal(Clock::time_point now);

    Settings settings_;
    int consecutive_ = 0;
    std::deque<Clock::time_point> recent_terminal_;  // oldest first, all within settings_.window
    bool probe_outstanding_ = false;
};

}  // namespace mcph::connection
