// The service thread of a quiet WebSocket connection ends; the plugin's idle watch waits in its
// place.
//
// A WebSocket stays open for as long as the session lives, so each such server used to cost the
// host a thread for good. Now a service thread that has served nothing (no wake-up, frame, pong,
// write or ping) for `loopIdleMs` (default 2000, 0: never) retires when all that is left waits
// for the server: the connection is established and not closing, nothing is queued or being
// written, no ping is waiting to go out, lws holds no unsent bytes (lws_partial_buffered) and no
// received ones it has yet to hand us (lws_service_adjust_timeout: TLS records OpenSSL already
// decrypted, buffered rx), and our next ping is not due within another `loopIdleMs`. It hands the
// socket and the ping's time to the plugin's idle watch (plugins/io-common/src/idle_watch.hpp, one
// thread for every transport of this plugin) and ends. What brings a service thread back:
//   * the watch: a byte, a hang-up or an error on the socket, or the ping's time;
//   * wake(): a send, and close() (which needs the thread for the close handshake).
// The new thread takes the same lws_context over; lws has no tie to the thread that serviced it
// before (LWS_CALLBACK_GET_THREAD_ID is not used). While retired nobody calls into lws except
// lws_cancel_service(), which is safe from any thread, and stop_service() after the last thread.
// lws's own housekeeping timers wait for the next service thread; an established connection has
// none that matters (lws's keep-alive is off, see ping_timer(), and no lws timeout is pending).
//
// The hand-off is io::LoopRole's (plugins/io-common/src/loop_role.hpp), as for legacy SSE: the
// watch is armed while the thread still owns the context; the thread gives it up unless the watch
// already fired or stop_service() began, storing the retired mark before it looks at the requests
// (queue, close); a caller records its request before it reads the mark. A service thread that
// cannot be started is tried again every second from the watch.
#include "ws_transport.hpp"

#include <algorithm>

namespace mcph::ws {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kIdleWatchThreadName = "mcph-ws-idle";  // at most 15 bytes

}  // namespace

io::IdleWatch& WsTransport::idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

void stop_idle_watch_if_unused() noexcept { WsTransport::idle_watch().stop_if_unused(); }

void WsTransport::wake() noexcept {
    if (role_.retired()) revive(false);  // after the request was recorded (see the top)
}

// [service thread] lws_service() returns after one wait, which lws bounds by its timers only; this
// timer ends the wait when the quiet spell may be over, so the loop can look.
void WsTransport::schedule_idle_check() {
    if (!quiet_.enabled()) return;
    lws_sul_schedule(context_, 0, &idle_timer_.sul, &WsTransport::idle_tick,
                     static_cast<lws_usec_t>(quiet_.poll_ms(1 << 30)) * LWS_US_PER_MS);
}

// lws runs the timers that are due *before* it waits, and then waits for the next one: a tick that
// fell due before the wait would leave lws_service() waiting for the next event, maybe for good
// (seen under valgrind). So the tick sets itself again 1 ms on, which ends that wait; the loop
// then sets it to the spell's end again (or the thread retires, and the next one takes it over).
void WsTransport::idle_tick(lws_sorted_usec_list_t* sul) {
    WsTransport* self = reinterpret_cast<IdleTimer*>(sul)->owner;
    if (self->quiet_.enabled()) lws_sul_schedule(self->context_, 0, sul, &WsTransport::idle_tick, LWS_US_PER_MS);
}

bool WsTransport::try_retire() {
    const auto now = Clock::now();
    const bool armed = quiet_.arm_watch(
        idle_watch(), this, &WsTransport::revive_from_watch, progress_, now,
        [this](std::vector<int>& sockets, Clock::time_point& deadline) {
            return only_waiting_for_the_server(sockets, deadline);
        },
        [this](const std::string& why) {
            diagnostic(MCPH_LOG_INFO, "the WebSocket service thread stays (loopIdleMs is off for this server): " + why);
        });
    if (!armed) return false;
    if (role_.give_up([this] {
            std::lock_guard lock(mutex_);
            return queue_.empty() && !connect_requested_ && !close_requested_ && !stop_requested_;
        }))
        return true;
    quiet_.restart(now);
    return false;
}

// Established, not ending, nothing to write or being written, and lws holds nothing unsent or
// unread; `deadline`: the next ping.
bool WsTransport::only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) {
    if (!wsi_ || !established_ || ping_due_ || close_frame_queued_ || rx_refused_ || writer_.busy() ||
        closing_.load() || ended_.load())
        return false;
    {
        std::lock_guard lock(mutex_);
        if (!queue_.empty() || connect_requested_ || close_requested_ || stop_requested_) return false;
    }
    if (lws_partial_buffered(wsi_) || lws_service_adjust_timeout(context_, 1, 0) == 0) return false;
    const int fd = lws_get_socket_fd(wsi_);
    if (fd < 0) return false;
    sockets.push_back(fd);
    deadline = std::min(deadline, next_ping_);
    return true;
}

void WsTransport::revive_from_watch(void* self) { static_cast<WsTransport*>(self)->revive(true); }

// From the watch's thread (from_watch) or a caller's (wake()). The diagnostic goes out with no
// lock held.
void WsTransport::revive(bool from_watch) noexcept {
    if (auto failed = role_.revive(from_watch))
        diagnostic(MCPH_LOG_WARN, *failed + "; messages to and from the server wait until a thread can start");
}

}  // namespace mcph::ws
