// start()'s wait for the `endpoint` event: the host thread blocks in wait() while the I/O thread
// opens the stream. The I/O thread settles it once (succeed/fail); wait() settles it itself when
// the deadline passes, so both sides always agree on the outcome.
//
// The deadline covers the network only. While the host's auth hooks run (token refresh, an
// interactive login after a 401) it is paused: those are bounded by the auth plugin, and a
// browser login must not be cut at connectTimeoutMs.
#pragma once

#include <mcph/plugin_api.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace mcph::sse {

class Handshake {
public:
    using Clock = std::chrono::steady_clock;
    struct Result {
        mcph_status status = MCPH_OK;  // MCPH_OK: the endpoint is known, the transport is open
        std::string message;
    };

    // [any thread] A (new) network attempt starts now: it must settle within `window`.
    void arm(std::chrono::milliseconds window);
    // [I/O thread] Waiting for the host's auth hooks: no deadline until the next arm().
    void pause();
    // [I/O thread] False when wait() already gave up (the transport must not open then).
    bool succeed();
    // [I/O thread] No effect once settled.
    void fail(mcph_status status, std::string message);
    // [I/O thread]
    bool pending();

    // [host thread] Blocks until settled or the deadline passes; `on_timeout` builds the message.
    template <class Describe>
    Result wait(Describe on_timeout) {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (state_ != State::Pending) return result_;
            if (Clock::now() >= deadline_) {
                state_ = State::Failed;
                result_ = Result{MCPH_ERR_TIMEOUT, on_timeout()};
                return result_;
            }
            if (deadline_ == Clock::time_point::max()) cv_.wait(lock);
            else cv_.wait_until(lock, deadline_);
        }
    }

private:
    enum class State { Pending, Open, Failed };
    std::mutex mutex_;
    std::condition_variable cv_;
    State state_ = State::Pending;
    Clock::time_point deadline_ = Clock::time_point::max();
    Result result_;
};

}  // namespace mcph::sse
