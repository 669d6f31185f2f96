#include "connection/reachability_watch.hpp"

#include "connection/reachability.hpp"

#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

namespace mcph::connection {

std::chrono::milliseconds ReachabilityWatch::slow_after(std::chrono::milliseconds timeout) {
    return std::max(timeout / 5, std::chrono::milliseconds(1));
}

ReachabilityWatch::ReachabilityWatch(std::string url, std::chrono::milliseconds timeout, std::function<void()> abort)
    : url_(std::move(url)), timeout_(timeout), abort_(std::move(abort)) {}

std::shared_ptr<ReachabilityWatch> ReachabilityWatch::arm(boost::asio::io_context& loop, std::string url,
                                                          std::chrono::milliseconds timeout, std::function<void()> abort) {
    auto watch = std::make_shared<ReachabilityWatch>(std::move(url), timeout, std::move(abort));
    // Never cancelled: a timer touched from two threads is not safe in asio, and one that fires
    // after the attempt settled does nothing. The handler owns the timer; the watch it only sees.
    auto timer = std::make_shared<boost::asio::steady_timer>(loop, slow_after(timeout));
    std::weak_ptr<ReachabilityWatch> weak = watch;
    timer->async_wait([weak, timer](const boost::system::error_code& ec) {
        if (ec) return;
        if (auto self = weak.lock()) self->on_slow();
    });
    return watch;
}

// On the event loop: the attempt is slow. The probe blocks (up to the budget), so it gets a
// thread of its own — only slow attempts ever pay for one.
void ReachabilityWatch::on_slow() {
    {
        std::lock_guard lock(mutex_);
        if (settled_ || phase_ != Phase::Armed) return;
        phase_ = Phase::Probing;
    }
    try {
        std::thread([self = shared_from_this()] { self->probe(); }).detach();
    } catch (const std::system_error&) {
        // No thread to spare: settle_failure runs the check itself, when the attempt ends.
        std::lock_guard lock(mutex_);
        phase_ = Phase::Armed;
    }
}

void ReachabilityWatch::probe() {
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
    std::optional<std::string> problem;
    try {
        problem = check_reachable(url_, timeout_, spent);
    } catch (const std::exception&) {
        // Out of memory or the like: no verdict, the attempt's own error stands.
    }
    std::lock_guard lock(mutex_);
    phase_ = Phase::Probed;
    verdict_ = problem;
    // Under the lock: settle_* cannot begin while the attempt is being aborted, so an abort
    // never reaches a session that already counts as connected.
    if (problem && !settled_) {
        aborted_ = true;
        try {
            abort_();
        } catch (const std::exception&) {
            // A transport that cannot be closed now: the attempt ends by its own timeout, and
            // settle_failure still reports this verdict. Never let it escape a detached thread.
        }
    }
    probed_.notify_all();
}

std::optional<std::string> ReachabilityWatch::settle_success() {
    std::lock_guard lock(mutex_);
    settled_ = true;
    return aborted_ ? verdict_ : std::nullopt;
}

std::optional<std::string> ReachabilityWatch::settle_failure() {
    std::unique_lock lock(mutex_);
    settled_ = true;
    if (phase_ == Phase::Armed) {
        phase_ = Phase::Probed;  // a timer firing now finds the check done
        lock.unlock();
        return check_reachable(url_, timeout_);  // after the failure: a fresh, whole budget
    }
    // The probe ends by its deadline; the slack only covers scheduling.
    probed_.wait_until(lock, started_ + timeout_ + std::chrono::milliseconds(500), [&] { return phase_ == Phase::Probed; });
    return verdict_;
}

}  // namespace mcph::connection
