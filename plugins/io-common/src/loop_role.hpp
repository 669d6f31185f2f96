// LoopRole: which thread owns a connection's I/O loop, for a connection whose thread retires to
// the plugin's idle watch when quiet (idle_watch.hpp) and is started again for the next event.
//
// The hand-off every such plugin needs, in one place (the Streamable HTTP, legacy SSE and WebSocket
// transports; the HTTP engine's drive role, handed to a pumping caller, sits on top under its own
// mutex, taken after this one):
//   1. The I/O thread arms the watch while it still owns the loop (QuietSpell::arm_watch).
//   2. give_up(): under the role mutex, unless the watch already fired or stop began, it marks the
//      connection retired *before* it looks for requests (queued messages, a close); with one
//      there it takes the mark back and stays, disarming the watch (back-off).
//   3. A caller records its request first and reads retired() after, and revives when it is set.
// So either the caller sees the mark (and starts a thread) or the thread sees the request (and
// stays); nothing recorded in between is left without a thread.
//
// revive() starts the next thread under the mutex (the retired one gave the loop up under it and
// touches nothing after, so joining it there is brief). A thread that cannot be started (EAGAIN at
// the thread limit) leaves the connection retired with a deadline-only watch entry `retry` later:
// the watch tries again until it can, so a quiet connection is never left with nobody to notice
// the server. take_last() ends it all: no thread is started and no retry armed after it.
#pragma once

#include "idle_watch.hpp"
#include "threads.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace mcph::io {

class LoopRole {
public:
    using Body = std::function<void()>;
    // Starts a thread running `body`; throws mcph::plugin::Error at the thread limit. io::start_thread,
    // except in tests, which make it fail.
    using Starter = std::function<std::thread(const char* what, Body body)>;

    LoopRole(IdleWatch& watch, void* owner, IdleWatch::Revive revive, const char* what, Body body,
             std::chrono::milliseconds retry = std::chrono::seconds(1),
             Starter starter = [](const char* what, Body body) { return start_thread(what, std::move(body)); })
        : watch_(watch), owner_(owner), revive_(revive), what_(what), body_(std::move(body)), retry_(retry),
          starter_(std::move(starter)) {}

    // The first thread. Throws mcph::plugin::Error(MCPH_ERR_IO) when it cannot start.
    void start() {
        std::lock_guard lock(mutex_);
        spawn_locked();
    }

    // Set while no thread owns the loop; read without the lock by callers after they record a
    // request (3. above).
    bool retired() const noexcept { return retired_flag_.load(); }

    // [the I/O thread, after the watch was armed] True: the thread gives the loop up and must
    // return at once, touching nothing. `no_requests()` runs under the role mutex after the retired
    // mark is stored (it may take the connection's own locks, never the role mutex). False: the
    // thread stays, and the watch is disarmed again.
    template <class NoRequests>
    bool give_up(NoRequests&& no_requests) {
        std::unique_lock lock(mutex_);
        if (!watch_fired_ && !stopped_) {
            mark_retired(true);  // before the requests are looked at
            if (no_requests()) return true;
            mark_retired(false);
        }
        const bool fired = watch_fired_;
        lock.unlock();
        if (!fired) watch_.disarm(owner_);  // waits out a revive that found the thread still here
        lock.lock();
        watch_fired_ = false;  // no revive runs or comes now: the next retirement starts clean
        return false;
    }

    // From the watch's thread (from_watch: the owner's revive function) or a caller's (after its
    // request). Returns why no thread could be started (the retry is armed), for the owner to
    // report once it holds no lock; nullopt otherwise.
    std::optional<std::string> revive(bool from_watch) noexcept {
        if (!from_watch) watch_.disarm(owner_);  // waits out the watch's own revive of this owner
        std::lock_guard lock(mutex_);
        if (!retired_) {
            if (from_watch) watch_fired_ = true;  // still retiring (give_up sees it), or already back
            return std::nullopt;
        }
        if (stopped_) return std::nullopt;  // the owner cleans up on its stopping thread
        try {
            spawn_locked();
            mark_retired(false);
            return std::nullopt;
        } catch (const std::exception& e) {
            return e.what() + watch_.arm_retry(owner_, revive_, retry_);
        }
    }

    // The thread to join last. From here no thread is started and no retry armed; on return no
    // revive of the owner runs. Afterwards stopped_retired() says whether the loop was left
    // retired (it retired as the stop began, or no thread could be started): the owner then cleans
    // up on its own thread.
    std::thread take_last() noexcept {
        std::thread thread;
        {
            std::lock_guard lock(mutex_);
            stopped_ = true;
            thread = std::move(thread_);
        }
        watch_.disarm(owner_);
        return thread;
    }

    bool stopped_retired() {
        std::lock_guard lock(mutex_);
        return retired_;
    }

    // A thread was started and not yet taken by take_last() (running, or retired).
    bool has_thread() {
        std::lock_guard lock(mutex_);
        return thread_.joinable();
    }

private:
    void spawn_locked() {
        if (thread_.joinable()) thread_.join();
        thread_ = starter_(what_, body_);
    }
    void mark_retired(bool retired) {
        retired_ = retired;
        retired_flag_.store(retired);
    }

    IdleWatch& watch_;
    void* const owner_;
    const IdleWatch::Revive revive_;
    const char* const what_;
    const Body body_;
    const std::chrono::milliseconds retry_;
    const Starter starter_;

    std::mutex mutex_;               // guards what follows, up to retired_flag_
    std::thread thread_;             // the current or the last thread
    bool retired_ = false;           // no thread owns the loop; the watch (or nothing) stands in
    bool watch_fired_ = false;       // the watch revived the owner while its thread was retiring
    bool stopped_ = false;           // take_last() took the last thread
    std::atomic<bool> retired_flag_{false};
};

}  // namespace mcph::io
