// Who drives the curl loop: the loop thread, or a host thread waiting for a reply (ABI 1.3 pump).
//
// Without pump every reply crossed two threads: the caller queued its message and woke the loop
// thread (a socketpair write), the loop thread ran the transfer and delivered, the host woke the
// caller (a futex). With pump the waiting caller runs the same loop itself: it drains the mailbox
// (its own message), performs, polls the sockets and delivers on its own thread, while the loop
// thread is parked on a condition variable. One driver at a time (the "drive role"), handed over
// under role_mutex_ (which also orders the unlocked engine state between the two threads):
//
//   * The loop thread holds the role while nobody pumps. A pumper that finds it there asks it to
//     hand the role over (mcph/pump_handover.hpp) and wakes its poll (CurlDriver::wakeup): the
//     caller's own send woke the loop thread anyway (notify), so letting it start the transfer
//     and wait for the reply would cost a second wake-up of that thread, not save one (unlike
//     stdio, where nothing the caller does wakes the reader). The loop thread hands over when its
//     poll ends, without performing; if the pumper came while it was delivering, after that
//     delivery; and a reply it delivered just before the pumper came is not waited for (the pump
//     returns OK at once; before, it waited for its slice).
//   * After a pumper gives the role back, the loop thread stays parked for kLoopGrace and then
//     takes the role by itself: back-to-back calls (microseconds apart) keep the role with the
//     callers and nothing wakes the loop thread per call; a notification, a GET stream event or a
//     timer while no call waits is still served within ~2 ms. The grace is timed, never a notify
//     from the pumper: waking the loop thread per call is the cost pump exists to remove.
//   * A send while the loop thread is parked does not wake anything (Engine::notify): the pumper
//     about to call, or the loop thread after its grace, drains the mailbox.
//   * close() (stop) wakes the pumper's poll; the pump returns CLOSED and the loop thread, which
//     ends holding the role, runs the cleanup only once the pumper has left.
#include "engine.hpp"

#include "threads.hpp"  // plugins/io-common

#include <algorithm>

namespace mcph::http {
namespace {

// How long the loop thread stays parked after a pumper last gave the role back (see above).
constexpr auto kLoopGrace = std::chrono::milliseconds(2);
// `top -H`, `ps -L` and the tests tell the loop thread by it (at most 15 bytes).
constexpr const char* kLoopThreadName = "mcph-http-loop";

}  // namespace

// True on an HTTP loop thread: a pump from there (from inside one of its callbacks) is refused.
// Thread-local rather than a stored thread id: the id would be written by start() while the new
// thread may already be running.
thread_local bool t_http_loop_thread = false;

// ---- the loop thread -------------------------------------------------------------------------

// It ends holding the role: the cleanup below runs after any pumper has left. A thread that
// retires (engine_idle.cpp) gave the role up and ends without it: the engine lives on.
void Engine::run() noexcept {
    t_http_loop_thread = true;
    io::name_this_thread(kLoopThreadName);
    quiet_.restart(Clock::now());  // a revived thread waits a whole loopIdleMs before it may retire again
    bool holding = false;  // the role kept after a hand-over nobody waited for any more
    for (;;) {
        if (!holding) take_loop_role();
        holding = true;
        if (stopping_.load() || terminated_) break;
        DriveEnd end = DriveEnd::Stopped;
        try {
            end = drive_loop();
        } catch (const std::exception& e) {
            terminate(MCPH_CLOSE_ERROR, MCPH_FAILURE_OTHER, std::string("internal error in the HTTP transport: ") + e.what());
        }
        if (end == DriveEnd::Retired) return;
        if (stopping_.load() || terminated_) break;
        // false: the pumper left meanwhile; keep driving
        holding = !release_loop_role(end == DriveEnd::HandOverAfterDelivery);
    }
    finish_loop();
}

// The end of the last loop thread (or of close() when none could be started): every transfer
// goes, the legacy session is deleted (bounded), and nobody may drive any more.
void Engine::finish_loop() noexcept {
    abort_all();
    if (stopping_.load() && !terminated_ && !modern_ && !session_id_.empty()) delete_session();
    loop_finished();
}

void Engine::take_loop_role() noexcept {
    std::unique_lock lock(role_mutex_);
    for (;;) {
        if (pumper_) {
            loop_cv_.wait_for(lock, kLoopGrace);
            continue;
        }
        const auto resume_at = released_at_ + kLoopGrace;
        // terminated_ is readable here: nobody holds the role.
        if (!stop_requested_ && !terminated_ && Clock::now() < resume_at) {
            loop_cv_.wait_until(lock, resume_at);
            continue;
        }
        break;  // grace over, or close()/the end: the cleanup is due at once
    }
    loop_driving_ = true;
    driver_.store(Driver::Loop);
}

// Returns on stopping or the end, for a hand-over to a waiting pumper (after a delivery: the
// pumper then returns OK; or with the poll ended and the pumper waiting: it performs what woke the
// poll itself), or when the thread retired.
Engine::DriveEnd Engine::drive_loop() {
    while (!stopping_.load() && !terminated_) {
        const size_t before = delivered_;
        step();
        if (stopping_.load() || terminated_) return DriveEnd::Stopped;
        if (delivered_ != before && handover_.delivered(delivered_ - before)) return DriveEnd::HandOverAfterDelivery;
        if (try_retire()) return DriveEnd::Retired;
        transfers_.poll(quiet_.poll_ms(poll_timeout_ms()));
        if (handover_.wanted()) return DriveEnd::HandOver;
    }
    return DriveEnd::Stopped;
}

// The hand-over: the waiting pumper gets the role. False when no pumper waits any more (it left
// with a reply delivered before it came): the role is kept.
bool Engine::release_loop_role(bool after_delivery) noexcept {
    std::lock_guard lock(role_mutex_);
    if (!handover_.hand_over_locked(after_delivery)) return false;
    loop_driving_ = false;
    driver_.store(Driver::None);
    handoff_cv_.notify_all();
    return true;
}

void Engine::loop_finished() noexcept {
    std::lock_guard lock(role_mutex_);
    loop_driving_ = false;
    loop_done_ = true;
    driver_.store(Driver::None);
    handoff_cv_.notify_all();
}

void Engine::stop() noexcept {
    {
        std::lock_guard lock(role_mutex_);
        stop_requested_ = true;
        loop_cv_.notify_all();
    }
    wake();  // the driver's poll (loop thread or pumper) returns now
}

// ---- pump: a waiting host thread drives ------------------------------------------------------

mcph_status Engine::pump(std::int32_t timeout_ms) noexcept {
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::max<std::int32_t>(timeout_ms, 0));
    if (t_http_loop_thread) return MCPH_BUSY;  // from inside a callback of a loop thread
    // A pump with no send before it on a retired engine: the loop thread comes back first, so
    // whatever this pump leaves running (a stream, a timer) has a driver after it.
    if (role_.retired()) revive(false);
    std::unique_lock lock(role_mutex_);
    if (!started_.load() || stop_requested_ || loop_done_ || stopping_.load() || ended_.load()) return MCPH_ERR_CLOSED;
    if (pumper_) return MCPH_BUSY;
    pumper_ = true;
    if (loop_driving_) {
        // The first call after a quiet spell: the loop thread drives. Woken, it hands the role
        // over and we perform; if it was delivering as we came, it hands over after that, and a
        // reply it delivered before we came is not waited for (OK: the host looks whether it is
        // its own).
        using Outcome = mcph::plugin::PumpHandover::Outcome;
        const Outcome outcome = handover_.wait(lock, handoff_cv_, deadline, [this] { return loop_driving_; },
                                               [this] { wake(); });
        if (loop_driving_) {  // delivered before we came, or timed out: never held (driver_ stays Loop)
            pumper_ = false;
            return outcome == Outcome::timed_out ? MCPH_ERR_TIMEOUT : MCPH_OK;
        }
        if (outcome == Outcome::delivered) {  // handed over after a delivery
            lock.unlock();
            release_pump_role(false);
            return MCPH_OK;
        }
        // handed over before the loop thread performed, or it stopped: we drive (below)
    }
    // The role is ours: terminated_ may be read now (its writer handed the role over under the lock).
    if (stop_requested_ || loop_done_ || terminated_) {
        lock.unlock();
        release_pump_role(terminated_);
        return MCPH_ERR_CLOSED;
    }
    driver_.store(Driver::Pumper);  // before the first drain (notify's ordering, engine.hpp)
    lock.unlock();
    return pump_rounds(deadline);
}

// Drives with the role held until a delivery, the deadline, or the end; then gives the role back.
// Each round is the loop thread's: drain the mailbox, perform, timers and deadlines (so a
// request's own timeout fires under a pump too), then poll the sockets for what is left of the
// slice or until the next timer. Never throws: the role must be released whatever happens.
mcph_status Engine::pump_rounds(Clock::time_point deadline) noexcept {
    mcph_status status = MCPH_ERR_TIMEOUT;
    try {
        delivered_ = 0;
        for (;;) {
            step();
            if (delivered_ > 0 || terminated_) {  // terminated_: on_closed was delivered (unless closing)
                status = terminated_ && stopping_.load() ? MCPH_ERR_CLOSED : MCPH_OK;
                break;
            }
            if (stopping_.load()) {
                status = MCPH_ERR_CLOSED;
                break;
            }
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) break;
            transfers_.poll(static_cast<int>(std::min<long long>(left, poll_timeout_ms())));
        }
    } catch (const std::exception& e) {
        terminate(MCPH_CLOSE_ERROR, MCPH_FAILURE_OTHER, std::string("internal error in the HTTP transport: ") + e.what());
        status = stopping_.load() ? MCPH_ERR_CLOSED : MCPH_OK;
    }
    release_pump_role(terminated_);
    return status;
}

// The role goes back; the parked loop thread resumes by itself after kLoopGrace (no wake-up
// here), unless close() waits for it or the transport `ended`, when it is told at once.
void Engine::release_pump_role(bool ended) noexcept {
    std::lock_guard lock(role_mutex_);
    pumper_ = false;
    driver_.store(Driver::None);
    released_at_ = Clock::now();
    if (stop_requested_ || ended) loop_cv_.notify_all();
}

}  // namespace mcph::http
