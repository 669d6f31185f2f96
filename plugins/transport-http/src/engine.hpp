// The I/O side of one HTTP transport: a libcurl multi loop, owning every transfer, the session
// id, the request tracker and the reconnect timers. One thread at a time drives it (the "drive
// role", engine_pump.cpp): the loop thread (run()), or a host thread waiting for a reply (pump(),
// ABI 1.3). The role is handed over under role_mutex_, so whoever holds it sees everything the
// previous holder did; nothing below is touched without it except mailbox(), cancel(), notify()
// and the role calls. Callbacks into the host happen only from the driver, with no lock held, so
// the host may call send() from inside on_message.
#pragma once

#include "config.hpp"
#include "curl_handles.hpp"
#include "curl_loop.hpp"
#include "jsonrpc_shape.hpp"
#include "loop_role.hpp"
#include "mailbox.hpp"
#include "quiet_spell.hpp"
#include "request_tracker.hpp"
#include "transfer.hpp"

#include <mcph/plugin_helper.hpp>
#include <mcph/pump_handover.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mcph::http {

class Engine {
public:
    // `stopping` is set by close(): from then on nothing is delivered. `ended` is set here when
    // the transport fails for good (before on_closed), so send() can refuse at once.
    Engine(mcph::plugin::TransportHost host, const HttpConfig& config, const std::atomic<bool>& stopping,
           std::atomic<bool>& ended);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    Mailbox& mailbox() { return mailbox_; }          // [thread-safe]
    // [thread-safe] The host gave up on this request (its id as the host spells it): from now on
    // nothing is reported for it, and the I/O thread ends the transfer carrying it.
    void cancel(std::string request_id);
    void wake() const noexcept { transfers_.wakeup(); }  // [thread-safe] interrupts the driver's poll
    // [thread-safe] Something was queued for the driver: wakes it only when one is running. A
    // parked loop thread is not woken (the pumper, or the loop a grace later, picks it up); a
    // retired one is started again (engine_idle.cpp).
    void notify() noexcept {
        if (driver_.load() != Driver::None) wake();
        else if (role_.retired()) revive(false);
    }
    // [host thread] start(): the loop thread runs run(). Throws mcph::plugin::Error naming the limit.
    void start_loop();
    // [host thread] close(), after stop(): the loop thread ends (a retired one is started again to
    // run the cleanup: DELETE of the session, every transfer removed) and is joined; when no thread
    // could be started, the cleanup runs on the calling thread once no pumper drives.
    void join_loop() noexcept;
    // [host thread, ABI 1.3] Drives the loop on the calling thread until something was delivered
    // (OK), timeout_ms passed (TIMEOUT), close began or the transport ended (CLOSED); BUSY from a
    // loop thread or while another thread pumps. Never throws.
    mcph_status pump(std::int32_t timeout_ms) noexcept;
    // [host thread] close(): makes a pump return soon and the loop thread end (once the pumper left).
    void stop() noexcept;

    // [driver] Takes back a finished transfer's handle for reuse; `large`: it carried a body
    // larger than libcurl sends with the headers, and was given larger buffers.
    void recycle(EasyHandle easy, bool large) noexcept;

    static constexpr int kMaxReconnectAttempts = 5;
    static constexpr int kMaxConsecutiveFailures = 3;
    // Reconnect pacing (issue #10 item 5): `retry:` below the floor is raised to it; from the
    // third consecutive attempt without progress the delay doubles, up to kMaxBackoff; one
    // request is resumed at most kMaxResumptionsPerRequest times however much "progress" (new
    // event ids) the server fakes.
    static constexpr std::chrono::milliseconds kMinRetry{200};
    static constexpr std::chrono::milliseconds kMaxBackoff{30000};
    static constexpr int kMaxResumptionsPerRequest = 100;
    // Longest event id sent back as Last-Event-ID / session id accepted (request header sizes).
    static constexpr size_t kMaxEventIdBytes = 8192;
    static constexpr size_t kMaxSessionIdBytes = 8192;
    // Connection slots (issue #10 item 3): libcurl never opens more than kMaxConnections for this
    // transport; POSTs carrying requests and POSTs carrying answers/notifications have separate
    // budgets, so a burst of answers to server requests can neither exhaust descriptors nor
    // starve the caller's own requests. kMaxRequestPosts + kMaxOtherPosts + the GET stream stay
    // under kMaxConnections, leaving room for resumptions.
    static constexpr long kMaxConnections = 32;
    static constexpr size_t kMaxRequestPosts = 20;
    static constexpr size_t kMaxOtherPosts = 6;
    static constexpr size_t kMaxQueuedMessages = 10000;

    // [driver] A POST's slot is free again (Transfer's destructor).
    void release_slot(Slot slot) noexcept;

private:
    // ---- the loop (engine.cpp)
    void run() noexcept;  // [loop thread] until stopping or ended, or until it retires
    void step();
    bool drain_commands();  // true when there was any
    static TransferSpec post_spec(Command c);
    void hold_for_handshake();  // the option `initialized`: later POSTs wait for the earlier ones
    void begin_handshake_hold(Transfer& t) noexcept;
    void enter_modern_era();
    void fire_timers();
    void expire_deadlines();
    int poll_timeout_ms() const;
    void schedule(std::chrono::milliseconds delay, TransferSpec spec);
    void abort_all() noexcept;
    void delete_session() noexcept;

    // ---- starting transfers (engine.cpp)
    void start(TransferSpec spec);  // a POST waits for a slot (start_waiting), others start at once
    void start_waiting();           // starts waiting POSTs, requests first, while slots are free
    void launch_now(TransferSpec spec, Slot slot);
    std::chrono::milliseconds reconnect_delay(const TransferSpec& next) const;
    std::unique_ptr<Transfer> make_transfer(TransferSpec spec);
    // Asks the host for the transfer's auth headers; on MCPH_PENDING the transfer is parked (its
    // easy handle not added: nothing of it goes out) until the answer arrives (auth_answered).
    void request_auth(std::unique_ptr<Transfer> t);
    void send_with(std::unique_ptr<Transfer> t, const mcph::plugin::AuthAnswer& auth);
    void add_common_headers(Transfer& t, const HeaderPairs& auth);
    void on_header_failure(Transfer& t, mcph_status status, const std::string& message);
    void launch(std::unique_ptr<Transfer> t);
    // [any thread] The host's answer to a parked request: handed to the driver.
    void auth_answered(Command::Kind kind, std::uint64_t parked, mcph::plugin::AuthAnswer answer);
    void on_auth_answer(Command& c);  // [driver]

    // ---- responses (engine_responses.cpp)
    static size_t write_callback(char* data, size_t size, size_t count, void* user) noexcept;
    size_t on_body(Transfer& t, std::string_view data);
    size_t on_sse_bytes(Transfer& t, std::string_view data);
    void classify(Transfer& t);
    void on_sse_event(Transfer& t, const SseParser::Event& event);
    void deliver(std::string_view message, const MessageShape& shape);
    void on_done(std::unique_ptr<Transfer> t, CURLcode code);
    bool handle_session_or_auth(Transfer& t);
    // A refused request whose challenge the host is working on (ABI v1.2: PENDING).
    struct ParkedRetry {
        TransferSpec spec;
        long status = 0;
        std::string challenge;  // the WWW-Authenticate values, for the message if it fails
        HandshakeHold handshake_hold;  // a held notification's hold, kept until it is sent again
    };
    void retry_after_challenge(ParkedRetry retry, const mcph::plugin::AuthAnswer& answer);
    void on_post_done(Transfer& t, CURLcode code);
    void on_json_done(Transfer& t, CURLcode code);
    void on_stream_done(Transfer& t, CURLcode code);
    void on_resume_done(Transfer& t, CURLcode code);
    void on_listen_done(Transfer& t, CURLcode code);
    void on_transport_failure(Transfer& t, CURLcode code);
    void on_timeout(Transfer& t);
    void resume_or_fail(Transfer& t, const std::string& why);
    void reconnect_listen(Transfer& t, const std::string& why);
    // Each id still outstanding gets request_failed(failure) under the host's spelling.
    void fail_requests(const std::vector<std::string>& ids, const mcph::plugin::Failure& failure, bool log = true);
    void fail_requests(const std::vector<std::string>& ids, mcph_failure_category category, const std::string& why,
                       long http_status = 0);
    std::string refusal(Transfer& t) const;  // "HTTP 500 from <url>" + what the response said
    void terminate(mcph_close_reason reason, const mcph::plugin::Failure& failure);
    void terminate(mcph_close_reason reason, mcph_failure_category category, const std::string& detail,
                   long http_status = 0);
    // ---- per-request cancel (engine.cpp)
    void drop_cancelled(const std::string& host_id);  // [driver] ends its transfer, queued POST or resumption
    bool is_cancelled(const std::string& host_id);    // [driver] cancel() was called for it
    bool all_cancelled(const std::vector<std::string>& ids);  // cancelled, and nothing else awaited
    void diagnostic(mcph_log_level level, const std::string& message);
    bool quiet() const;  // closing or ended: no more callbacks

    // ---- the drive role (engine_drive.cpp)
    enum class Driver { None, Loop, Pumper };
    enum class DriveEnd { Stopped, HandOver, HandOverAfterDelivery, Retired };
    void take_loop_role() noexcept;   // [loop thread] returns holding the role
    DriveEnd drive_loop();            // [loop thread] until stopping, ended, a hand-over to a pumper or retirement
    bool release_loop_role(bool after_delivery) noexcept;  // the hand-over; false: nobody waits any more
    void finish_loop() noexcept;      // [the last loop thread, or close()] cleanup, then loop_finished()
    void loop_finished() noexcept;    // [loop thread] it ends: a pumper waiting for it stops waiting
    mcph_status pump_rounds(Clock::time_point deadline) noexcept;
    void release_pump_role(bool ended) noexcept;

    // ---- the idle loop thread (engine_idle.cpp)
    // [loop thread, role held] After loopIdleMs without progress, with only transfers waiting for
    // the server left: their sockets and the earliest timer go to the plugin's idle watch and the
    // role is given up (true: the thread ends now). False when anything else is pending, a timer is
    // due within loopIdleMs, or the watch cannot be armed.
    bool try_retire();
    bool only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline) const;
    // [loop thread, under role_'s mutex, retired mark set] True: nothing but the server is waited
    // for (no pumper, no close, an empty mailbox), and the drive role is given up.
    bool give_up_drive_role() noexcept;
    // [any thread but the loop thread] A new loop thread for a retired engine. from_watch: called
    // by the watch, whose entry is already spent (no disarm).
    void revive(bool from_watch) noexcept;
    static void revive_from_watch(void* self);  // the watch's io::IdleWatch::Revive
    static io::IdleWatch& idle_watch();         // the plugin's (one thread for all its transports)
    friend void stop_idle_watch_if_unused() noexcept;

    struct Timer {
        Clock::time_point due;
        TransferSpec spec;
    };

    mcph::plugin::TransportHost host_;
    const HttpConfig& config_;
    const std::atomic<bool>& stopping_;
    std::atomic<bool>& ended_;
    // Finished easy handles, reset and reused: creating one per request showed in the profile.
    std::vector<EasyHandle> idle_easy_;
    Mailbox mailbox_;
    // The handshake hold: while a POST sent before the option `initialized` (the one carrying
    // notifications/initialized) has no response yet, no other POST and no GET stream starts.
    // Over HTTP/1.1 a POST sent meanwhile would take a second connection and could reach the
    // server before the notification (the server must see `initialized` first); held, it goes out
    // on the same connection once the 202 is in. The count is of live HandshakeHolds (a transfer's,
    // or an auth retry's), so a hold cannot outlive them; declared before them, it outlives them.
    size_t handshake_holds_ = 0;

    // After idle_easy_: destroyed first, and a destroyed Transfer hands its handle to the pool.
    TransferTable<Transfer> transfers_{kMaxConnections};
    std::deque<TransferSpec> waiting_requests_;  // POSTs waiting for a slot, caller's requests first
    std::deque<TransferSpec> waiting_others_;    // ... then answers and notifications
    size_t active_requests_ = 0;
    size_t active_others_ = 0;
    bool listen_pending_ = false;  // the GET stream waits for the handshake hold to end
    std::vector<Timer> timers_;
    // Requests waiting for the host's auth (PENDING), by park number: bounded by the slots (each
    // parked transfer holds its POST slot; GETs are one per stream) and by the requests in flight.
    std::uint64_t next_park_ = 1;
    std::unordered_map<std::uint64_t, std::unique_ptr<Transfer>> parked_;
    std::unordered_map<std::uint64_t, ParkedRetry> parked_retries_;
    RequestTracker tracker_;
    // Requests the host cancelled while a stream for them was open or a resumption pending, so
    // the transport can say it dropped them. Bounded like the tracker (erased when seen).
    std::unordered_set<std::string> cancelled_;
    bool note_cancelled(const std::vector<std::string>& ids);  // true (and a diagnostic) if any was
    std::string session_id_;
    std::string protocol_version_;
    // "era" option: modern (2026-07-28) = no session id sent or taken, no GET stream, no
    // Last-Event-ID resumption; a stream that breaks fails its request (RESET) instead.
    bool modern_ = false;
    // Host ids cancel() was called for and the I/O thread has not dropped yet. Written by any
    // thread, read by the I/O thread before it reports on a request; the count spares the lock
    // while there is none (the usual case).
    std::mutex cancel_mutex_;
    std::unordered_set<std::string> cancelling_;
    std::atomic<size_t> cancelling_count_{0};
    bool listen_requested_ = false;
    int consecutive_failures_ = 0;  // transfers that got no HTTP response at all, in a row
    bool terminated_ = false;
    size_t delivered_ = 0;  // host callbacks that end a wait (message, request failure, close): pump's OK

    // The drive role. driver_ is read without the lock by notify() (seq_cst: a command pushed
    // before it reads None is drained by the next driver, which stores its kind before draining).
    std::atomic<Driver> driver_{Driver::None};
    std::atomic<bool> started_{false};
    std::mutex role_mutex_;
    std::condition_variable loop_cv_;     // the parked loop thread (timed waits; notified on stop)
    std::condition_variable handoff_cv_;  // a pumper waiting for the loop thread's hand-over
    mcph::plugin::PumpHandover handover_;  // the loop thread's role to a waiting pumper
    bool pumper_ = false;                 // a host thread holds (or waits for) the role
    bool loop_driving_ = false;           // the loop thread holds the role
    bool loop_done_ = false;              // the loop thread has ended: nobody may drive any more
    bool stop_requested_ = false;         // close() began
    Clock::time_point released_at_{};     // when the last pumper gave the role back

    // Idle retirement (engine_idle.cpp). progress_ counts steps that did something (a command, a
    // delivery, a transfer started or ended); the loop thread retires once it has not moved for
    // loopIdleMs. Which thread owns the loop, retired or not, is role_'s (plugins/io-common):
    // its mutex is taken before role_mutex_, never after.
    std::uint64_t progress_ = 0;          // [driver]
    io::QuietSpell quiet_;                // [loop thread] plugins/io-common
    io::LoopRole role_;
};

// The plugin's shutdown: the idle watch's thread ends unless another host's transport is armed there.
void stop_idle_watch_if_unused() noexcept;

}  // namespace mcph::http
