// The I/O side of one legacy SSE transport: a libcurl multi loop on one thread that owns the GET
// event stream, every POST (each on its own easy handle, so no POST ever waits for the stream or
// for another POST), the message endpoint and the table of requests in flight. No other thread
// touches any of it; callers reach the loop only through outbox() and wake(). Host callbacks
// happen only on this thread with no lock held, so the host may call send() from on_message.
// After loopIdleMs without progress the thread may retire to the plugin's idle watch, and a later
// thread takes the loop up again (sse_engine_idle.cpp): one loop thread at a time, never two.
// Failures go to the host typed (mcph::plugin::Failure): the stream's end through closed(), a
// failed POST through request_failed() for each of its requests, problems that end nothing through
// failure(); a host of ABI 1.0 gets text and a synthesized JSON-RPC error from plugin_helper.
#pragma once

#include "curl_loop.hpp"
#include "exchange.hpp"
#include "handshake.hpp"
#include "loop_role.hpp"
#include "outbox.hpp"
#include "quiet_spell.hpp"
#include "sse_config.hpp"

#include <mcph/plugin_helper.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mcph::sse {

class SseEngine {
public:
    // `stopping` is set by close(): from then on nothing is delivered. `ended` is set here when
    // the transport fails for good (before on_closed, or when start fails), so send() refuses.
    SseEngine(mcph::plugin::TransportHost host, const SseConfig& config, Handshake& handshake,
              const std::atomic<bool>& stopping, std::atomic<bool>& ended);
    ~SseEngine();
    SseEngine(const SseEngine&) = delete;
    SseEngine& operator=(const SseEngine&) = delete;

    Outbox& outbox() { return outbox_; }             // [thread-safe]
    // [thread-safe] The loop takes up what was pushed: a running loop wakes, a retired one is
    // started again.
    void wake() noexcept;
    bool open() const { return open_.load(); }       // [thread-safe] the endpoint is known

    // [host thread] start(): the first loop thread. Throws Error(MCPH_ERR_IO) at the thread limit.
    void start_loop();
    // [host thread] close(), or a failed start, once `stopping` is set: the loop ends (its cleanup
    // runs on a loop thread, or here when none could be started) and no thread is left.
    void stop_loop() noexcept;

    // The plugin's idle watch, where quiet sessions wait without a thread (sse_engine_idle.cpp).
    static io::IdleWatch& idle_watch();

    // How long start() waits for the endpoint event per network attempt.
    std::chrono::milliseconds handshake_window() const;
    // [thread-safe] start()'s message when that wait runs out.
    std::string handshake_timeout_message() const;

private:
    using Clock = std::chrono::steady_clock;

    // ---- the loop and starting exchanges (sse_engine.cpp)
    void run() noexcept;  // [a loop thread] until stopping, ended, or retired
    void step();
    void drain_outbox();
    void release_held();  // the handshake hold is over: the messages it kept go, in order
    void abort_all() noexcept;
    void open_stream();
    void start_post(Outgoing message, int auth_retries);
    std::unique_ptr<Exchange> make_exchange(ExchangeKind kind, const std::string& url);
    bool add_host_headers(Exchange& x);  // blocking (the stream, at start); false: failed, handled
    // false: the auth hook failed (already handled). Config headers, then the host's.
    bool apply_host_headers(Exchange& x, const mcph::plugin::AuthAnswer& auth);
    // ABI v1.2: a POST whose auth answer is PENDING waits here, its easy handle not added, while
    // the stream and every other POST go on. The answer comes from a host thread (auth_answered)
    // and is picked up by the loop (take_auth_answers).
    void send_post(std::unique_ptr<Exchange> x, const mcph::plugin::AuthAnswer& auth);
    void auth_answered(std::uint64_t parked, bool challenge, mcph::plugin::AuthAnswer answer);  // [any thread]
    void take_auth_answers();
    void after_challenge(std::unique_ptr<Exchange> x, const mcph::plugin::AuthAnswer& answer);
    void refuse_post(Exchange& x, const std::string& reason);  // 401/403 not recovered: AUTH_REQUIRED
    void launch(std::unique_ptr<Exchange> x);
    void on_internal_error(const std::string& what);

    // ---- the loop thread's retirement to the idle watch (sse_engine_idle.cpp)
    bool try_retire();         // true: the watch stands in, this thread ends now
    bool only_waiting_for_the_server(std::vector<int>& sockets, Clock::time_point& deadline);
    void revive(bool from_watch) noexcept;
    static void revive_from_watch(void* self);  // the watch's io::IdleWatch::Revive

    // ---- the GET event stream (sse_engine_stream.cpp)
    static size_t write_callback(char* data, size_t size, size_t count, void* user) noexcept;
    static size_t header_callback(char* data, size_t size, size_t count, void* user) noexcept;
    size_t on_body(Exchange& x, std::string_view data);
    size_t on_stream_bytes(Exchange& x, std::string_view data);
    void classify(Exchange& x);
    void on_event(Exchange& x, const mcph::http::SseParser::Event& event);
    void on_endpoint(Exchange& x, std::string_view data);
    void on_message_event(std::string_view data);
    void on_stream_done(Exchange& x, CURLcode code);
    void on_stream_refused(Exchange& x, CURLcode code);
    bool retry_stream_after_challenge(Exchange& x);

    // ---- POSTs (sse_engine_post.cpp)
    void on_post_done(std::unique_ptr<Exchange> x, CURLcode code);
    bool retry_post_after_challenge(std::unique_ptr<Exchange>& x);
    void post_failed(Exchange& x, mcph::plugin::Failure why);
    void fail_requests(const std::vector<std::string>& ids, const mcph::plugin::Failure& why);
    void forget(const Exchange& x);

    // ---- ending
    void fail_start(mcph_status status, const std::string& message);
    void terminate(mcph_close_reason reason, mcph::plugin::Failure why);
    void diagnostic(mcph_log_level level, const std::string& message);
    // A typed, non-fatal problem (ABI 1.1 on_failure), with its message as the diagnostic.
    void report_failure(mcph_log_level level, const mcph::plugin::Failure& failure);
    bool quiet() const { return terminated_ || stopping_.load(); }
    std::string curl_failure(const Exchange& x, CURLcode code) const;
    std::string refusal(const Exchange& x) const;  // a non-2xx answer, explained

    mcph::plugin::TransportHost host_;
    const SseConfig& config_;
    Handshake& handshake_;
    const std::atomic<bool>& stopping_;
    std::atomic<bool>& ended_;
    Outbox outbox_;
    // The handshake hold. The host sends notifications/initialized, then sets option
    // `initialized`, then its first request. Each message is its own POST on its own connection,
    // and a server serving them in parallel could handle the request before it has taken in
    // `initialized` (the TypeScript SDK awaits that POST too). So from the option on, messages
    // wait in `held_` until every POST started before it has its status line. Declared before
    // the exchanges, whose destructors count down `unanswered_posts_`.
    size_t unanswered_posts_ = 0;
    bool holding_ = false;
    std::deque<Outgoing> held_;

    // The hard bound on this transport's descriptors (issue #10 item 3): the stream plus POSTs; a
    // burst of answers beyond it waits in libcurl's queue (bounded by the outbox) for a connection.
    static constexpr long kMaxConnections = 16;
    mcph::http::TransferTable<Exchange> exchanges_{kMaxConnections};
    std::string endpoint_;                        // where POSTs go, once the endpoint event came
    std::unordered_set<std::string> in_flight_;  // request ids whose POST has not finished yet
    std::atomic<bool> open_{false};
    std::atomic<long> stream_status_{0};  // HTTP status of the GET, for start()'s timeout message
    int stream_auth_retries_ = 0;
    struct AuthAnswerFor {
        std::uint64_t parked;
        bool challenge;
        mcph::plugin::AuthAnswer answer;
    };
    std::mutex answers_mutex_;
    std::vector<AuthAnswerFor> answers_;  // from host threads; bounded by the parked POSTs
    std::uint64_t next_park_ = 1;
    std::unordered_map<std::uint64_t, std::unique_ptr<Exchange>> parked_;          // waiting for headers
    std::unordered_map<std::uint64_t, std::unique_ptr<Exchange>> parked_retries_;  // waiting on a challenge
    bool terminated_ = false;

    // The loop thread and its retirement (sse_engine_idle.cpp): which thread owns the loop, if any.
    io::LoopRole role_;
    // [loop thread; handed from one to the next under role_'s mutex]
    bool stream_opened_ = false;     // the first thread opened the event stream
    std::uint64_t progress_ = 0;     // messages taken, events, transfers ended, auth answers
    io::QuietSpell quiet_;           // plugins/io-common
};

// The plugin's shutdown: the idle watch's thread ends once no transport has anything armed.
void stop_idle_watch_if_unused() noexcept;

}  // namespace mcph::sse
