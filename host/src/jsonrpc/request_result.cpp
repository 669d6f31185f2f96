#include "jsonrpc/request_result.hpp"

namespace mcph::detail {

void RequestResult::fill(Json result, const Error* error) {
    std::lock_guard lock(mutex_);
    if (ready()) return;
    if (bridge_) {
        if (error) bridge_->set_exception(std::make_exception_ptr(*error));
        else bridge_->set_value(std::move(result));
    } else if (error) {
        error_.emplace(*error);
    } else {
        result_ = std::move(result);
    }
    ready_.store(true, std::memory_order_release);
    filled_.notify_all();
}

bool RequestResult::wait_until(Clock::time_point deadline) {
    if (pump_ && !ready()) (*pump_)([this] { return ready(); }, deadline);
    std::unique_lock lock(mutex_);
    return filled_.wait_until(lock, deadline, [this] { return ready(); });
}

Json RequestResult::take() {
    if (pump_ && !ready()) (*pump_)([this] { return ready(); }, Clock::time_point::max());
    std::unique_lock lock(mutex_);
    filled_.wait(lock, [this] { return ready(); });
    if (taken_) throw std::future_error(std::future_errc::no_state);
    taken_ = true;
    if (error_) throw *error_;
    return std::move(result_);
}

std::future<Json> RequestResult::bridge() {
    std::lock_guard lock(mutex_);
    if (taken_) return {};  // the answer is gone already: an invalid future, as after std::future::get
    taken_ = true;
    std::future<Json> future = bridge_.emplace().get_future();
    if (ready()) {
        if (error_) bridge_->set_exception(std::make_exception_ptr(*error_));
        else bridge_->set_value(std::move(result_));
    }
    return future;
}

OwedResult& OwedResult::operator=(OwedResult&& other) noexcept {
    if (this != &other) {
        abandon();
        slot_ = std::move(other.slot_);
    }
    return *this;
}

void OwedResult::abandon() noexcept {
    if (!slot_ || slot_->ready()) return;
    try {
        const Error dropped(ErrorKind::Connection, "the request was dropped unanswered (its session is gone)");
        slot_->fill(Json(), &dropped);
    } catch (...) {  // allocation of the message: the waiter is told nothing more than before
    }
}

}  // namespace mcph::detail
