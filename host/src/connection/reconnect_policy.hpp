// When and how often a dropped server connection is re-established (seed 000 §18.8): at most
// `max_attempts` tries, waiting initial_backoff, then doubling, never more than max_backoff
// (defaults 1 s → 2 s → 4 s → 8 s → 16 s: about 31 s in all, long enough to ride out a redeploy,
// short enough that a dead server is reported as failed while the user still cares).
//
// The seed resets its attempt counter as soon as a connection succeeds, so a server that crashes
// right after every handshake is restarted forever. CrashLoopGuard adds `stable_after`: only a
// connection that stayed up that long earns a fresh budget.
#pragma once

#include <chrono>
#include <optional>

namespace mcph::connection {

struct ReconnectPolicy {
    int max_attempts = 5;  // 0 turns automatic reconnection off
    std::chrono::milliseconds initial_backoff{1000};
    std::chrono::milliseconds max_backoff{30000};
    // A connection must stay up this long before the attempt counter resets — the crash-loop guard
    // for servers that die right after connecting. 0 resets on every successful connect (the seed).
    std::chrono::milliseconds stable_after{30000};

    // The wait before attempt number `attempt` (1-based): attempt 1 → initial_backoff, then doubling,
    // capped at max_backoff. Values below 1 count as 1.
    std::chrono::milliseconds delay_before(int attempt) const;

    // The defaults, overridden by MCPH_RECONNECT_ATTEMPTS (0..1000), MCPH_RECONNECT_INITIAL_MS,
    // MCPH_RECONNECT_MAX_MS (1..86400000, max ≥ initial) and MCPH_RECONNECT_STABLE_MS (0..86400000).
    // An empty variable counts as unset. Throws mcph::Error(Usage) naming the variable otherwise.
    static ReconnectPolicy from_environment();
};

// The attempt counter of one server, following ReconnectPolicy. Not thread-safe: it belongs to the
// server's state machine, which the caller already serialises.
class CrashLoopGuard {
public:
    using Clock = std::chrono::steady_clock;

    explicit CrashLoopGuard(ReconnectPolicy policy = {});

    // The handshake succeeded: remember when, to judge stability at the next drop.
    void on_connected(Clock::time_point now);

    // The connection dropped. Resets the budget first if it had been up for stable_after.
    // Returns the delay before the next attempt, or nullopt when the budget is spent (mark failed).
    std::optional<std::chrono::milliseconds> on_disconnected(Clock::time_point now);

    // A reconnection attempt failed before the handshake completed: same answer as above.
    std::optional<std::chrono::milliseconds> on_attempt_failed();

    // A manual reconnect (the user asked): a fresh budget.
    void reset();

    int attempts() const { return attempts_; }  // attempts used since the last reset
    const ReconnectPolicy& policy() const { return policy_; }

private:
    std::optional<std::chrono::milliseconds> next_attempt();

    ReconnectPolicy policy_;
    int attempts_ = 0;
    std::optional<Clock::time_point> connected_at_;
};

}  // namespace mcph::connection
