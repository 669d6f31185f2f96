#include "auth/auth_worker.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace mcph::auth {

// Shared by the owner and the thread: the thread is detached, so an owner destroyed from inside a
// job (the job held the last reference to the AuthSession) never joins itself.
struct AuthWorker::State {
    std::mutex mutex;
    std::deque<std::function<void()>> jobs;
    bool running = false;  // a thread is draining `jobs`
    bool stopped = false;  // the owner is gone: jobs not started yet are dropped
};

AuthWorker::AuthWorker() : state_(std::make_shared<State>()) {}

AuthWorker::~AuthWorker() {
    std::deque<std::function<void()>> dropped;  // destroyed outside the lock
    std::lock_guard lock(state_->mutex);
    state_->stopped = true;
    dropped.swap(state_->jobs);
}

void AuthWorker::post(std::function<void()> job) {
    std::lock_guard lock(state_->mutex);
    if (state_->stopped) return;
    state_->jobs.push_back(std::move(job));
    if (state_->running) return;
    state_->running = true;
    // Started on demand and ended when idle: a server whose tokens are always at hand (the fast
    // path) never has one.
    std::thread([state = state_] { drain(state); }).detach();
}

void AuthWorker::drain(const std::shared_ptr<State>& state) {
    for (;;) {
        std::function<void()> job;
        {
            std::lock_guard lock(state->mutex);
            if (state->jobs.empty() || state->stopped) {
                state->running = false;
                return;
            }
            job = std::move(state->jobs.front());
            state->jobs.pop_front();
        }
        try {
            job();
        } catch (...) {
            // A job answers through its completion, which it owns; nothing to unwind into here.
        }
        job = nullptr;  // its captures (maybe the last AuthSession reference) go before the lock
    }
}

}  // namespace mcph::auth
