#include "handshake.hpp"

namespace mcph::sse {

void Handshake::arm(std::chrono::milliseconds window) {
    {
        std::lock_guard lock(mutex_);
        deadline_ = Clock::now() + window;
    }
    cv_.notify_all();
}

void Handshake::pause() {
    {
        std::lock_guard lock(mutex_);
        deadline_ = Clock::time_point::max();
    }
    cv_.notify_all();
}

bool Handshake::succeed() {
    {
        std::lock_guard lock(mutex_);
        if (state_ != State::Pending) return state_ == State::Open;
        state_ = State::Open;
        result_ = Result{};
    }
    cv_.notify_all();
    return true;
}

void Handshake::fail(mcph_status status, std::string message) {
    {
        std::lock_guard lock(mutex_);
        if (state_ != State::Pending) return;
        state_ = State::Failed;
        result_ = Result{status, std::move(message)};
    }
    cv_.notify_all();
}

bool Handshake::pending() {
    std::lock_guard lock(mutex_);
    return state_ == State::Pending;
}

}  // namespace mcph::sse
