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

#include <algorithm>

namespace mcph::http {
namespace {

constexpr const char* kIdleWatchThreadName = "mcph-http-idle";  // at most 15 bytes

// A loop thread that could not be started for a retired transport is tried again this much later
// (the thread limit may have been a passing peak), so its streams are not left unread.
constexpr std::chrono::milliseconds kReviveRetry{1000};

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
    io::replace_thread(loop_thread_, "the HTTP loop thread", [this] { run(); });
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

bool Engine::try_retire() {
    const auto now = Clock::now();
    const bool armed = quiet_.arm_watch(
        idle_watch(), this, &Engine::revive_from_watch, progress_, now,
        [this](std::vector<int>& sockets, Clock::time_point& deadline) {
            return only_waiting_for_the_server(sockets, deadline);
        },
        [this](const std::string& why) {
            diagnostic(MCPH_LOG_INFO, "the HTTP loop thread stays (loopIdleMs is off for this server): " + why);
        });
    if (!armed) return false;
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
    lock.lock();
    watch_fired_ = false;  // no revive runs or comes now: the next retirement starts clean
    lock.unlock();
    quiet_.restart(now);
    return false;
}

// Every transfer waits to read from the server, each on a socket of its own (curl_loop.hpp), and
// nothing else waits for this thread; `deadline`: the earliest timer.
bool Engine::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) const {
    if (!mailbox_.empty() || !parked_.empty() || !parked_retries_.empty() || !waiting_requests_.empty() ||
        !waiting_others_.empty() || handshake_holds_ > 0 || listen_pending_)
        return false;
    for (const Timer& timer : timers_) deadline = std::min(deadline, timer.due);
    for (const auto& [raw, t] : transfers_.all()) deadline = std::min(deadline, t->deadline);
    return sockets_waiting_for_input(transfers_.multi(), transfers_.all().size(), sockets, deadline);
}

void Engine::revive_from_watch(void* self) { static_cast<Engine*>(self)->revive(true); }

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
        // EAGAIN at the thread limit: the engine stays retired; the watch tries again (as io::LoopRole
        // does for SSE and WebSocket), so does the next send, pump or close, and a waiting caller
        // still drives its own exchange (pump). Once close() began, join_loop() cleans up instead.
        std::string why = e.what();
        if (!stop_requested_) why += idle_watch().arm_retry(this, &Engine::revive_from_watch, kReviveRetry);
        host_.diagnostic(MCPH_LOG_WARN, why + "; streams from the server are read only while a call waits");
        return;
    }
    retired_ = false;
    retired_flag_.store(false);
}

}  // namespace mcph::http
