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

}  // namespace mcph::session
