// The loop thread of a quiet transport ends; the plugin's idle watch waits in its place.
//
// Each Streamable HTTP transport used to keep its loop thread for as long as it was connected,
// busy or not: 200 remote servers meant 200 threads. Now a loop thread that has seen no progress
// (no command, delivery, or transfer started or ended) for `loopIdleMs` (default 2000, 0: never)
// retires when what is left only waits for the server — the legacy era's GET stream, a 2026-era
// subscriptions/listen, a long tool call's response, or nothing at all — with no POST waiting for a
// slot, no auth answer pending and no timer due within another loopIdleMs. It hands the
// transfers' sockets and the earliest timer (a reconnect, a request's deadline, libcurl's own) to
// the plugin's idle watch (plugins/io-common/src/idle_watch.hpp, one thread for every transport of
// the plugin) and ends. What brings a loop thread back:
//   * the watch: a byte, a hang-up or an error on one of those sockets, or the timer;
//   * a send (notify()), set_option or cancel — anything put in the mailbox;
//   * a pump that came without a send (pump()), and close(), whose cleanup runs on a loop thread.
// While retired nobody touches the multi handle, so the sockets the watch holds stay open.
//
// The hand-off mirrors the stdio reader's (plugins/transport-stdio/README.md, "idle watch"): the
// watch is armed while the role is still held, then under role_mutex_ the thread gives the role up
// unless the watch already fired, a pumper came, close() began or the mailbox is not empty; the
// retired flag is stored before the mailbox is looked at, and a sender pushes before it reads the
// flag, so either the sender sees the flag (and revives) or the thread sees the message (and stays).
#include "engine.hpp"

#include "idle_watch.hpp"
#include "threads.hpp"

#include <sys/select.h>

#include <algorithm>

namespace mcph::http {
namespace {

constexpr const char* kIdleWatchThreadName = "mcph-http-idle";  // at most 15 bytes

io::IdleWatch& idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

}  // namespace

void stop_idle_watch_if_unused() noexcept { idle_watch().stop_if_unused(); }

void Engine::start_loop() {
    std::lock_guard lock(role_mutex_);
    spawn_loop_locked();
    started_.store(true);
}

// A retired thread gave the role up under role_mutex_ and touches nothing after that: joining it
// here, under the mutex, is brief.
void Engine::spawn_loop_locked() {
    if (loop_thread_.joinable()) loop_thread_.join();
    loop_thread_ = io::start_thread("the HTTP loop thread", [this] { run(); });
}

void Engine::join_loop() noexcept {
    // stop() came first: no thread retires from here on (try_retire looks at stop_requested_).
    bool cleanup_here = false;
    if (retired_flag_.load()) {
        revive(false);
        std::lock_guard lock(role_mutex_);
        cleanup_here = retired_;  // no thread could be started: the cleanup runs on this one
    }
    std::thread thread;
    {
        std::lock_guard lock(role_mutex_);
        thread = std::move(loop_thread_);
    }
    if (thread.joinable()) thread.join();
    if (cleanup_here) finish_loop();
    idle_watch().disarm(this);  // armed by a retirement that backed off meanwhile: gone now
}

int Engine::idle_poll_ms(int poll_ms) const {
    if (config_.loop_idle.count() <= 0 || idle_off_) return poll_ms;
    const auto due = std::chrono::ceil<std::chrono::milliseconds>(quiet_since_ + config_.loop_idle - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(due, 0, poll_ms));
}

bool Engine::try_retire() {
    if (config_.loop_idle.count() <= 0 || idle_off_) return false;
    const auto now = Clock::now();
    if (progress_ != seen_progress_) {
        seen_progress_ = progress_;
        quiet_since_ = now;
        return false;
    }
    if (now - quiet_since_ < config_.loop_idle) return false;
    std::vector<int> sockets;
    Clock::time_point deadline = Clock::time_point::max();
    if (!only_waiting_for_the_server(sockets, deadline) || deadline - now < config_.loop_idle) {
        quiet_since_ = now;  // looked again after another loopIdleMs
        return false;
    }
    {
        std::lock_guard lock(role_mutex_);
        watch_fired_ = false;
    }
    try {
        idle_watch().arm(this, sockets, [](void* self) { static_cast<Engine*>(self)->revive(true); }, deadline);
    } catch (const std::exception& e) {
        // Out of descriptors or threads: this transport keeps its loop thread from now on.
        idle_off_ = true;
        diagnostic(MCPH_LOG_INFO, std::string("the HTTP loop thread stays (loopIdleMs is off for this server): ") + e.what());
        return false;
    }
    std::unique_lock lock(role_mutex_);
    if (!watch_fired_ && !pumper_ && !stop_requested_) {
        retired_ = true;
        retired_flag_.store(true);  // before the mailbox is looked at (see the top of this file)
        if (mailbox_.empty()) {
            loop_driving_ = false;
            driver_.store(Driver::None);
            handoff_cv_.notify_all();
            return true;
        }
        retired_ = false;
        retired_flag_.store(false);
    }
    const bool fired = watch_fired_;
    lock.unlock();
    if (!fired) idle_watch().disarm(this);  // waits out a revive that found the thread still here
    quiet_since_ = now;
    return false;
}

// Every transfer waits to read from the server, each on a socket of its own, and nothing else
// waits for this thread; `deadline`: the earliest timer. The sockets come from curl_multi_fdset,
// libcurl 7.88's only way to name the sockets of transfers in progress (CURLINFO_ACTIVESOCKET
// names a finished transfer's connection; curl_multi_waitfds came with 8.8). It leaves out
// descriptors above FD_SETSIZE - 1, so fewer sockets than transfers (that, or HTTP/2 sharing one)
// keeps the thread; so does a socket libcurl waits to write on (the watch waits for input only).
bool Engine::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) const {
    if (!mailbox_.empty() || !parked_.empty() || !parked_retries_.empty() || !waiting_requests_.empty() ||
        !waiting_others_.empty() || handshake_holds_ > 0 || listen_pending_)
        return false;
    long curl_timeout_ms = -1;
    if (curl_multi_timeout(transfers_.multi(), &curl_timeout_ms) != CURLM_OK) return false;
    if (curl_timeout_ms >= 0) deadline = Clock::now() + std::chrono::milliseconds(curl_timeout_ms);
    for (const Timer& timer : timers_) deadline = std::min(deadline, timer.due);
    for (const auto& [raw, t] : transfers_.all()) deadline = std::min(deadline, t->deadline);
    fd_set readable, writable, other;
    FD_ZERO(&readable);
    FD_ZERO(&writable);
    FD_ZERO(&other);
    int max_fd = -1;
    if (curl_multi_fdset(transfers_.multi(), &readable, &writable, &other, &max_fd) != CURLM_OK) return false;
    for (int fd = 0; fd <= max_fd; ++fd) {
        if (FD_ISSET(fd, &writable)) return false;
        if (FD_ISSET(fd, &readable)) sockets.push_back(fd);
    }
    return sockets.size() >= transfers_.all().size();
}

void Engine::revive(bool from_watch) noexcept {
    if (!from_watch) idle_watch().disarm(this);  // waits out the watch's own revive of this engine
    std::lock_guard lock(role_mutex_);
    if (!retired_) {
        if (from_watch) watch_fired_ = true;  // still retiring (try_retire sees it), or already back
        return;
    }
    try {
        spawn_loop_locked();
    } catch (const mcph::plugin::Error& e) {
        // EAGAIN at the thread limit: the engine stays retired; the next send, pump or close tries
        // again, and a waiting caller still drives its own exchange (pump).
        host_.diagnostic(MCPH_LOG_WARN,
                         std::string(e.what()) + "; streams from the server are read only while a call waits");
        return;
    }
    retired_ = false;
    retired_flag_.store(false);
}

}  // namespace mcph::http
