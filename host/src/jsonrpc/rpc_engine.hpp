// The JSON-RPC 2.0 engine of one session: request ids, the pending-request table, timeouts,
// cancellation, progress routing, and dispatch of inbound requests and notifications.
//
// Threads: requests start on any caller thread and are written straight to the transport.
// Responses arrive on the transport's thread and complete the waiting future right there, under
// a short lock around the pending table (never held across I/O or a user callback). Timeouts
// are kept in deadline order (an ordered index beside the table), so the owner needs one timer,
// armed at next_deadline(): arm_timeouts tells it when a request's deadline is earlier than the
// one its timer is set for, and check_timeouts(), run when the timer fires, expires what is due
// and says when to wake next. No periodic scan of the pending table.
#pragma once

#include "jsonrpc/request_result.hpp"
#include "transport/transport.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>
#include <mcph/session.hpp>
#include <mcph/types.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mcph::jsonrpc {

using Clock = std::chrono::steady_clock;

class RpcEngine;

// Answers one inbound (server→client) request, once, from any thread. While it is unanswered it
// holds one of the engine's in-flight slots (released by the answer, or by its end unanswered).
class Responder {
public:
    Responder(std::weak_ptr<RpcEngine> engine, std::string id_json, bool holds_slot = false)
        : engine_(std::move(engine)), id_json_(std::move(id_json)), holds_slot_(holds_slot) {}
    ~Responder();
    Responder(const Responder&) = delete;
    Responder& operator=(const Responder&) = delete;
    void result(const JsonValue& result);
    void error(int code, const std::string& message);
    const std::string& id_json() const { return id_json_; }

private:
    void send(std::string_view message);
    void release_slot();

    std::weak_ptr<RpcEngine> engine_;
    std::string id_json_;
    std::atomic<bool> holds_slot_;
};

// The JSON-RPC error code of a server→client request refused because too many are in flight.
inline constexpr int kTooManyInFlightCode = -32000;
// How many server→client requests one session answers at a time (each may hold a callback thread
// or a person); beyond it a request is refused at once, so a flood cannot queue without bound.
inline constexpr std::size_t kDefaultMaxInboundInFlight = 32;

struct EngineHooks {
    // Writes one serialized message to the transport; throws mcph::Error on failure. `facts` is
    // set for requests (id, method, and what the session added), null otherwise.
    std::function<void(std::string_view message, const transport::MessageFacts* facts)> send;
    // Ends one request's stream on the transport (modern Streamable HTTP cancellation); used
    // instead of notifications/cancelled while set_cancel_by_stream(true).
    std::function<void(std::string_view id_json)> cancel_stream;
    // An inbound request other than ping. Runs on the transport thread: hand off slow work.
    std::function<void(const std::string& method, Json params, std::shared_ptr<Responder> responder)> on_request;
    // An inbound notification other than progress/cancelled. Runs on the transport thread.
    std::function<void(const std::string& method, const JsonValue& params)> on_notification;
    // Diagnostics (malformed or unexpected messages): logged, never fatal.
    std::function<void(int level, const std::string& message)> log;  // level: 1 info, 2 warn, 3 error
    // Called when a request's deadline is earlier than the wake-up the owner's timer is set for
    // (the first timed request, or one with a shorter timeout): the owner re-arms its one timer at
    // next_deadline(). Not called per request otherwise, so a steady stream of calls costs no
    // cross-thread wake-up.
    std::function<void()> arm_timeouts;
    // Runs work that writes to the transport off the timer loop: the cancel notice of a timed-out
    // request while another write is stuck (a peer that stopped reading would block it, and the
    // loop must keep ticking for every other session). Empty: the work runs in place.
    std::function<void(std::function<void()>)> defer;
    // [ABI 1.3] Reads the transport on the calling thread until `ready()` or `deadline`
    // (Transport::pump_until): PendingRequest::get and wait_for use it, so a waiting caller reads
    // its own reply instead of sleeping while the transport's thread reads it and wakes it. It
    // returns early when it cannot pump (then the caller sleeps on the future as before). Empty:
    // waits only sleep on the future.
    std::function<void(const std::function<bool()>& ready, Clock::time_point deadline)> pump;
    // Server→client requests (other than ping) handed to on_request and not yet answered, at most.
    std::size_t max_inbound_in_flight = kDefaultMaxInboundInFlight;
};

struct RequestSettings {
    std::chrono::milliseconds timeout{60000};
    bool reset_timeout_on_progress = false;
    std::optional<std::chrono::milliseconds> max_total_timeout;
    std::function<void(const Progress&)> on_progress;
    // Facts for the transport (name, x-mcp-header params, version, flags); the engine fills in
    // the id and the method.
    transport::MessageFacts facts;
    // A request meant to stay open (subscriptions/listen): no timeout, and it does not keep the
    // owner's deadline timer armed.
    bool long_lived = false;
    // A serialised JSON object written as params._meta (the 2026-07-28 envelope, kept by the
    // session: session::serialized_request_meta). When params has a `_meta` of its own, or a
    // progress token is attached, the two are merged in the tree instead.
    std::shared_ptr<const std::string> meta_json;
};

class RpcEngine : public std::enable_shared_from_this<RpcEngine> {
public:
    RpcEngine(std::string peer_name, EngineHooks hooks);

    // Sends a request. Failures (send error, engine closed) come back through the future.
    PendingRequest start_request(std::string_view method, Json params, RequestSettings settings);
    // Callback flavour: `done` runs once (on the transport thread, or here on immediate failure).
    // Returns the request id (for cancel).
    std::int64_t start_request_async(std::string_view method, Json params, RequestSettings settings,
                                     ResponseHandler done);
    // Sends a request and waits for its answer on this thread, reading the transport here when it
    // can (hooks.pump), as PendingRequest::get does, with the answer's slot on this stack instead
    // of the heap (request_result.hpp). With `is_cancelled` the wait checks it every 50 ms and,
    // once true, cancels the request (notifications/cancelled, Cancelled error). Throws the
    // request's mcph::Error.
    Json call(std::string_view method, Json params, RequestSettings settings,
              const std::function<bool()>& is_cancelled = {});
    // The same, sending `params` where they are: they are left as they were unless the request
    // has a progress token to attach (settings.on_progress) or a `_meta` to merge with
    // settings.meta_json (null params also become {}). A caller that may send the same params
    // again (a retry) needs no copy of them when neither applies.
    Json call_in_place(std::string_view method, Json& params, RequestSettings settings,
                       const std::function<bool()>& is_cancelled = {});
    // Sends a notification; throws mcph::Error on send failure.
    void notify(std::string_view method, const JsonValue* params);
    // Cancels a pending request: its future fails with Cancelled, the server gets notifications/cancelled.
    void cancel(std::int64_t id, const std::string& reason);

    // One complete message from the transport (object or batch array).
    void handle_message(std::string_view text);

    // Fails every request past its deadline (Timeout) and notifies the server, earliest deadline
    // first. Returns the number of timed requests still pending; next_deadline() is then the time
    // to check again (the owner arms its timer there).
    std::size_t check_timeouts(Clock::time_point now);
    // The earliest deadline of a timed pending request (idle or hard, whichever is sooner), or
    // Clock::time_point::max() when none has one. Also records it as the owner's wake-up, so a
    // later request with an earlier deadline calls arm_timeouts again.
    Clock::time_point next_deadline();
    // Fails every pending request with `error` at once; later requests fail immediately with it.
    void fail_all(const Error& error);
    // Accepts requests again after fail_all (a fresh connection).
    void reopen();
    // Fails one pending request (by its id as JSON text) with `error`: the transport lost it or
    // the server refused it below JSON-RPC (an HTTP error status). Unknown ids are ignored.
    void fail_request(std::string_view id_json, const Error& error);
    // Modern Streamable HTTP: a request is cancelled by closing its stream, not by a notice.
    void set_cancel_by_stream(bool on) { cancel_by_stream_ = on; }

    std::size_t pending_count() const;
    // Pending requests that have a deadline (long-lived ones excluded): what the deadline timer waits for.
    std::size_t timed_pending_count() const;
    // Server→client requests handed to on_request and not yet answered.
    std::size_t inbound_in_flight() const { return inbound_in_flight_.load(); }
    // Writes one message through hooks.send (every write of the engine goes through here).
    void send_raw(std::string_view message, const transport::MessageFacts* facts = nullptr);

private:
    // Timed requests by deadline (min of idle and hard deadline); long-lived ones are not in it.
    using DeadlineIndex = std::multimap<Clock::time_point, std::int64_t>;

    struct Pending {
        // Exactly one of the two: the PendingRequest's slot (start_request), else the handler.
        detail::OwedResult result;
        ResponseHandler handler;
        std::string method;
        std::chrono::milliseconds timeout{0};
        Clock::time_point deadline;
        Clock::time_point hard_deadline;
        std::chrono::milliseconds max_total{0};
        bool reset_on_progress = false;
        bool long_lived = false;
        std::shared_ptr<const std::function<void(const Progress&)>> on_progress;
        DeadlineIndex::iterator slot{};  // its entry in deadlines_ (unset when long_lived)
        Clock::time_point due() const { return std::min(deadline, hard_deadline); }
    };

    std::int64_t register_and_send(std::string_view method, Json& params, RequestSettings& settings, Pending entry);
    // call() and call_in_place(): each passes its own settings, so neither moves them again.
    Json wait_for_answer(std::string_view method, Json& params, RequestSettings& settings,
                         const std::function<bool()>& is_cancelled);
    static void complete(Pending& entry, Json result);
    static void fail(Pending& entry, const Error& error);
    void dispatch(Json& doc);
    void dispatch_value(const JsonValue& message);
    void handle_response(std::int64_t id, Json& doc);
    void handle_response_value(const JsonValue& message);
    void handle_progress(const JsonValue& params);
    void handle_inbound_request(const JsonValue& message);
    void refuse_too_deep(std::string_view text, const std::string& reason);
    bool claim_inbound_slot();
    friend class Responder;  // releases its slot
    void send_cancelled(std::int64_t id, const std::string& reason);
    std::optional<Pending> take(std::int64_t id);
    void log(int level, const std::string& message) const;

    const std::string peer_;
    EngineHooks hooks_;
    std::shared_ptr<const detail::RequestResult::Pump> pump_;  // hooks_.pump, shared by every wait; null without it
    std::atomic<std::int64_t> next_id_{0};
    mutable std::mutex mutex_;
    std::unordered_map<std::int64_t, Pending> pending_;
    std::size_t long_lived_ = 0;  // entries of pending_ with long_lived set (guarded by mutex_)
    DeadlineIndex deadlines_;     // one entry per timed request of pending_ (guarded by mutex_)
    // A finished request's nodes of pending_ and deadlines_, kept (up to kSpareNodes each, guarded
    // by mutex_) and re-keyed for the next request: a call then allocates no map nodes (issue #16:
    // they were 2 of a stdio call's ~23 allocations). Reserved up front, so keeping one allocates nothing.
    static constexpr std::size_t kSpareNodes = 8;
    std::vector<std::unordered_map<std::int64_t, Pending>::node_type> spare_pending_;
    std::vector<DeadlineIndex::node_type> spare_deadlines_;
    void insert_pending(std::int64_t id, Pending entry);  // with mutex_ held
    // The time the owner's timer is set to wake (max: not armed), guarded by mutex_: a request due
    // before it calls arm_timeouts; one due after it needs nothing.
    Clock::time_point wake_at_ = Clock::time_point::max();
    std::optional<Error> closed_error_;
    std::atomic<std::size_t> inbound_in_flight_{0};
    std::atomic<std::uint64_t> inbound_refused_{0};
    std::atomic<int> sends_in_progress_{0};
    std::atomic<bool> cancel_by_stream_{false};
};

// Serializes an id value (number or string) as JSON text, for echoing it back.
std::string id_to_json(const JsonValue& id);

}  // namespace mcph::jsonrpc
