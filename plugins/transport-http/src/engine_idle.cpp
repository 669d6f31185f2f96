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
// The hand-off is io::LoopRole's (plugins/io-common/src/loop_role.hpp), as for SSE and WebSocket:
// the watch is armed while the thread still drives; the thread gives the loop up unless the watch
// already fired, a pumper came, close() began or the mailbox is not empty; the retired mark is
// stored before the mailbox is looked at, and a sender pushes before it reads the mark, so either
// the sender sees the mark (and revives) or the thread sees the message (and stays). A loop
// thread that cannot be started is tried again every second from the watch.
#include "engine.hpp"

#include "idle_watch.hpp"

#include <algorithm>

namespace mcph::http {
namespace {

constexpr const char* kIdleWatchThreadName = "mcph-http-idle";  // at most 15 bytes

}  // namespace

io::IdleWatch& Engine::idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

void stop_idle_watch_if_unused() noexcept { Engine::idle_watch().stop_if_unused(); }

void Engine::start_loop() {
    role_.start();
    started_.store(true);
}

void Engine::join_loop() noexcept {
    // stop() came first: no thread retires from here on (give_up_drive_role looks at stop_requested_).
    if (role_.retired()) revive(false);  // the cleanup runs on a loop thread
    if (std::thread thread = role_.take_last(); thread.joinable()) thread.join();
    if (role_.stopped_retired()) {
        // No thread could be started: the cleanup runs here, once a pumper (woken by stop()) has left.
        take_loop_role();
        finish_loop();
    }
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
    if (role_.give_up([this] { return give_up_drive_role(); })) return true;
    quiet_.restart(now);
    return false;
}

bool Engine::give_up_drive_role() noexcept {
    std::lock_guard lock(role_mutex_);
    if (pumper_ || stop_requested_ || !mailbox_.empty()) return false;
    loop_driving_ = false;
    driver_.store(Driver::None);
    handoff_cv_.notify_all();
    return true;
}

// Every transfer waits to read from the server, each on a socket of its own (curl_loop.hpp), and
// nothing else waits for this thread; `deadline`: the earliest timer.
bool Engine::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) const {
    if (!mailbox_.empty() || !parked_.empty() || !parked_retries_.empty() || !waiting_requests_.empty() ||
        !waiting_others_.empty() || handshake_holds_ > 0 || listen_pending_)
        return false;
    for (const Timer& timer : timers_) deadline = std::min(deadline, timer.due);
    for (const auto& [raw, t] : transfers_.all()) deadline = std::min(deadline, t->deadline);
    return transfers_.sockets_waiting_for_input(sockets, deadline);
}

void Engine::revive_from_watch(void* self) { static_cast<Engine*>(self)->revive(true); }

// From the watch's thread (from_watch) or a caller's (a send, a pump, close()). With no thread
// (EAGAIN at the thread limit) the engine stays retired and the watch tries again; so does the
// next send, pump or close, and a waiting caller still drives its own exchange (pump).
void Engine::revive(bool from_watch) noexcept {
    if (auto failed = role_.revive(from_watch); failed && !stopping_.load())
        host_.diagnostic(MCPH_LOG_WARN, *failed + "; streams from the server are read only while a call waits");
}

}  // namespace mcph::http
