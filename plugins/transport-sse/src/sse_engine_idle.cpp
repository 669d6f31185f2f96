// The loop thread of a quiet legacy SSE transport ends; the plugin's idle watch waits in its place.
//
// A legacy SSE session holds its event stream open for as long as it lives, so each such server
// used to cost the host a thread for good. Now a loop thread that has seen no progress (no message
// taken, event, finished transfer or auth answer) for `loopIdleMs` (default 2000, 0: never) retires
// when all that is left waits for the server — the event stream, and POSTs whose answer has not
// come — with the endpoint known, nothing queued, held behind the handshake or waiting for an auth
// answer, and libcurl's own next timer (a POST's timeoutMs, say) not due within another
// loopIdleMs. It hands the transfers' sockets and that timer to the plugin's idle watch
// (plugins/io-common/src/idle_watch.hpp, one thread for every transport of this plugin) and ends.
// What brings a loop thread back:
//   * the watch: a byte, a hang-up or an error on one of those sockets, or the timer;
//   * wake(): a send, the option `initialized`, an auth answer, and close() — whose cleanup then
//     runs on that thread (or on close()'s own when no thread can be started).
// While retired nobody touches the multi handle, so the sockets the watch holds stay open.
//
// The hand-off is the Streamable HTTP engine's (plugins/transport-http/src/engine_idle.cpp): the
// watch is armed while the thread still owns the loop; then, under role_mutex_, the thread gives
// the loop up unless the watch already fired or close() began, and the retired flag is stored
// before the outbox and the auth answers are looked at. A sender pushes before it reads the flag,
// so either the sender sees the flag (and revives) or the thread sees the message (and stays).
#include "sse_engine.hpp"

#include "curl_loop.hpp"
#include "idle_watch.hpp"
#include "threads.hpp"

#include <algorithm>
#include <optional>

namespace mcph::sse {
namespace {

constexpr const char* kIdleWatchThreadName = "mcph-sse-idle";  // at most 15 bytes

io::IdleWatch& idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

}  // namespace

void stop_idle_watch_if_unused() noexcept { idle_watch().stop_if_unused(); }

void SseEngine::start_loop() {
    std::lock_guard lock(role_mutex_);
    spawn_loop_locked();
}

// A retired thread gave the loop up under role_mutex_ and touches nothing after that: joining it
// here, under the mutex, is brief.
void SseEngine::spawn_loop_locked() {
    io::replace_thread(loop_thread_, "the SSE loop thread", [this] { run(); });
}

void SseEngine::wake() noexcept {
    exchanges_.wakeup();
    if (retired_flag_.load()) revive(false);  // after the push (see the top of this file)
}

void SseEngine::stop_loop() noexcept {
    wake();                     // a retired loop comes back to end; its cleanup runs there
    idle_watch().disarm(this);  // no revive from the watch from here on
    std::thread thread;
    {
        std::lock_guard lock(role_mutex_);
        stopped_ = true;  // the thread taken here is the last one
        thread = std::move(loop_thread_);
    }
    if (thread.joinable()) thread.join();
    bool cleanup_here = false;
    {
        std::lock_guard lock(role_mutex_);
        cleanup_here = retired_;  // it retired as close() began, or no thread could be started
    }
    if (cleanup_here) abort_all();
}

bool SseEngine::try_retire() {
    const auto now = Clock::now();
    const bool armed = quiet_.arm_watch(
        idle_watch(), this, [](void* self) { static_cast<SseEngine*>(self)->revive(true); }, progress_, now,
        [this](std::vector<int>& sockets, Clock::time_point& deadline) {
            return only_waiting_for_the_server(sockets, deadline);
        },
        [this](const std::string& why) {
            diagnostic(MCPH_LOG_INFO, "the SSE loop thread stays (loopIdleMs is off for this server): " + why);
        });
    if (!armed) return false;
    std::unique_lock lock(role_mutex_);
    if (!watch_fired_ && !stopping_.load()) {
        retired_ = true;
        retired_flag_.store(true);  // before the outbox and the answers are looked at
        bool answers_waiting = false;
        {
            std::lock_guard answers(answers_mutex_);
            answers_waiting = !answers_.empty();
        }
        if (outbox_.empty() && !answers_waiting) return true;
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
// nothing else waits for this thread; `deadline`: libcurl's next timer.
bool SseEngine::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) {
    if (!open_.load() || holding_ || !held_.empty() || !parked_.empty() || !parked_retries_.empty() ||
        !outbox_.empty())
        return false;
    return mcph::http::sockets_waiting_for_input(exchanges_.multi(), exchanges_.all().size(), sockets, deadline);
}

// From the watch's thread (from_watch) or a caller's (wake()). The diagnostic goes out after the
// mutex is released (the host may call back into the transport from it), and straight to the host:
// diagnostic() reads the loop thread's state.
void SseEngine::revive(bool from_watch) noexcept {
    if (!from_watch) idle_watch().disarm(this);  // waits out the watch's own revive of this engine
    std::optional<std::string> failed;
    {
        std::lock_guard lock(role_mutex_);
        if (!retired_) {
            if (from_watch) watch_fired_ = true;  // still retiring (try_retire sees it), or already back
            return;
        }
        if (stopped_) return;  // stop_loop() cleans up on its own thread
        try {
            spawn_loop_locked();
            retired_ = false;
            retired_flag_.store(false);
        } catch (const std::exception& e) {
            failed = e.what();  // EAGAIN at the thread limit: the next wake() tries again
        }
    }
    if (failed && !stopping_.load())
        host_.diagnostic(MCPH_LOG_WARN, *failed + "; messages to and from the server wait until it can");
}

}  // namespace mcph::sse
