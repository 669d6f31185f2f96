// The "ws" / "ws-ide" transport: one JSON-RPC message per WebSocket text message.
//
// Threads (see ../README.md):
//   service thread  owns the lws_context and every lws call after start(): connects, writes the
//                   send queue, reads and reassembles messages, pings, and calls on_message /
//                   on_closed / on_diagnostic / on_failure directly (serially, in arrival order).
//                   Endings and non-fatal problems are typed (ABI 1.1 mcph_failure); a 1.0 host
//                   gets the same text through on_closed / on_diagnostic.
//   callers         send() only enqueues and wakes the service thread (lws_cancel_service, the one
//                   lws call that is safe from another thread).
//   host thread     start() requests a connect and waits for the handshake; close() requests a
//                   close frame, waits briefly, then stops and joins the service thread.
// A quiet connection's service thread retires to the plugin's idle watch and a new one takes the
// context over when the server speaks, a ping is due, or a caller sends or closes (ws_idle.cpp).
#pragma once

#include "config.hpp"
#include "frame_writer.hpp"
#include "lws_log.hpp"
#include "loop_role.hpp"    // plugins/io-common
#include "message_assembler.hpp"
#include "quiet_spell.hpp"  // plugins/io-common
#include "send_queue.hpp"

#include <libwebsockets.h>
#include <mcph/plugin_helper.hpp>
#include <openssl/x509.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace mcph::ws {

class WsTransport final : public mcph::plugin::Transport {
public:
    WsTransport(mcph::plugin::TransportHost host, std::string_view config_json);
    ~WsTransport() override;

    void start() override;                        // [host-thread]
    void send(std::string_view message) override; // [thread-safe], also from inside on_message
    void close() noexcept override;               // [host-thread], idempotent

    // The plugin's idle watch, where quiet connections wait without a thread (ws_idle.cpp).
    static io::IdleWatch& idle_watch();

    // The lws protocol callback (ws_callbacks.cpp); `user` of the context is the transport.
    static int lws_event(lws* wsi, lws_callback_reasons reason, void* user, void* in, size_t len);

private:
    // How one connection attempt ended, as start() sees it.
    struct Attempt {
        bool done = false;
        bool ok = false;
        int http_status = 0;           // of a rejected upgrade; 0 when no HTTP answer was seen
        std::string www_authenticate;  // with a 401/403
        std::string location;          // with a 3xx (quoted, never followed)
        std::string error;             // human-readable
        bool tcp_failed = false;       // lws said only "Unable to connect" (see connect_probe.hpp)
        bool timed_out = false;        // connectTimeoutMs passed first
    };

    // ---- host thread (ws_transport.cpp)
    void create_context();
    Attempt connect_once(const HeaderList& headers, std::chrono::steady_clock::time_point deadline);
    HeaderList handshake_headers() const;
    void stop_service() noexcept;
    [[noreturn]] void fail_start(mcph_status status, const std::string& message);
    void describe_ide() const;

    // ---- the service thread's retirement (ws_idle.cpp)
    bool try_retire();                       // [service thread] true: this thread gives the context up
    bool only_waiting_for_the_server(std::vector<int>& sockets, std::chrono::steady_clock::time_point& deadline);
    void revive(bool from_watch) noexcept;   // a retired connection gets a service thread again
    static void revive_from_watch(void* self);  // the watch's io::IdleWatch::Revive
    void wake() noexcept;                    // [any thread] after a request to the service thread
    void schedule_idle_check();              // [service thread] lws_service returns when the spell ends
    static void idle_tick(lws_sorted_usec_list_t* sul);

    // ---- service thread (ws_callbacks.cpp)
    void service_loop() noexcept;
    int on_event(lws* wsi, lws_callback_reasons reason, void* in, size_t len);
    void on_wakeup();
    void do_connect();
    int append_headers(lws* wsi, unsigned char** p, unsigned char* end);
    void on_http_answer(lws* wsi);
    void on_certificate_check(X509_STORE_CTX* store, bool preverify_ok);
    void on_connection_error(std::string_view lws_reason);
    void on_established(lws* wsi);
    int on_receive(lws* wsi, const char* data, size_t len);
    int on_writeable(lws* wsi);
    void on_peer_close(const unsigned char* payload, size_t len);
    void on_wsi_closed();
    void schedule_ping();
    static void ping_timer(lws_sorted_usec_list_t* sul);
    void on_ping_timer();
    void finish_attempt(bool ok, std::string error);
    void finish(mcph_close_reason reason, mcph_failure_category category, const std::string& detail);
    void set_close_reason(enum lws_close_status status, std::string_view reason);
    void diagnostic(mcph_log_level level, const std::string& message);
    void report_failure(mcph_log_level level, mcph_failure_category category, const std::string& message);

    mcph::plugin::TransportHost host_;
    WsConfig config_;
    std::string log_source_;
    LogSink lws_sink_;  // lws log lines from our service thread → on_diagnostic (debug)

    // Disables lws's own idle-validity pings (seconds granularity): we ping ourselves, in ms.
    lws_retry_bo_t retry_policy_{};
    lws_protocols protocols_[2]{};
    lws_context* context_ = nullptr;
    // Guards the context's creation and destruction: the host may close the transport from another
    // thread while start() still connects, and both end the service. Taken before role_'s mutex.
    std::mutex lifecycle_mutex_;

    // Which service thread owns the context now, if any (ws_idle.cpp); its mutex is taken after
    // lifecycle_mutex_ and before mutex_.
    io::LoopRole role_;

    // ---- shared between threads, guarded by mutex_
    std::mutex mutex_;
    std::condition_variable cv_;  // attempt finished / queue drained / connection gone
    Attempt attempt_;
    HeaderList pending_headers_;  // for the next connect, fetched on the host thread
    bool connect_requested_ = false;
    bool close_requested_ = false;
    bool stop_requested_ = false;
    bool connection_alive_ = false;  // a client wsi exists
    SendQueue queue_;

    std::atomic<bool> open_{false};     // handshake done, not yet ended: send() accepted
    std::atomic<bool> closing_{false};  // close() began: deliver nothing more
    std::atomic<bool> ended_{false};    // on_closed fired (or never will)

    // ---- service thread only (handed from one service thread to the next under role_'s mutex)
    struct PingTimer {
        lws_sorted_usec_list_t sul;  // first member: ping_timer() casts back from it
        WsTransport* owner;
    } ping_timer_{};
    std::chrono::steady_clock::time_point next_ping_{std::chrono::steady_clock::time_point::max()};
    struct IdleTimer {
        lws_sorted_usec_list_t sul;  // first member: idle_tick() casts back from it
        WsTransport* owner;
    } idle_timer_{};  // ends lws_service()'s wait when the quiet spell may be over
    io::QuietSpell quiet_;
    std::uint64_t progress_ = 0;  // events served; any change starts the quiet spell again
    static thread_local const WsTransport* serving_;  // the transport this thread is the service thread of
    lws* wsi_ = nullptr;
    bool established_ = false;
    bool was_open_ = false;  // the handshake succeeded once: from now on endings go to on_closed
    HeaderList connect_headers_;
    MessageAssembler rx_;
    FrameWriter writer_;
    bool ping_due_ = false;
    bool awaiting_pong_ = false;
    bool close_frame_queued_ = false;
    bool rx_refused_ = false;  // an incoming message exceeded maxMessageBytes: fail at next WRITEABLE
    std::chrono::steady_clock::time_point last_rx_{};
    std::chrono::steady_clock::time_point ping_sent_{};
    int peer_close_code_ = -1;  // -1: no close frame received
    std::string peer_close_reason_;
    std::string local_error_;   // why we failed the connection ourselves (already reported)

    // ---- host thread only
    bool started_ = false;
    std::atomic<bool> closed_{false};  // close() was called (maybe while start() connects)
};

// The plugin's shutdown: ends the idle watch's thread once no transport is armed in it.
void stop_idle_watch_if_unused() noexcept;

}  // namespace mcph::ws
