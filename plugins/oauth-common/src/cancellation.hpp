// Cancelling the calls in progress on one auth object (plugin ABI 1.2 auth `cancel`).
//
// The host calls `cancel` when it closes a server while one of its threads is inside the auth
// object — typically blocked in the browser step of a sign-in. A cancel must end exactly the calls
// in progress and nothing later, so it is an epoch, not a flag: each call notes the epoch when it
// starts (`begin`), `cancel()` advances it, and a call is cancelled when the epoch moved since its
// start. Blocking waits register a wake function for their duration (`Wake`); one registered
// after the cancel (the call was still doing discovery) fires at once, so no wait of a cancelled
// call ever blocks.
#pragma once

#include "errors.hpp"

#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

namespace mcph::oauth {

class Cancellation {
public:
    using Epoch = uint64_t;

    Epoch begin() const noexcept {
        std::lock_guard<std::mutex> g(mu_);
        return epoch_;
    }
    bool cancelled_since(Epoch started) const noexcept {
        std::lock_guard<std::mutex> g(mu_);
        return epoch_ != started;
    }
    // Throws OAuthError(user_cancelled) when the call that began at `started` was cancelled.
    void check(Epoch started) const {
        if (cancelled_since(started))
            throw OAuthError(FailureKind::user_cancelled, "the sign-in was cancelled (the server is closing)");
    }

    // Wakes every registered wait. Wake functions run under mu_: they must only set their own
    // state and notify, never call back into this object.
    void cancel() noexcept {
        std::lock_guard<std::mutex> g(mu_);
        ++epoch_;
        for (auto& w : wakes_) w();
    }

    // While alive, cancel() calls `wake`; when the call was cancelled before the registration,
    // `wake` runs at once (outside the lock).
    class Wake {
    public:
        Wake(Cancellation* c, Epoch started, std::function<void()> wake) : c_(c) {
            if (!c_) return;
            bool already;
            {
                std::lock_guard<std::mutex> g(c_->mu_);
                it_ = c_->wakes_.insert(c_->wakes_.end(), std::move(wake));
                already = c_->epoch_ != started;
            }
            if (already) (*it_)();
        }
        ~Wake() {
            if (!c_) return;
            std::lock_guard<std::mutex> g(c_->mu_);
            c_->wakes_.erase(it_);
        }
        Wake(const Wake&) = delete;
        Wake& operator=(const Wake&) = delete;

    private:
        Cancellation* c_;
        std::list<std::function<void()>>::iterator it_;
    };

private:
    mutable std::mutex mu_;
    Epoch epoch_ = 0;
    std::list<std::function<void()>> wakes_;
};

// What a flow function needs to honour a cancel: the object's Cancellation and the epoch at which
// the public call began. A default-constructed one never cancels.
struct CancelScope {
    Cancellation* cancellation = nullptr;
    Cancellation::Epoch started = 0;
};

}  // namespace mcph::oauth
