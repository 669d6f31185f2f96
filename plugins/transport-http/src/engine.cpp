// The curl multi loop and the starting of transfers. Response handling: engine_responses.cpp.
#include "engine.hpp"

#include "auth_request.hpp"
#include "spare_strings.hpp"

#include <algorithm>

namespace mcph::http {
namespace {

using namespace std::chrono_literals;
using mcph::plugin::Error;

constexpr auto kDeleteTimeout = 2000ms;
constexpr int kMaxPollMs = 1000;             // an upper bound only; wakeups and curl's timers cut it short
constexpr size_t kMaxIdleEasyHandles = 32;
constexpr size_t kSmallBody = size_t{64} << 10;        // libcurl sends bodies up to this with the headers
constexpr size_t kMaxUploadBuffer = size_t{1} << 20;
constexpr long kLargeReceiveBuffer = 256L << 10;

}  // namespace

Engine::Engine(mcph::plugin::TransportHost host, const HttpConfig& config, const std::atomic<bool>& stopping,
               std::atomic<bool>& ended)
    : host_(host), config_(config), stopping_(stopping), ended_(ended),
      mailbox_(kMaxQueuedMessages, std::max<size_t>(config.max_message_bytes * 2, size_t{64} << 20)),
      quiet_(config.loop_idle),
      role_(idle_watch(), this, &Engine::revive_from_watch, "the HTTP loop thread", [this] { run(); }) {}

Engine::~Engine() { abort_all(); }

Transfer::~Transfer() {
    if (!engine) return;
    engine->release_slot(slot);
    if (easy) engine->recycle(std::move(easy), spec.payload.size() > kSmallBody);
    // Large bodies' memory serves the next large message (spare_strings.hpp).
    SpareStrings::shared().give(std::move(spec.payload));
    SpareStrings::shared().give(std::move(buffer));
}

void Engine::release_slot(Slot slot) noexcept {
    if (slot == Slot::Request) --active_requests_;
    else if (slot == Slot::Other) --active_others_;
}

void Engine::begin_handshake_hold(Transfer& t) noexcept {
    if (!t.handshake_hold) t.handshake_hold = HandshakeHold(handshake_holds_);
}

void Engine::recycle(EasyHandle easy, bool large) noexcept {
    if (idle_easy_.size() >= kMaxIdleEasyHandles) return;  // freed here
    // A handle that carried a large body may keep libcurl buffers sized for it (up to 1.25 MiB):
    // pooled only into an empty pool, so back-to-back large calls keep theirs while a burst of
    // large transfers does not leave every idle handle holding them. The connection stays in the
    // multi handle's cache either way.
    if (large && !idle_easy_.empty()) return;
    curl_easy_reset(easy.get());  // options and state cleared; connection and DNS caches kept
    try {
        idle_easy_.push_back(std::move(easy));
    } catch (...) {
    }
}

// ---- the loop ---------------------------------------------------------------------------------

void Engine::step() {
    const size_t delivered_before = delivered_, transfers_before = transfers_.all().size();
    const bool commands = drain_commands();
    // Write callbacks deliver SSE events from here; finished transfers are handled after.
    transfers_.perform_and_reap([this](std::unique_ptr<Transfer> t, CURLcode code) { on_done(std::move(t), code); },
                                [this] { return terminated_; });
    fire_timers();
    expire_deadlines();
    start_waiting();  // slots freed above
    // What the idle retirement counts as progress (engine_idle.cpp).
    if (commands || delivered_ != delivered_before || transfers_.all().size() != transfers_before) ++progress_;
}

bool Engine::drain_commands() {
    std::vector<Command> commands = mailbox_.take_all();
    for (Command& c : commands) {
        if (terminated_ || stopping_.load()) return true;
        switch (c.kind) {
            case Command::Kind::Send:
                // The host gave up on these requests: no error will be synthesized for them and a
                // stream waiting to be resumed for them is not (issue #10 item 5).
                for (const std::string& id : c.cancelled_ids)
                    if (tracker_.answered(id) && cancelled_.size() < kMaxQueuedMessages) cancelled_.insert(id);
                start(post_spec(std::move(c)));
                break;
            case Command::Kind::ProtocolVersion:
                protocol_version_ = std::move(c.payload);
                break;
            case Command::Kind::Era:
                modern_ = c.payload == "modern";
                if (modern_) enter_modern_era();
                break;
            case Command::Kind::Cancel:
                drop_cancelled(c.payload);
                break;
            case Command::Kind::AuthHeaders:
            case Command::Kind::AuthRetry:
                on_auth_answer(c);
                break;
            case Command::Kind::Initialized:
                hold_for_handshake();
                // The modern era has no GET stream: change notifications come on subscriptions/listen.
                // It starts once the notification sent just before this is in (start_waiting).
                if (!listen_requested_ && !modern_) {
                    listen_requested_ = true;
                    listen_pending_ = true;
                    start_waiting();
                }
                break;
        }
    }
    return !commands.empty();
}

// 2026-07-28 has no sessions, no GET stream and no resumption: what a legacy start left of them
// goes (a host that probed legacy first and then switched).
void Engine::enter_modern_era() {
    session_id_.clear();
    auto is_get = [](TransferKind kind) { return kind == TransferKind::Listen || kind == TransferKind::Resume; };
    std::vector<std::string> unresumed;  // requests a dropped resumption was waiting for
    for (Transfer* raw : transfers_.select([&](const Transfer& t) { return is_get(t.spec.kind); })) {
        std::unique_ptr<Transfer> t = transfers_.take(raw);
        for (const std::string& id : t->spec.request_ids) unresumed.push_back(id);
    }
    std::erase_if(timers_, [&](const Timer& timer) {
        if (!is_get(timer.spec.kind)) return false;
        for (const std::string& id : timer.spec.request_ids) unresumed.push_back(id);
        return true;
    });
    std::erase_if(parked_, [&](const auto& entry) {
        if (!is_get(entry.second->spec.kind)) return false;
        for (const std::string& id : entry.second->spec.request_ids) unresumed.push_back(id);
        return true;
    });
    std::erase_if(parked_retries_, [&](const auto& entry) {
        if (!is_get(entry.second.spec.kind)) return false;
        for (const std::string& id : entry.second.spec.request_ids) unresumed.push_back(id);
        return true;
    });
    if (unresumed.empty()) return;  // the usual case: the probe comes first, before any GET stream
    fail_requests(tracker_.waiting(unresumed), MCPH_FAILURE_RESET,
                  "the stream from " + config_.url + " was not resumed: the transport switched to the 2026-07-28 era");
}

TransferSpec Engine::post_spec(Command c) {
    TransferSpec spec = TransferSpec::post(std::move(c.payload), std::move(c.request_ids), std::move(c.ticket));
    spec.host_id = std::move(c.host_id);
    spec.metadata = std::move(c.metadata);
    spec.protocol_version = std::move(c.protocol_version);
    spec.long_lived = c.long_lived;
    return spec;
}

// The option `initialized` marks the end of the handshake among the messages (the ABI's
// set_option contract): the notifications and answers sent before it must reach the server
// before anything after it starts. The host sends it right after notifications/initialized, so in
// practice this holds that one POST; a plain send (an ABI 1.0 host) is held the same way, as the
// marker is all this needs. Their 202 comes at once (the spec requires it), whereas an earlier
// request's response may take as long as the call: requests are not waited for. Ones still queued
// for a slot go now, ahead of the queue, so that nothing sent later can take their place.
void Engine::hold_for_handshake() {
    while (!waiting_others_.empty()) {
        TransferSpec spec = std::move(waiting_others_.front());
        waiting_others_.pop_front();
        spec.ends_handshake = true;  // counted in the hold by make_transfer
        launch_now(std::move(spec), Slot::Other);
    }
    auto unanswered_notification = [](const Transfer& t) {
        return t.spec.kind == TransferKind::Post && t.spec.request_ids.empty() && t.body == BodyKind::Undecided;
    };
    for (Transfer* t : transfers_.select(unanswered_notification)) begin_handshake_hold(*t);
    for (auto& [park, t] : parked_)
        if (unanswered_notification(*t)) begin_handshake_hold(*t);
}

void Engine::fire_timers() {
    Clock::time_point now = Clock::now();
    std::vector<TransferSpec> due;
    auto keep = std::partition(timers_.begin(), timers_.end(), [&](const Timer& t) { return t.due > now; });
    for (auto it = keep; it != timers_.end(); ++it) due.push_back(std::move(it->spec));
    timers_.erase(keep, timers_.end());
    for (TransferSpec& spec : due) {
        if (terminated_) return;
        start(std::move(spec));
    }
}

// Our own deadlines rather than CURLOPT_TIMEOUT_MS: a streamed response turns its deadline into
// an idle timer that every received byte pushes back, which a fixed libcurl timeout cannot do.
void Engine::expire_deadlines() {
    Clock::time_point now = Clock::now();
    for (Transfer* raw : transfers_.select([&](const Transfer& t) { return t.deadline <= now; })) {
        if (terminated_) return;
        if (std::unique_ptr<Transfer> t = transfers_.take(raw)) on_timeout(*t);
    }
}

int Engine::poll_timeout_ms() const {
    Clock::time_point next = Clock::now() + std::chrono::milliseconds(kMaxPollMs);
    for (const Timer& t : timers_) next = std::min(next, t.due);
    for (const auto& [raw, t] : transfers_.all()) next = std::min(next, t->deadline);
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms, 0, kMaxPollMs));
}

void Engine::schedule(std::chrono::milliseconds delay, TransferSpec spec) {
    timers_.push_back(Timer{Clock::now() + delay, std::move(spec)});
}

void Engine::abort_all() noexcept {
    parked_.clear();  // a late answer finds nothing and is dropped
    parked_retries_.clear();
    transfers_.clear();
    timers_.clear();
    waiting_requests_.clear();
    waiting_others_.clear();
}

// Best effort, bounded by kDeleteTimeout: tell the server the session is over. 405 (the server
// does not let clients end sessions) and every other failure are ignored.
void Engine::delete_session() noexcept {
    try {
        std::unique_ptr<Transfer> t = make_transfer(TransferSpec::of(TransferKind::Delete));
        // Never waits: the host has cancelled its pending answers by now (close), so only a
        // token at hand is used; without one the DELETE is skipped.
        mcph::plugin::AuthAnswer auth =
            host_.request_headers_async(auth_request("DELETE", config_.url), [](mcph::plugin::AuthAnswer) {});
        if (auth.status != MCPH_OK) return;
        add_common_headers(*t, auth.headers);
        setopt(t->easy.get(), CURLOPT_CUSTOMREQUEST, "DELETE");
        setopt(t->easy.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(kDeleteTimeout.count()));
        setopt(t->easy.get(), CURLOPT_HTTPHEADER, t->headers.get());
        // Outside the table on purpose: the loop is over, this one is driven here, bounded.
        CURLM* multi = transfers_.multi();
        if (curl_multi_add_handle(multi, t->easy.get()) != CURLM_OK) return;
        CurlDriver& driver = transfers_.driver();
        const Clock::time_point give_up = Clock::now() + kDeleteTimeout + 500ms;
        bool done = false;
        while (!done && Clock::now() < give_up) {
            driver.act();
            int left = 0;
            while (CURLMsg* msg = curl_multi_info_read(multi, &left))
                if (msg->msg == CURLMSG_DONE && msg->easy_handle == t->easy.get()) done = true;
            if (!done) driver.wait(50);
        }
        curl_multi_remove_handle(multi, t->easy.get());
    } catch (...) {
        // Nothing to report to: close() is under way and no callback may fire after it returns.
    }
}

// ---- starting transfers -----------------------------------------------------------------------

void Engine::start(TransferSpec spec) {
    if (terminated_ || stopping_.load()) return;
    if (spec.kind == TransferKind::Resume && !tracker_.any_waiting(spec.request_ids)) {
        note_cancelled(spec.request_ids);
        return;
    }
    if (spec.kind != TransferKind::Post) return launch_now(std::move(spec), Slot::None);
    tracker_.sent(spec.request_ids, spec.host_id);
    // A held POST sent again (an auth retry): everything after it already waits for it, so it
    // must not wait for a slot behind them (beyond the slot budget by one, once).
    if (spec.ends_handshake) return launch_now(std::move(spec), Slot::Other);
    (spec.request_ids.empty() ? waiting_others_ : waiting_requests_).push_back(std::move(spec));
    start_waiting();
}

bool Engine::note_cancelled(const std::vector<std::string>& ids) {
    bool any = false;
    for (const std::string& id : ids) any |= cancelled_.erase(id) > 0;
    if (any) diagnostic(MCPH_LOG_DEBUG, "not resuming the stream from " + config_.url + ": the host cancelled its request");
    return any;
}

void Engine::start_waiting() {
    if (handshake_holds_ > 0) return;
    // The GET stream before the requests held with it: a server may send its own request on the
    // stream while it handles the next call, so the stream should be there first.
    if (listen_pending_ && !quiet()) {
        listen_pending_ = false;
        launch_now(TransferSpec::of(TransferKind::Listen), Slot::None);
    }
    while (!quiet() && !waiting_requests_.empty() && active_requests_ < kMaxRequestPosts) {
        TransferSpec next = std::move(waiting_requests_.front());
        waiting_requests_.pop_front();
        launch_now(std::move(next), Slot::Request);
    }
    while (!quiet() && !waiting_others_.empty() && active_others_ < kMaxOtherPosts) {
        TransferSpec next = std::move(waiting_others_.front());
        waiting_others_.pop_front();
        launch_now(std::move(next), Slot::Other);
    }
}

void Engine::launch_now(TransferSpec spec, Slot slot) {
    if (quiet()) return;
    std::unique_ptr<Transfer> t = make_transfer(std::move(spec));
    t->slot = slot;  // counted from here, parked or not; the destructor gives it back
    if (slot == Slot::Request) ++active_requests_;
    else if (slot == Slot::Other) ++active_others_;
    request_auth(std::move(t));
}

// The host answers at once when a token is at hand (its fast path); PENDING parks only this
// transfer, and the loop goes on serving every other one (issue #12).
void Engine::request_auth(std::unique_ptr<Transfer> t) {
    const std::uint64_t park = next_park_++;
    mcph::plugin::AuthAnswer auth =
        host_.request_headers_async(auth_request(method_of(t->spec.kind), config_.url),
                                    [this, park](mcph::plugin::AuthAnswer answer) {
                                        auth_answered(Command::Kind::AuthHeaders, park, std::move(answer));
                                    });
    if (auth.status == MCPH_PENDING) {
        parked_.emplace(park, std::move(t));
        return;
    }
    send_with(std::move(t), auth);
}

// Runs on whichever thread the host completes from; the engine outlives it (the host completes
// nothing after close() has returned, and the engine lives until destroy).
void Engine::auth_answered(Command::Kind kind, std::uint64_t parked, mcph::plugin::AuthAnswer answer) {
    Command c = Command::of(kind);
    c.parked = parked;
    c.auth = std::move(answer);
    mailbox_.push_control(std::move(c));
    notify();
}

void Engine::on_auth_answer(Command& c) {
    if (c.kind == Command::Kind::AuthRetry) {
        auto it = parked_retries_.find(c.parked);
        if (it == parked_retries_.end()) return;  // cancelled or dropped meanwhile
        ParkedRetry retry = std::move(it->second);
        parked_retries_.erase(it);
        return retry_after_challenge(std::move(retry), c.auth);
    }
    auto it = parked_.find(c.parked);
    if (it == parked_.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    parked_.erase(it);
    send_with(std::move(t), c.auth);
}

void Engine::send_with(std::unique_ptr<Transfer> t, const mcph::plugin::AuthAnswer& auth) {
    if (quiet()) return;
    if (auth.status != MCPH_OK) return on_header_failure(*t, auth.status, auth.message);
    add_common_headers(*t, auth.headers);
    CURL* e = t->easy.get();
    const TransferSpec& s = t->spec;
    if (s.kind == TransferKind::Post) {
        append_header(t->headers, "Content-Type", "application/json");
        append_header(t->headers, "Accept", "application/json, text/event-stream");
        setopt(e, CURLOPT_POST, 1L);
        setopt(e, CURLOPT_POSTFIELDS, s.payload.data());
        setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(s.payload.size()));
        if (s.payload.size() > kSmallBody) {
            // A large body goes out in a few big writes instead of 64 KiB pieces (issue #16).
            setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, static_cast<long>(std::min(s.payload.size(), kMaxUploadBuffer)));
            setopt(e, CURLOPT_BUFFERSIZE, kLargeReceiveBuffer);
        }
        // No "Expect: 100-continue": libcurl adds it to large bodies and then waits up to a second
        // for a 100 that most servers never send (it cut 1 MiB echoes to ~1 call/s).
        suppress_header(t->headers, "Expect");
        for (const auto& [name, value] : s.metadata) append_header(t->headers, name, value);
    } else {
        append_header(t->headers, "Accept", "text/event-stream");
        if (!s.last_event_id.empty()) append_header(t->headers, "Last-Event-ID", s.last_event_id);
        setopt(e, CURLOPT_HTTPGET, 1L);
    }
    // The GET stream may stay silent for hours: no deadline, TCP keep-alive finds dead peers.
    // Counted from here: the time the host's auth took is not the server's.
    if (s.kind != TransferKind::Listen) t->deadline = Clock::now() + config_.timeout;
    launch(std::move(t));
}

std::unique_ptr<Transfer> Engine::make_transfer(TransferSpec spec) {
    auto t = std::make_unique<Transfer>();
    t->engine = this;
    t->spec = std::move(spec);
    if (t->spec.ends_handshake) begin_handshake_hold(*t);
    if (!idle_easy_.empty()) {
        t->easy = std::move(idle_easy_.back());
        idle_easy_.pop_back();
    } else {
        t->easy = new_easy();
    }
    set_common_options(t->easy.get(), config_.url, EasyOptions{config_.connect_timeout, config_.ca_file},
                       &Engine::write_callback, t.get(), t->error);
    return t;
}

// Static config headers, then the host's auth headers (fetched fresh for every request), then
// the session headers.
void Engine::add_common_headers(Transfer& t, const HeaderPairs& auth) {
    for (const auto& [name, value] : config_.headers) append_header(t.headers, name, value);
    for (const auto& [name, value] : auth) {
        if (!is_token(name) || is_managed_header(name) ||
            value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
            diagnostic(MCPH_LOG_WARN, "ignoring an unusable header from the auth hook: '" + name + "'");
            continue;
        }
        append_header(t.headers, name, value);
    }
    if (!session_id_.empty() && !modern_) {
        append_header(t.headers, "Mcp-Session-Id", session_id_);
        t.carried_session = true;
    }
    // The message's own version (facts) wins: the spec wants the header to match its _meta.
    const std::string& version = t.spec.protocol_version.empty() ? protocol_version_ : t.spec.protocol_version;
    if (!version.empty()) append_header(t.headers, "MCP-Protocol-Version", version);
}

void Engine::on_header_failure(Transfer& t, mcph_status status, const std::string& message) {
    if (t.spec.kind == TransferKind::Delete) return;
    std::string why = "the auth hook failed for " + config_.url + ": " + message;
    if (status == MCPH_ERR_AUTH) return terminate(MCPH_CLOSE_AUTH_REQUIRED, MCPH_FAILURE_AUTH, why);
    if (t.spec.kind == TransferKind::Listen) return diagnostic(MCPH_LOG_WARN, why + " (no GET stream)");
    if (t.spec.request_ids.empty()) return diagnostic(MCPH_LOG_WARN, why + " (message dropped)");
    fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_OTHER, why);
}

void Engine::launch(std::unique_ptr<Transfer> t) { transfers_.launch(std::move(t)); }

// ---- per-request cancel ----------------------------------------------------------------------

void Engine::cancel(std::string request_id) {
    {
        std::lock_guard lock(cancel_mutex_);
        if (!cancelling_.insert(request_id).second) return;
        cancelling_count_.fetch_add(1);
    }
    mailbox_.push_control(Command::of(Command::Kind::Cancel, std::move(request_id)));
    notify();
}

bool Engine::is_cancelled(const std::string& host_id) {
    if (cancelling_count_.load() == 0) return false;
    std::lock_guard lock(cancel_mutex_);
    return cancelling_.count(host_id) > 0;
}

// True when the host cancelled at least one of `ids` and waits for none of the others.
bool Engine::all_cancelled(const std::vector<std::string>& ids) {
    if (cancelling_count_.load() == 0) return false;
    bool any = false;
    for (const std::string& id : ids) {
        if (!tracker_.any_waiting({id})) continue;
        if (!is_cancelled(tracker_.host_id(id))) return false;
        any = true;
    }
    return any;
}

// Closing a request's response stream is the cancellation signal of Streamable HTTP: the
// transfer carrying only this request is removed (the connection closes, the server sees it), a
// POST still waiting for a slot is never sent, and a pending resumption is dropped.
void Engine::drop_cancelled(const std::string& host_id) {
    std::string id = tracker_.find_by_host_id(host_id);
    if (!id.empty()) {
        tracker_.answered(id);
        auto carries_nothing_else = [&](const TransferSpec& spec) {
            return std::find(spec.request_ids.begin(), spec.request_ids.end(), id) != spec.request_ids.end() &&
                   !tracker_.any_waiting(spec.request_ids);
        };
        // Taken out and destroyed: the handle goes back to the pool, its connection is closed.
        for (Transfer* raw : transfers_.select([&](const Transfer& t) { return carries_nothing_else(t.spec); }))
            transfers_.take(raw);
        std::erase_if(waiting_requests_, carries_nothing_else);
        std::erase_if(parked_, [&](const auto& entry) { return carries_nothing_else(entry.second->spec); });
        std::erase_if(parked_retries_, [&](const auto& entry) { return carries_nothing_else(entry.second.spec); });
        std::erase_if(timers_, [&](const Timer& timer) { return carries_nothing_else(timer.spec); });
    }
    std::lock_guard lock(cancel_mutex_);
    if (cancelling_.erase(host_id)) cancelling_count_.fetch_sub(1);
}

}  // namespace mcph::http
