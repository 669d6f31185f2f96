// What the engine does with what comes back: body bytes as they arrive (write callback) and
// finished transfers. Every decision that starts or removes transfers is taken in on_done(),
// never inside a libcurl callback.
#include "auth_request.hpp"
#include "spare_strings.hpp"
#include "curl_failure.hpp"
#include "engine.hpp"
#include "response_notes.hpp"
#include "snippet.hpp"

#include <algorithm>

namespace mcph::http {
namespace {

using namespace std::chrono_literals;
using mcph::plugin::Failure;

constexpr size_t kRejectedHeadBytes = 1024;  // kept of an error body
// ... of a JSON error body, which may hold a JSON-RPC error the host parses (a 2026-07-28 server
// answers 400 with UnsupportedProtocolVersion and its supported versions): handed over whole up
// to this bound, in request_failed's body.
constexpr size_t kRejectedJsonBytes = 64 * 1024;
// A JSON body of unknown length grows normally up to this; beyond, the buffer reserves
// maxMessageBytes at once — address space only, pages are touched as bytes arrive — so the peak
// stays near the body's size instead of a doubling string's 2-3× (issue #10 item 7).
constexpr size_t kGrowInPlaceBytes = size_t{1} << 20;
constexpr auto kHealthyStream = 10s;

bool is_success(long status) { return status >= 200 && status < 300; }

// Feeds one transfer's SSE events back into the engine.
class StreamSink final : public SseParser::Sink {
public:
    StreamSink(Transfer& t, std::function<void(Transfer&, const SseParser::Event&)> on_event)
        : t_(t), on_event_(std::move(on_event)) {}
    void on_event(const SseParser::Event& e) override { on_event_(t_, e); }
    void on_retry(uint64_t ms) override { t_.spec.retry = std::chrono::milliseconds(ms); }

private:
    Transfer& t_;
    std::function<void(Transfer&, const SseParser::Event&)> on_event_;
};

}  // namespace

// ---- while the body arrives ---------------------------------------------------------------------

size_t Engine::write_callback(char* data, size_t size, size_t count, void* user) noexcept {
    auto* t = static_cast<Transfer*>(user);
    try {
        return t->engine->on_body(*t, std::string_view(data, size * count));
    } catch (const std::exception& e) {
        t->abort_reason = std::string("internal error: ") + e.what();
        return 0;  // no exception may cross libcurl's C frames
    }
}

size_t Engine::on_body(Transfer& t, std::string_view data) {
    if (quiet()) return 0;  // close() began: cut the transfer short
    if (t.body == BodyKind::Undecided) classify(t);
    if (!t.abort_reason.empty()) return 0;
    switch (t.body) {
        case BodyKind::Sse:
            return on_sse_bytes(t, data);
        case BodyKind::Json:
            if (t.buffer.size() + data.size() > config_.max_message_bytes) {
                t.abort_reason = "the response is larger than maxMessageBytes (" +
                                 std::to_string(config_.max_message_bytes) + " bytes)";
                return 0;
            }
            if (t.buffer.size() + data.size() > t.buffer.capacity() && t.buffer.size() + data.size() > kGrowInPlaceBytes)
                t.buffer.reserve(config_.max_message_bytes);
            t.buffer.append(data);
            return data.size();
        case BodyKind::Rejected: {
            size_t keep = t.content_type == "application/json" ? kRejectedJsonBytes : kRejectedHeadBytes;
            t.buffer.append(data.substr(0, keep - std::min(keep, t.buffer.size())));
            return t.buffer.size() < keep ? data.size() : 0;  // enough read: stop
        }
        default:
            return data.size();
    }
}

size_t Engine::on_sse_bytes(Transfer& t, std::string_view data) {
    // Progress keeps a stream alive: its deadline is an idle timeout (see README).
    if (t.spec.kind != TransferKind::Listen && !t.spec.long_lived) t.deadline = Clock::now() + config_.timeout;
    StreamSink sink(t, [this](Transfer& tr, const SseParser::Event& e) { on_sse_event(tr, e); });
    if (t.sse->feed(data, sink) == SseParser::Status::TooLarge) {
        t.abort_reason = "an SSE event is larger than maxMessageBytes (" +
                         std::to_string(config_.max_message_bytes) + " bytes)";
        return 0;
    }
    return quiet() ? 0 : data.size();
}

// Decides what to do with the body once the status and headers are known (at the first body
// byte, or at completion for an empty body).
void Engine::classify(Transfer& t) {
    CURL* e = t.easy.get();
    t.status = response_status(e);
    // The server has the notification: what waited may go (start_waiting). Not on an auth
    // challenge: the hold passes to the retry (handle_session_or_auth), or ends with the transfer.
    if (!is_auth_challenge(e, t.status)) t.handshake_hold.release();
    t.content_type = content_type(e);
    if (t.status > 0) consecutive_failures_ = 0;
    if (!is_success(t.status)) {
        t.body = BodyKind::Rejected;
        return;
    }
    // Captured before any message of this response is delivered: the host's next request (e.g.
    // notifications/initialized, sent from inside on_message) must already carry it. The modern
    // era has no sessions: a server's id is not honoured.
    if (std::optional<std::string> id = modern_ ? std::nullopt : response_header(e, "Mcp-Session-Id")) {
        if (id->empty())
            diagnostic(MCPH_LOG_WARN, "ignoring an empty Mcp-Session-Id from " + config_.url);
        else if (id->size() > kMaxSessionIdBytes)
            diagnostic(MCPH_LOG_WARN, "ignoring an Mcp-Session-Id of " + std::to_string(id->size()) +
                                          " bytes from " + config_.url + " (more than " +
                                          std::to_string(kMaxSessionIdBytes) + ")");
        else if (!is_visible_ascii(*id))
            diagnostic(MCPH_LOG_WARN, "ignoring an Mcp-Session-Id with characters outside visible ASCII");
        else
            session_id_ = *id;
    }
    t.content_encoding = content_encoding(e);
    if (t.spec.kind == TransferKind::Delete || t.status == 202 || t.status == 204) {
        t.body = BodyKind::Empty;
    } else if (!t.content_encoding.empty()) {
        t.body = BodyKind::Rejected;  // compressed although we never asked: unreadable
    } else if (t.content_type == "text/event-stream") {
        t.body = BodyKind::Sse;
        t.sse = std::make_unique<SseParser>(config_.max_message_bytes);
        t.stream_opened = Clock::now();
        // subscriptions/listen: the stream is meant to stay open, quiet for as long as nothing changes.
        if (t.spec.long_lived) t.deadline = Clock::time_point::max();
    } else if (t.content_type == "application/json" && t.spec.kind == TransferKind::Post) {
        t.body = BodyKind::Json;
        // Refused before reading when the declared size is already too much; else one allocation.
        curl_off_t declared = -1;
        curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared);
        if (declared > 0 && static_cast<uint64_t>(declared) > config_.max_message_bytes)
            t.abort_reason = "the response declares Content-Length " + std::to_string(declared) +
                             ", more than maxMessageBytes (" + std::to_string(config_.max_message_bytes) +
                             " bytes); not read";
        else if (declared > 0) {
            t.buffer = SpareStrings::shared().take(static_cast<size_t>(declared));  // warm pages when one is kept
            t.buffer.reserve(static_cast<size_t>(declared));
        }
    } else {
        t.body = BodyKind::Rejected;
    }
}

void Engine::on_sse_event(Transfer& t, const SseParser::Event& event) {
    if (!event.last_event_id.empty() && event.last_event_id != t.spec.last_event_id) {
        t.spec.last_event_id = std::string(event.last_event_id);
        // Progress on a request's stream: the budget of failed attempts starts over (the
        // per-request total, `resumptions`, does not). The GET stream's budget resets only when a
        // stream stayed up (kHealthyStream): a server that sends a fresh id and hangs up at once
        // must not buy itself endless reconnects.
        if (t.spec.kind != TransferKind::Listen) t.spec.attempt = 0;
    }
    if (event.data.empty()) return;  // e.g. a priming event that only carries an id
    if (all_cancelled(t.spec.request_ids)) return;  // cancel() ran; the I/O thread drops the stream next
    if (event.type != "message") {
        diagnostic(MCPH_LOG_DEBUG, "ignoring an SSE event of type '" + std::string(event.type) + "'");
        return;
    }
    MessageShape shape = inspect_message(event.data);
    if (!shape.valid) {
        diagnostic(MCPH_LOG_WARN, "skipping an SSE event that is not valid JSON-RPC from " + config_.url + " (" +
                                      shape.problem + "): " + snippet(event.data));
        t.skipped_event = shape.problem;  // said again if the stream then ends without the response
        return;
    }
    deliver(event.data, shape);
}

// The hot path: straight from the driver (the loop thread or a pumping caller) to the host, no hop.
void Engine::deliver(std::string_view message, const MessageShape& shape) {
    if (quiet()) return;
    for (const std::string& id : shape.response_ids) tracker_.answered(id);
    ++delivered_;  // a pump ends after it (pump_rounds)
    host_.deliver(message);
}

// ---- when a transfer ends ---------------------------------------------------------------------

void Engine::on_done(std::unique_ptr<Transfer> t, CURLcode code) {
    if (quiet()) return;
    if (t->body == BodyKind::Undecided && response_status(t->easy.get()) > 0) classify(*t);
    if (t->status == 0) return on_transport_failure(*t, code);
    if (handle_session_or_auth(*t)) return;
    switch (t->spec.kind) {
        case TransferKind::Post: return on_post_done(*t, code);
        case TransferKind::Resume: return on_resume_done(*t, code);
        case TransferKind::Listen: return on_listen_done(*t, code);
        case TransferKind::Delete: return;
    }
}

// 404 on a request that carried a session id, 401 and 403: the same for every kind of transfer.
bool Engine::handle_session_or_auth(Transfer& t) {
    if (t.status == 404 && t.carried_session) {
        terminate(MCPH_CLOSE_SESSION_EXPIRED, MCPH_FAILURE_SESSION_EXPIRED,
                  "HTTP 404 from " + config_.url + ": the session expired", 404);
        return true;
    }
    if (!is_auth_challenge(t.easy.get(), t.status)) return false;
    mcph::plugin::HookRequest request = auth_challenge_request(t.easy.get(), method_of(t.spec.kind), config_.url, t.status);
    ParkedRetry retry{std::move(t.spec), t.status, request.www_authenticate, std::move(t.handshake_hold)};
    // A held notification is sent again ahead of what waits for it (start), holding it anew.
    retry.spec.ends_handshake = static_cast<bool>(retry.handshake_hold);
    if (retry.spec.auth_retries >= mcph::http::challenge_retry_budget(request)) {
        mcph::plugin::AuthAnswer refused;
        refused.status = MCPH_ERR_AUTH;
        retry_after_challenge(std::move(retry), refused);
        return true;
    }
    // The host may need a refresh or a sign-in: PENDING parks this request's retry only.
    const std::uint64_t park = next_park_++;
    mcph::plugin::AuthAnswer answer =
        host_.auth_challenge_async(request, [this, park](mcph::plugin::AuthAnswer a) {
            auth_answered(Command::Kind::AuthRetry, park, std::move(a));
        });
    if (answer.status == MCPH_PENDING) {
        parked_retries_.emplace(park, std::move(retry));
        return true;
    }
    retry_after_challenge(std::move(retry), answer);
    return true;
}

// MCPH_OK: fresh credentials, the request goes again once (asking for headers anew).
void Engine::retry_after_challenge(ParkedRetry retry, const mcph::plugin::AuthAnswer& answer) {
    if (quiet()) return;
    if (answer.status == MCPH_OK) {
        diagnostic(MCPH_LOG_INFO, "HTTP " + std::to_string(retry.status) + " from " + config_.url +
                                      ": credentials refreshed, retrying once");
        ++retry.spec.auth_retries;
        return start(std::move(retry.spec));
    }
    terminate(MCPH_CLOSE_AUTH_REQUIRED, MCPH_FAILURE_AUTH,
              "HTTP " + std::to_string(retry.status) + " from " + config_.url +
                  (retry.challenge.empty() ? "" : " (WWW-Authenticate: " + retry.challenge + ")") +
                  (answer.message.empty() ? "" : ": " + answer.message),
              retry.status);
}

// "HTTP 500 from <url>" and what the response adds: where a redirect pointed, Retry-After, the
// JSON-RPC error inside the body (else the body's first bytes).
std::string Engine::refusal(Transfer& t) const {
    std::string why = "HTTP " + std::to_string(t.status) + " from " + config_.url + redirect_note(t.easy.get(), t.status);
    if (std::optional<std::chrono::milliseconds> wait = retry_after(t.easy.get()))
        why += " (Retry-After: " + std::to_string(wait->count() / 1000) + " s)";
    if (t.buffer.empty()) return why;
    if (std::optional<std::string> rpc = jsonrpc_error_text(t.buffer)) return why + ": " + snippet(*rpc);
    return why + ": " + snippet(t.buffer);
}

void Engine::on_post_done(Transfer& t, CURLcode code) {
    std::vector<std::string> waiting = tracker_.waiting(t.spec.request_ids);
    std::string where = " from " + config_.url;
    if (!is_success(t.status)) {
        std::string why = refusal(t);
        if (waiting.empty()) return diagnostic(MCPH_LOG_WARN, why + " (for a notification or response)");
        // The status and the (bounded) body as they came: the host reads a JSON-RPC error in it.
        Failure f{MCPH_FAILURE_HTTP_STATUS, 0, static_cast<int>(t.status), why, {}, t.buffer};
        return fail_requests(waiting, f);
    }
    if (!t.abort_reason.empty()) return fail_requests(waiting, MCPH_FAILURE_PROTOCOL, t.abort_reason + where, t.status);
    if (!t.content_encoding.empty()) {
        std::string why = "the response" + where + " is compressed (Content-Encoding: " + t.content_encoding +
                          "), which this client never asks for and cannot read";
        if (waiting.empty()) return diagnostic(MCPH_LOG_WARN, why);
        return fail_requests(waiting, MCPH_FAILURE_PROTOCOL, why, t.status);
    }
    switch (t.body) {
        case BodyKind::Json: return on_json_done(t, code);
        case BodyKind::Sse: return on_stream_done(t, code);
        case BodyKind::Rejected:
            if (waiting.empty()) return;
            return fail_requests(waiting, MCPH_FAILURE_PROTOCOL,
                                 "unexpected content type '" + t.content_type + "'" + where +
                                     (t.buffer.empty() ? "" : ": " + snippet(t.buffer)),
                                 t.status);
        default:
            // 202 for a request: the spec wants JSON or SSE. In the modern era nothing else can
            // carry the answer (no GET stream), so the request failed.
            if (modern_ && !waiting.empty())
                return fail_requests(waiting, MCPH_FAILURE_PROTOCOL,
                                     "HTTP " + std::to_string(t.status) + where +
                                         " without a body for a request (2026-07-28 answers a request on its POST)",
                                     t.status);
            // Legacy: a lenient server may answer on the GET stream later; the host's request
            // timer covers the case where it never does.
            if (!waiting.empty()) diagnostic(MCPH_LOG_DEBUG, "HTTP " + std::to_string(t.status) + where +
                                                                 " without a body for a request");
            return;
    }
}

void Engine::on_json_done(Transfer& t, CURLcode code) {
    std::string where = " from " + config_.url;
    if (code != CURLE_OK)
        return fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_RESET,
                             "the JSON response" + where + " was cut: " + curl_failure_text(code), t.status);
    MessageShape shape = inspect_message(t.buffer);
    if (!shape.valid) {
        if (t.spec.request_ids.empty() && t.buffer.find_first_not_of(" \t\r\n") == std::string::npos) return;
        return fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_PROTOCOL,
                             "unusable JSON response" + where + " (" + shape.problem + "): " + snippet(t.buffer),
                             t.status);
    }
    deliver(t.buffer, shape);
    std::vector<std::string> left = tracker_.waiting(t.spec.request_ids);
    if (left.empty()) return;
    // Typically {"id":null,"error":…}: the server could not tell which request failed. Say so
    // with its error, rather than that it "did not answer".
    if (std::optional<std::string> rpc = jsonrpc_error_text(t.buffer))
        return fail_requests(left, MCPH_FAILURE_PROTOCOL, "the server answered" + where + " with an error for no request id (" +
                                       snippet(*rpc) + ")", t.status);
    fail_requests(left, MCPH_FAILURE_PROTOCOL, "the JSON response" + where + " did not answer the request", t.status);
}

// A POST's SSE stream, or its resumption, ended. Done when every request it carried has been
// answered; otherwise resume from the last event id (the spec's "Resumability and Redelivery").
void Engine::on_stream_done(Transfer& t, CURLcode code) {
    if (!t.abort_reason.empty())
        return fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_PROTOCOL,
                             t.abort_reason + " from " + config_.url, t.status);
    if (code == CURLE_OK) {
        StreamSink sink(t, [this](Transfer& tr, const SseParser::Event& e) { on_sse_event(tr, e); });
        t.sse->finish(sink);
    }
    if (quiet()) return;
    if (!tracker_.any_waiting(t.spec.request_ids)) {
        note_cancelled(t.spec.request_ids);
        return;
    }
    std::string why = "the SSE stream from " + config_.url + " ended before the response";
    if (code != CURLE_OK) why += " (" + curl_failure_text(code) + ")";
    if (!t.skipped_event.empty()) why += " (it carried an unusable event: " + t.skipped_event + ")";
    // 2026-07-28 streams are not resumable: the request failed as a reset, which the host may
    // re-issue under a new id.
    if (modern_) return fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_RESET, why, t.status);
    resume_or_fail(t, why);
}

void Engine::resume_or_fail(Transfer& t, const std::string& why) {
    std::vector<std::string> waiting = tracker_.waiting(t.spec.request_ids);
    if (waiting.empty()) return;
    if (t.spec.last_event_id.empty()) return fail_requests(waiting, MCPH_FAILURE_RESET, why + "; it cannot be resumed (no event id)", 0);
    if (t.spec.last_event_id.size() > kMaxEventIdBytes)
        return fail_requests(waiting, MCPH_FAILURE_RESET, why + "; it cannot be resumed: its last event id is " +
                                          std::to_string(t.spec.last_event_id.size()) + " bytes, more than the " +
                                          std::to_string(kMaxEventIdBytes) + " a Last-Event-ID header may carry");
    if (t.spec.attempt >= kMaxReconnectAttempts)
        return fail_requests(waiting, MCPH_FAILURE_RESET, why + "; gave up after " + std::to_string(t.spec.attempt) +
                                          " resumptions without progress");
    if (t.spec.resumptions >= kMaxResumptionsPerRequest)
        return fail_requests(waiting, MCPH_FAILURE_RESET, why + "; gave up after " + std::to_string(t.spec.resumptions) +
                                          " resumptions of this request (the server keeps ending the stream)");
    TransferSpec next = t.spec.reconnect(TransferKind::Resume, std::move(waiting));
    std::chrono::milliseconds delay = reconnect_delay(next);
    diagnostic(MCPH_LOG_INFO, why + "; resuming with Last-Event-ID " + next.last_event_id.substr(0, 200) + " in " +
                                  std::to_string(delay.count()) + " ms");
    schedule(delay, std::move(next));
}

// The SSE `retry:` (raised to kMinRetry), doubled from the third consecutive attempt without
// progress, capped at kMaxBackoff (or the server's own longer `retry:`), and never shorter than
// a Retry-After the server sent with its last refusal.
std::chrono::milliseconds Engine::reconnect_delay(const TransferSpec& next) const {
    std::chrono::milliseconds base = std::clamp(next.retry, kMinRetry, std::max(kMaxBackoff, kMinRetry));
    std::chrono::milliseconds delay = base;
    for (int i = 2; i < next.attempt && delay < kMaxBackoff; ++i) delay *= 2;
    delay = std::min(delay, std::max(kMaxBackoff, base));
    return std::max(delay, next.server_wait);
}

void Engine::on_resume_done(Transfer& t, CURLcode code) {
    std::string where = " from " + config_.url;
    if (t.status == 405)
        return fail_requests(tracker_.waiting(t.spec.request_ids), MCPH_FAILURE_RESET,
                             "the stream" + where + " was cut and the server cannot resume it (HTTP 405)", 405);
    if (!is_success(t.status) || t.body != BodyKind::Sse) {
        t.spec.server_wait = retry_after(t.easy.get()).value_or(std::chrono::milliseconds(0));
        return resume_or_fail(t, "resuming the stream" + where + " failed: " +
                                     (is_success(t.status) ? "HTTP " + std::to_string(t.status) + " " + t.content_type
                                                           : refusal(t)));
    }
    on_stream_done(t, code);
}

void Engine::on_listen_done(Transfer& t, CURLcode code) {
    if (t.status == 405) return diagnostic(MCPH_LOG_DEBUG, "the server offers no GET stream (HTTP 405)");
    if (is_success(t.status) && t.body == BodyKind::Sse) {
        if (code == CURLE_OK) {
            StreamSink sink(t, [this](Transfer& tr, const SseParser::Event& e) { on_sse_event(tr, e); });
            t.sse->finish(sink);
        }
        // A stream that lived a while was healthy: a later drop (an idle proxy, a redeploy) starts
        // a fresh reconnect budget. Streams that die at once keep using it up.
        if (Clock::now() - t.stream_opened >= kHealthyStream) t.spec.attempt = 0;
        return reconnect_listen(t, "the GET stream ended");
    }
    std::string why = "the GET stream was refused: " + refusal(t);
    if (!t.content_type.empty()) why += " (" + t.content_type + ")";
    if (!t.content_encoding.empty()) why += " (compressed: Content-Encoding " + t.content_encoding + ")";
    t.spec.server_wait = retry_after(t.easy.get()).value_or(std::chrono::milliseconds(0));
    reconnect_listen(t, why);
}

void Engine::reconnect_listen(Transfer& t, const std::string& why) {
    if (quiet()) return;
    if (t.spec.attempt >= kMaxReconnectAttempts)
        return diagnostic(MCPH_LOG_WARN, why + "; giving up on it after " + std::to_string(t.spec.attempt) +
                                             " attempts (POST responses still work)");
    if (t.spec.last_event_id.size() > kMaxEventIdBytes)
        return diagnostic(MCPH_LOG_WARN, why + "; giving up on it: its last event id is " +
                                             std::to_string(t.spec.last_event_id.size()) + " bytes, more than the " +
                                             std::to_string(kMaxEventIdBytes) + " a Last-Event-ID header may carry");
    TransferSpec next = t.spec.reconnect(TransferKind::Listen, {});
    std::chrono::milliseconds delay = reconnect_delay(next);
    diagnostic(MCPH_LOG_DEBUG, why + "; reconnecting in " + std::to_string(delay.count()) + " ms");
    schedule(delay, std::move(next));
}

// No HTTP response at all: refused, unresolvable, TLS failure, reset before the status line. The
// category comes from the CURLcode and the OS errno, never from curl's text.
void Engine::on_transport_failure(Transfer& t, CURLcode code) {
    std::string why = curl_failure_text(code);
    if (t.error[0]) why += std::string(": ") + t.error;
    why += std::string(" (") + method_of(t.spec.kind) + " " + config_.url + ")";
    const int os_error = os_errno(t.easy.get());
    Failure f{failure_category(code, os_error), os_error, 0, why, {}, {}};
    ++consecutive_failures_;
    switch (t.spec.kind) {
        case TransferKind::Post: {
            std::vector<std::string> waiting = tracker_.waiting(t.spec.request_ids);
            if (waiting.empty()) {
                f.message = "a message was not delivered: " + why;
                if (!quiet()) host_.failure(MCPH_LOG_WARN, f);
            } else {
                if (!quiet()) host_.failure(MCPH_LOG_WARN, f);
                fail_requests(waiting, f, /*log=*/false);
            }
            break;
        }
        case TransferKind::Resume:
        case TransferKind::Listen:
            // Typed for the host's health monitor; the human line comes from the retry below.
            if (!quiet()) host_.failure(MCPH_LOG_DEBUG, f);
            if (t.spec.kind == TransferKind::Resume) resume_or_fail(t, why);
            else reconnect_listen(t, why);
            break;
        case TransferKind::Delete: break;
    }
    if (consecutive_failures_ >= kMaxConsecutiveFailures) {
        f.message = why + " (" + std::to_string(consecutive_failures_) + " failures in a row)";
        terminate(MCPH_CLOSE_ERROR, f);
    }
}

void Engine::on_timeout(Transfer& t) {
    std::string why = t.body == BodyKind::Sse
                          ? "timed out: the SSE stream from " + config_.url + " was silent for " +
                                std::to_string(config_.timeout.count()) + " ms (timeoutMs)"
                          : "timed out after " + std::to_string(config_.timeout.count()) +
                                " ms (timeoutMs) waiting for " + method_of(t.spec.kind) + " " + config_.url;
    std::vector<std::string> waiting = tracker_.waiting(t.spec.request_ids);
    if (waiting.empty()) return diagnostic(MCPH_LOG_WARN, why);
    fail_requests(waiting, MCPH_FAILURE_TIMEOUT, why);
}

// Reports the requests whose responses will never come, so none hangs on a broken exchange. A
// host of ABI 1.0 gets a synthesized JSON-RPC error instead (plugin_helper.hpp).
void Engine::fail_requests(const std::vector<std::string>& ids, const Failure& failure, bool log) {
    if (log) diagnostic(MCPH_LOG_WARN, failure.message);
    for (const std::string& id : ids) {
        std::string host_id = tracker_.host_id(id);
        if (!tracker_.answered(id) || quiet() || is_cancelled(host_id)) continue;
        ++delivered_;
        host_.request_failed(host_id, failure);
    }
}

void Engine::fail_requests(const std::vector<std::string>& ids, mcph_failure_category category, const std::string& why,
                           long http_status) {
    fail_requests(ids, Failure{category, 0, static_cast<int>(http_status), why, {}, {}});
}

void Engine::terminate(mcph_close_reason reason, const Failure& failure) {
    if (terminated_) return;
    terminated_ = true;
    ended_.store(true);  // before on_closed: a send() from inside it already sees MCPH_ERR_CLOSED
    abort_all();
    ++delivered_;
    if (!stopping_.load()) host_.closed(reason, failure);
}

void Engine::terminate(mcph_close_reason reason, mcph_failure_category category, const std::string& detail,
                       long http_status) {
    terminate(reason, Failure{category, 0, static_cast<int>(http_status), detail, {}, {}});
}

void Engine::diagnostic(mcph_log_level level, const std::string& message) {
    if (!quiet()) host_.diagnostic(level, message);
}

bool Engine::quiet() const { return terminated_ || stopping_.load(); }

}  // namespace mcph::http
