// What a finished POST means. The server answers on the event stream, so a POST only says
// "accepted" (200/202) or why not; a request whose POST failed gets a synthesized JSON-RPC error
// response right away, so no request waits for an answer that cannot come.
#include "jsonrpc_shape.hpp"
#include "sse_engine.hpp"

namespace mcph::sse {
namespace {

bool is_success(long status) { return status >= 200 && status < 300; }

}  // namespace

void SseEngine::on_post_done(std::unique_ptr<Exchange> x, CURLcode code) {
    if (x->body == Body::Undecided) classify(*x);
    if (quiet()) return forget(*x);
    if (x->status == 0) {
        std::string why = code == CURLE_OPERATION_TIMEDOUT
                              ? "timed out after " + std::to_string(config_.timeout.count()) +
                                    " ms (timeoutMs) waiting for POST " + x->url
                              : curl_failure(*x, code) + " (POST " + x->url + ")";
        return post_failed(*x, why, 0);
    }
    if ((x->status == 401 || x->status == 403) && retry_post_after_challenge(x)) return;
    if (x->status == 401 || x->status == 403) {
        std::string challenge = mcph::http::response_header(x->easy.get(), "WWW-Authenticate").value_or("");
        forget(*x);
        return terminate(MCPH_CLOSE_AUTH_REQUIRED,
                         "HTTP " + std::to_string(x->status) + " from " + x->url +
                             (challenge.empty() ? "" : " (WWW-Authenticate: " + challenge + ")"));
    }
    // The status line arrived: the server has the message, even if its short body was cut.
    if (is_success(x->status)) return forget(*x);
    post_failed(*x, refusal(*x), x->status);
}

// 401/403: ask the host once; MCPH_OK means fresh credentials, so the same message goes again.
bool SseEngine::retry_post_after_challenge(std::unique_ptr<Exchange>& x) {
    if (x->auth_retried) return false;
    std::string challenge = mcph::http::response_header(x->easy.get(), "WWW-Authenticate").value_or("");
    bool retry = host_.auth_challenge(static_cast<int>(x->status), challenge, x->url);
    if (quiet()) {
        forget(*x);
        return true;
    }
    if (!retry) return false;
    diagnostic(MCPH_LOG_INFO, "HTTP " + std::to_string(x->status) + " from " + x->url +
                                  ": credentials refreshed, retrying once");
    start_post(std::move(x->message), true);  // still counted in the outbox: same message
    return true;
}

void SseEngine::post_failed(Exchange& x, const std::string& why, long http_status) {
    if (x.message.request_ids.empty()) diagnostic(MCPH_LOG_WARN, "a message was not delivered: " + why);
    else fail_requests(x.message.request_ids, why, http_status);
    forget(x);
}

// Stands in for responses that will never come. Requests already answered on the stream (a
// response can overtake its POST's status line) are left alone.
void SseEngine::fail_requests(const std::vector<std::string>& ids, const std::string& why, long http_status) {
    diagnostic(MCPH_LOG_WARN, why);
    for (const std::string& id : ids) {
        if (in_flight_.erase(id) == 0 || quiet()) continue;
        host_.deliver(mcph::http::error_response(id, why, http_status));
    }
}

// The POST is over: its requests are no longer ours to answer, its bytes no longer queued.
void SseEngine::forget(const Exchange& x) {
    for (const std::string& id : x.message.request_ids) in_flight_.erase(id);
    outbox_.done(x.message.payload.size());
}

}  // namespace mcph::sse
