#include "runtime/runtime.hpp"

namespace mcph::runtime {

Runtime::Runtime() : work_(boost::asio::make_work_guard(loop_)), loop_thread_([this] { loop_.run(); }) {}

Runtime::~Runtime() { stop(); }

// Two threads per pool: one server's elicitation waiting on a person must not stall another's
// roots/list answer.
void Runtime::post_to(std::optional<boost::asio::thread_pool>& pool, std::function<void()> fn) {
    std::lock_guard lock(pools_mutex_);
    if (stopped_) return;
    if (!pool) pool.emplace(2);
    boost::asio::post(*pool, std::move(fn));
}

void Runtime::stop() {
    {
        std::lock_guard lock(pools_mutex_);
        if (stopped_) return;
        stopped_ = true;  // no pool is created nor posted to from here on
    }
    // Queued callbacks of closed sessions are dropped, running ones finish. Joined without the
    // lock: a running task may itself post (and then sees stopped_).
    for (auto* pool : {&callbacks_, &background_})
        if (*pool) (*pool)->stop();
    for (auto* pool : {&callbacks_, &background_})
        if (*pool) (*pool)->join();
    work_.reset();
    loop_.stop();
    if (loop_thread_.joinable()) loop_thread_.join();
}

}  // namespace mcph::runtime
