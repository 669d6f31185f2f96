// The GET event stream: body bytes as they arrive (the write callback, shared with POSTs), the
// `endpoint` and `message` events, and what it means when the stream ends — a failed start()
// before the endpoint event, on_closed(ERROR) after it.
#include "auth_request.hpp"
#include "transfer_failure.hpp"
#include "endpoint_url.hpp"
#include "jsonrpc_shape.hpp"
#include "response_notes.hpp"
#include "snippet.hpp"
#include "sse_engine.hpp"

namespace mcph::sse {
namespace {

using mcph::http::snippet;

using mcph::http::SseParser;

constexpr size_t kHeadBytes = 1024;  // kept of a body we do not parse, for error messages
// The parser bounds a line plus the event's data; the field name and framing ride on top of the
// message itself.
constexpr size_t kEventOverhead = 1024;

class StreamSink final : public SseParser::Sink {
public:
    StreamSink(Exchange& x, SseEngine& engine, void (SseEngine::*on_event)(Exchange&, const SseParser::Event&))
        : x_(x), engine_(engine), on_event_(on_event) {}
    void on_event(const SseParser::Event& e) override { (engine_.*on_event_)(x_, e); }
    // `retry:` is for clients that reconnect by themselves; this transport leaves that to the host.
    void on_retry(uint64_t) override {}

private:
    Exchange& x_;
    SseEngine& engine_;
    void (SseEngine::*on_event_)(Exchange&, const SseParser::Event&);
};

}  // namespace

// ---- while the body arrives ---------------------------------------------------------------------

size_t SseEngine::write_callback(char* data, size_t size, size_t count, void* user) noexcept {
    auto* x = static_cast<Exchange*>(user);
    try {
        return x->engine->on_body(*x, std::string_view(data, size * count));
    } catch (const std::exception& e) {
        x->abort_reason = std::string("internal error: ") + e.what();
        return 0;  // no exception may cross libcurl's C frames
    }
}

// The stream's status is known at the end of its headers, which may be long before the first body
// byte: start()'s timeout message can then tell "no answer" from "answered but no endpoint".
size_t SseEngine::header_callback(char* data, size_t size, size_t count, void* user) noexcept {
    auto* x = static_cast<Exchange*>(user);
    std::string_view line(data, size * count);
    if (line == "\r\n" || line == "\n") x->engine->stream_status_.store(mcph::http::response_status(x->easy.get()));
    return size * count;
}

size_t SseEngine::on_body(Exchange& x, std::string_view data) {
    if (quiet()) return 0;  // close() began or the transport ended: cut the transfer short
    if (x.body == Body::Undecided) classify(x);
    switch (x.body) {
        case Body::Events:
            return on_stream_bytes(x, data);
        case Body::Rejected:  // enough to explain the refusal; then stop reading
            x.head.append(data.substr(0, kHeadBytes - x.head.size()));
            return x.head.size() < kHeadBytes ? data.size() : 0;
        default:  // a POST's body: keep the head, read the rest so the connection can be reused
            if (x.head.size() < kHeadBytes) x.head.append(data.substr(0, kHeadBytes - x.head.size()));
            return data.size();
    }
}

// Decides what the body is once the status line and headers are in (at the first body byte, or
// at completion when there is no body).
void SseEngine::classify(Exchange& x) {
    x.status = mcph::http::response_status(x.easy.get());
    x.content_type = mcph::http::content_type(x.easy.get());
    if (x.kind == ExchangeKind::Post) {
        x.body = Body::Ignored;
        x.status_line_in();  // the server has the message: what the handshake hold kept may go
        return;
    }
    stream_status_.store(x.status);
    x.content_encoding = mcph::http::content_encoding(x.easy.get());
    if (x.status == 200 && x.content_type == "text/event-stream" && x.content_encoding.empty()) {
        x.body = Body::Events;
        x.sse = std::make_unique<SseParser>(config_.max_message_bytes + kEventOverhead);
    } else {
        x.body = Body::Rejected;
    }
}

size_t SseEngine::on_stream_bytes(Exchange& x, std::string_view data) {
    StreamSink sink(x, *this, &SseEngine::on_event);
    if (x.sse->feed(data, sink) == SseParser::Status::TooLarge) {
        x.abort_reason = "an SSE event is larger than maxMessageBytes (" + std::to_string(config_.max_message_bytes) +
                         " bytes)";
        x.abort_category = MCPH_FAILURE_PROTOCOL;
        return 0;
    }
    return quiet() || !x.abort_reason.empty() ? 0 : data.size();
}

void SseEngine::on_event(Exchange& x, const SseParser::Event& event) {
    if (quiet() || !x.abort_reason.empty()) return;  // the rest of a chunk we are abandoning
    ++progress_;
    if (event.type == "endpoint") return on_endpoint(x, event.data);
    if (event.type != "message") {
        diagnostic(MCPH_LOG_DEBUG, "ignoring an SSE event of type '" + std::string(event.type) + "'");
        return;
    }
    if (event.data.empty()) return;
    // The server must name its endpoint first. A message before that is dropped: delivering it
    // could put a message in front of the host for a transport whose start() then fails.
    if (!open_.load())
        return diagnostic(MCPH_LOG_WARN, "dropping a message event sent before the endpoint event: " +
                                             snippet(event.data));
    on_message_event(event.data);
}

void SseEngine::on_endpoint(Exchange& x, std::string_view data) {
    ResolvedEndpoint r = resolve_endpoint(config_.url, data);
    if (open_.load()) {
        // The legacy client in the TypeScript SDK follows a later endpoint event too; the same
        // origin rule applies, and a refused one leaves the current endpoint in place.
        if (!r.error.empty()) {
            mcph::plugin::Failure f;
            f.category = MCPH_FAILURE_PROTOCOL;
            f.message = "ignoring a later endpoint event: " + r.error;
            return report_failure(MCPH_LOG_WARN, f);
        }
        if (r.url != endpoint_) {
            endpoint_ = r.url;
            diagnostic(MCPH_LOG_INFO, "the server moved its message endpoint to " + endpoint_);
        }
        return;
    }
    if (!r.error.empty()) {
        x.abort_reason = r.error;  // start() fails once the transfer has stopped (on_stream_done)
        return;
    }
    endpoint_ = r.url;
    open_.store(true);  // before succeed(): send() may come the moment start() returns
    if (!handshake_.succeed()) {
        // start() gave up an instant ago (its deadline passed): the transport must not open now.
        open_.store(false);
        x.abort_reason = "the endpoint event came after start() gave up";
        return;
    }
    diagnostic(MCPH_LOG_DEBUG, "message endpoint: " + endpoint_);
}

// The hot path: straight from the I/O thread to the host, no hop, no lock.
void SseEngine::on_message_event(std::string_view data) {
    mcph::http::MessageShape shape = mcph::http::inspect_message(data);
    if (!shape.valid) {
        mcph::plugin::Failure f;
        f.category = MCPH_FAILURE_PROTOCOL;
        f.message = "skipping an SSE message event that is not a JSON object or array from " + config_.url + " (" +
                    shape.problem + "): " + snippet(data);
        return report_failure(MCPH_LOG_WARN, f);
    }
    // A response can overtake its POST's 202: once answered, a later POST failure is not news.
    for (const std::string& id : shape.response_ids) in_flight_.erase(id);
    if (!quiet()) host_.deliver(data);
}

// ---- when the stream ends -----------------------------------------------------------------------

// "HTTP 500 from <url>" and what the response adds: where a redirect pointed, Retry-After, the
// JSON-RPC error inside the body (else the body's first bytes). Shared with failed POSTs.
std::string SseEngine::refusal(const Exchange& x) const {
    std::string why = "HTTP " + std::to_string(x.status) + " from " + x.url +
                      mcph::http::redirect_note(x.easy.get(), x.status);
    if (std::optional<std::chrono::milliseconds> wait = mcph::http::retry_after(x.easy.get()))
        why += " (Retry-After: " + std::to_string(wait->count() / 1000) + " s)";
    if (x.head.empty()) return why;
    if (std::optional<std::string> rpc = mcph::http::jsonrpc_error_text(x.head)) return why + ": " + snippet(*rpc);
    return why + ": " + snippet(x.head);
}

void SseEngine::on_stream_done(Exchange& x, CURLcode code) {
    if (x.body == Body::Undecided && mcph::http::response_status(x.easy.get()) > 0) classify(x);
    if (x.body == Body::Events && code == CURLE_OK && x.abort_reason.empty()) {
        StreamSink sink(x, *this, &SseEngine::on_event);
        x.sse->finish(sink);  // a last event the server did not terminate with a blank line
    }
    if (quiet()) return;
    if (!open_.load()) return on_stream_refused(x, code);
    // The legacy transport has no resumption: the session ends with its stream. Reconnecting
    // (a new GET, a new session, a new initialize) is the host's call, so even a clean end is an
    // ERROR here: CLEAN would tell the host the server meant to go away.
    const auto text = [&](const std::string& why) { return "SSE stream disconnected: " + why + " (" + config_.url + ")"; };
    mcph::plugin::Failure f;
    if (!x.abort_reason.empty()) {
        f.category = x.abort_category;
        f.message = text(x.abort_reason);
    } else if (code == CURLE_OK) {
        f.category = MCPH_FAILURE_RESET;  // an end of stream the protocol has no place for
        f.message = text("the server ended the stream");
    } else {
        f = curl_failure_of(x.easy.get(), code, text(curl_failure(x, code)));
    }
    terminate(MCPH_CLOSE_ERROR, std::move(f));
}

// The stream ended before the endpoint event: say exactly why, so start() fails with a message a
// user can act on (HTTP status, content type, the first bytes of the body).
void SseEngine::on_stream_refused(Exchange& x, CURLcode code) {
    if (!handshake_.pending()) return fail_start(MCPH_ERR_TIMEOUT, "");  // start() already gave up
    const std::string& url = config_.url;
    if (x.status == 0) return fail_start(MCPH_ERR_IO, "cannot connect to " + url + ": " + curl_failure(x, code));
    if ((x.status == 401 || x.status == 403) && retry_stream_after_challenge(x)) return;
    if (x.status == 401 || x.status == 403) {
        std::string challenge = mcph::http::response_header(x.easy.get(), "WWW-Authenticate").value_or("");
        return fail_start(MCPH_ERR_AUTH, "HTTP " + std::to_string(x.status) + " from " + url +
                                             (challenge.empty() ? "" : " (WWW-Authenticate: " + challenge + ")") +
                                             ": the server requires credentials we could not supply");
    }
    if (x.status != 200) return fail_start(MCPH_ERR_IO, refusal(x));
    if (!x.content_encoding.empty())
        return fail_start(MCPH_ERR_IO, "the SSE stream from " + url + " is compressed (Content-Encoding: " +
                                           x.content_encoding + "), which this client never asks for and cannot read");
    if (x.body == Body::Rejected) {
        std::string why = "expected Content-Type text/event-stream from " + url + ", got '" + x.content_type +
                          "' (HTTP 200)";
        if (!x.head.empty()) why += ": " + snippet(x.head);
        return fail_start(MCPH_ERR_IO, why + " (is this a Streamable HTTP server? use type \"http\")");
    }
    if (!x.abort_reason.empty()) return fail_start(MCPH_ERR_IO, x.abort_reason);
    std::string why = "the SSE stream from " + url + " ended before the endpoint event";
    if (code != CURLE_OK) why += ": " + curl_failure(x, code);
    fail_start(MCPH_ERR_IO, why);
}

// 401/403 on the GET: ask the host (its auth plugin); MCPH_OK means fresh credentials. Once, twice
// when the refusal demands a DPoP nonce (challenge_retry_budget).
bool SseEngine::retry_stream_after_challenge(Exchange& x) {
    mcph::plugin::HookRequest refusal = mcph::http::auth_challenge_request(x.easy.get(), "GET", config_.url, x.status);
    if (stream_auth_retries_ >= mcph::http::challenge_retry_budget(refusal)) return false;
    handshake_.pause();  // an interactive login may take minutes; it is bounded by the auth plugin
    bool retry = host_.auth_challenge(refusal).status == MCPH_OK;
    if (quiet()) return true;
    if (!retry) return false;
    ++stream_auth_retries_;
    diagnostic(MCPH_LOG_INFO, "HTTP " + std::to_string(x.status) + " from " + config_.url +
                                  ": credentials refreshed, retrying once");
    open_stream();
    return true;
}

}  // namespace mcph::sse
