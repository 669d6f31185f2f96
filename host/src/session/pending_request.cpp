// PendingRequest's waits: on the library's RequestResult slot, or on the std::future it was made
// from (or that future() made).
#include <mcph/session.hpp>

#include "jsonrpc/request_result.hpp"

namespace mcph {

Json PendingRequest::get() {
    if (slot_) return slot_->take();
    if (wait_ && result_.valid()) (*wait_)(result_, std::chrono::steady_clock::time_point::max());
    return result_.get();
}

bool PendingRequest::wait_for(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    if (slot_) return slot_->wait_until(deadline);
    if (wait_ && result_.valid()) (*wait_)(result_, deadline);
    return result_.wait_until(deadline) == std::future_status::ready;
}

std::future<Json>& PendingRequest::future() {
    if (slot_) {
        result_ = slot_->bridge();
        slot_.reset();
    }
    return result_;
}

}  // namespace mcph
