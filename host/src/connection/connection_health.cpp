#include "connection/connection_health.hpp"

#include <mcph/error.hpp>

namespace mcph::connection {

ConnectionHealth::ConnectionHealth(Settings s) : settings_(s) {
    if (s.consecutive_threshold < 1 || s.window_threshold < 1 || s.window.count() <= 0)
        throw Error(ErrorKind::Usage, "connection health: thresholds and the window must be positive");
}

ConnectionHealth::Action ConnectionHealth::record_failure(FailureMeaning meaning, Clock::time_point now) {
    forget_before(now);
    switch (meaning) {
        case FailureMeaning::LinkBroken: return record_terminal(now);
        case FailureMeaning::ServerAnswered:
            // The link carried a full round trip: the run of terminal errors is broken. The window
            // keeps its entries: that is exactly what it is for.
            consecutive_ = 0;
            return Action::None;
        case FailureMeaning::Unknown: break;  // proves nothing about the link
    }
    return Action::None;
}

ConnectionHealth::Action ConnectionHealth::record_terminal(Clock::time_point now) {
    ++consecutive_;
    recent_terminal_.push_back(now);
    if (consecutive_ >= settings_.consecutive_threshold) {
        reset();
        return Action::Reconnect;
    }
    if (probe_outstanding_ || static_cast<int>(recent_terminal_.size()) < settings_.window_threshold)
        return Action::None;
    probe_outstanding_ = true;
    return Action::Probe;
}

// `now` is unused today: the outcome alone decides. It is in the signature so a later rule (e.g. a
// probe that took too long counts as dead) needs no caller change.
ConnectionHealth::Action ConnectionHealth::probe_result(bool alive, Clock::time_point /*now*/) {
    if (!probe_outstanding_) return Action::None;
    probe_outstanding_ = false;
    if (!alive) {
        reset();
        return Action::Reconnect;
    }
    // A ping round trip succeeded after the window filled: the earlier errors were not the link's.
    recent_terminal_.clear();
    consecutive_ = 0;
    return Action::None;
}

void ConnectionHealth::reset() {
    consecutive_ = 0;
    recent_terminal_.clear();
    probe_outstanding_ = false;
}

// Errors exactly `window` old have left the window.
void ConnectionHealth::forget_before(Clock::time_point now) {
    while (!recent_terminal_.empty() && now - recent_terminal_.front() >= settings_.window)
        recent_terminal_.pop_front();
}

}  // namespace mcph::connection
