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
// The hand-off is io::LoopRole's (plugins/io-common/src/loop_role.hpp), as for WebSocket: the
// watch is armed while the thread still owns the loop; the thread gives it up unless the watch
// already fired or close() began, storing the retired mark before it looks at the outbox and the
// auth answers; a sender pushes before it reads the mark, so either the sender sees the mark (and
// revives) or the thread sees the message (and stays). A loop thread that cannot be started is
// tried again every second from the watch.
#include "sse_engine.hpp"

#include "curl_loop.hpp"

#include <algorithm>

namespace mcph::sse {
namespace {

constexpr const char* kIdleWatchThreadName = "mcph-sse-idle";  // at most 15 bytes

}  // namespace

io::IdleWatch& SseEngine::idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

void stop_idle_watch_if_unused() noexcept { SseEngine::idle_watch().stop_if_unused(); }

void SseEngine::start_loop() { role_.start(); }

void SseEngine::wake() noexcept {
    exchanges_.wakeup();
    if (role_.retired()) revive(false);  // after the push (see the top of this file)
}

void SseEngine::stop_loop() noexcept {
    wake();  // a retired loop comes back to end; its cleanup runs there
    if (std::thread thread = role_.take_last(); thread.joinable()) thread.join();
    if (role_.stopped_retired()) abort_all();  // it retired as close() began, or no thread could start
}

bool SseEngine::try_retire() {
    const auto now = Clock::now();
    const bool armed = quiet_.arm_watch(
        idle_watch(), this, &SseEngine::revive_from_watch, progress_, now,
        [this](std::vector<int>& sockets, Clock::time_point& deadline) {
            return only_waiting_for_the_server(sockets, deadline);
        },
        [this](const std::string& why) {
            diagnostic(MCPH_LOG_INFO, "the SSE loop thread stays (loopIdleMs is off for this server): " + why);
        });
    if (!armed) return false;
    if (role_.give_up([this] {
            if (stopping_.load() || !outbox_.empty()) return false;
            std::lock_guard answers(answers_mutex_);
            return answers_.empty();
        }))
        return true;
    quiet_.restart(now);
    return false;
}

// Every transfer waits to read from the server, each on a socket of its own (curl_loop.hpp), and
// nothing else waits for this thread; `deadline`: libcurl's next timer.
bool SseEngine::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) {
    if (!open_.load() || holding_ || !held_.empty() || !parked_.empty() || !parked_retries_.empty() ||
        !outbox_.empty())
        return false;
    return exchanges_.sockets_waiting_for_input(sockets, deadline);
}

void SseEngine::revive_from_watch(void* self) { static_cast<SseEngine*>(self)->revive(true); }

// From the watch's thread (from_watch) or a caller's (wake()). The diagnostic goes out with no lock
// held, and straight to the host: diagnostic() reads the loop thread's state.
void SseEngine::revive(bool from_watch) noexcept {
    if (auto failed = role_.revive(from_watch); failed && !stopping_.load())
        host_.diagnostic(MCPH_LOG_WARN, *failed + "; messages to and from the server wait until a thread can start");
}

}  // namespace mcph::sse
