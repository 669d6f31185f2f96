#include "session/list_refresh_gate.hpp"

namespace mcph::session {

bool ListRefreshGate::request() {
    std::lock_guard lock(mutex_);
    if (running_) {
        dirty_ = true;
        return false;
    }
    running_ = true;
    return true;
}

bool ListRefreshGate::finish() {
    std::lock_guard lock(mutex_);
    if (dirty_) {
        dirty_ = false;
        return true;
    }
    running_ = false;
    return false;
}

void ListRefreshGate::abandon() {
    std::lock_guard lock(mutex_);
    running_ = false;
    dirty_ = false;
}

ListRefreshGate::Clock::duration ListRefreshGate::start_delay(Clock::time_point now, Clock::duration spacing) {
    std::lock_guard lock(mutex_);
    Clock::duration delay{0};
    if (started_before_ && last_start_ + spacing > now) delay = last_start_ + spacing - now;
    started_before_ = true;
    last_start_ = now + delay;
    return delay;
}

}  // namespace mcph::session
