// What a finished POST means. The server answers on the event stream, so a POST only says
// "accepted" (200/202) or why not; a request whose POST failed is reported failed right away
// (request_failed, typed: the HTTP status and body, or why no status came), so no request waits
// for an answer that cannot come.
#include "auth_request.hpp"
#include "transfer_failure.hpp"
#include "snippet.hpp"
#include "jsonrpc_shape.hpp"
#include "sse_engine.hpp"

namespace mcph::sse {
namespace {

bool is_success(long status) { return status >= 200 && status < 300; }

// The server refused the POST with an error status: the status, the explanation, and the head of
// the body (at most 1 KiB, kept by on_body) in case it holds the server's JSON-RPC error.
mcph::plugin::Failure refused(long status, std::string why, const std::string& body, mcph_failure_category category) {
    mcph::plugin::Failure f;
    f.category = category;
    f.http_status = static_cast<int>(status);
    f.message = std::move(why);
    f.body = body;
    return f;
}

}  // namespace

void SseEngine::on_post_done(std::unique_ptr<Exchange> x, CURLcode code) {
    if (x->body == Body::Undecided) classify(*x);
    if (quiet()) return forget(*x);
    if (x->status == 0) {
        std::string why = code == CURLE_OPERATION_TIMEDOUT
                              ? "timed out after " + std::to_string(config_.timeout.count()) +
                                    " ms (timeoutMs) waiting for POST " + x->url
                              : curl_failure(*x, code) + " (POST " + x->url + ")";
        return post_failed(*x, curl_failure_of(x->easy.get(), code, why));
    }
    if ((x->status == 401 || x->status == 403) && retry_post_after_challenge(x)) return;
    if (x->status == 401 || x->status == 403) return refuse_post(*x, "");
    // The status line arrived: the server has the message, even if its short body was cut.
    if (is_success(x->status)) return forget(*x);
    post_failed(*x, refused(x->status, refusal(*x), x->head, MCPH_FAILURE_HTTP_STATUS));
}

void SseEngine::refuse_post(Exchange& x, const std::string& reason) {
    std::string challenge = mcph::http::response_header(x.easy.get(), "WWW-Authenticate").value_or("");
    forget(x);
    terminate(MCPH_CLOSE_AUTH_REQUIRED,
              refused(x.status,
                      "HTTP " + std::to_string(x.status) + " from " + x.url +
                          (challenge.empty() ? "" : " (WWW-Authenticate: " + challenge + ")") +
                          (reason.empty() ? "" : ": " + reason),
                      {}, MCPH_FAILURE_AUTH));
}

// 401/403: ask the host; MCPH_OK means fresh credentials, so the same message goes again. Once per
// message, twice when the refusal demands a DPoP nonce (challenge_retry_budget).
// PENDING (ABI v1.2: a refresh or a sign-in) parks this POST only; the stream keeps delivering.
bool SseEngine::retry_post_after_challenge(std::unique_ptr<Exchange>& x) {
    mcph::plugin::HookRequest refusal = mcph::http::auth_challenge_request(x->easy.get(), "POST", x->url, x->status);
    if (x->auth_retries >= mcph::http::challenge_retry_budget(refusal)) return false;
    const std::uint64_t park = next_park_++;
    mcph::plugin::AuthAnswer answer = host_.auth_challenge_async(
        std::move(refusal),
        [this, park](mcph::plugin::AuthAnswer a) { auth_answered(park, true, std::move(a)); });
    if (answer.status == MCPH_PENDING) {
        parked_retries_.emplace(park, std::move(x));
        return true;
    }
    if (answer.status != MCPH_OK && !quiet()) return false;
    after_challenge(std::move(x), answer);
    return true;
}

void SseEngine::after_challenge(std::unique_ptr<Exchange> x, const mcph::plugin::AuthAnswer& answer) {
    if (quiet()) return forget(*x);
    if (answer.status != MCPH_OK) return refuse_post(*x, answer.message);
    diagnostic(MCPH_LOG_INFO, "HTTP " + std::to_string(x->status) + " from " + x->url +
                                  ": credentials refreshed, retrying once");
    start_post(std::move(x->message), x->auth_retries + 1);  // still counted in the outbox: same message
}

void SseEngine::post_failed(Exchange& x, mcph::plugin::Failure why) {
    if (x.message.request_ids.empty()) {
        why.message = "a message was not delivered: " + why.message;
        report_failure(MCPH_LOG_WARN, why);
    } else {
        fail_requests(x.message.request_ids, why);
    }
    forget(x);
}

// Stands in for responses that will never come: each request fails with the POST's failure, and
// the failure itself goes to the host once (on_failure: its health monitor counts the link's
// failures, not each request's). Requests already answered on the stream (a response can
// overtake its POST's status line) are left alone.
void SseEngine::fail_requests(const std::vector<std::string>& ids, const mcph::plugin::Failure& why) {
    report_failure(MCPH_LOG_WARN, why);
    for (const std::string& id : ids) {
        if (in_flight_.erase(id) == 0 || quiet()) continue;
        host_.request_failed(id, why);
    }
}

// The POST is over: its requests are no longer ours to answer, its bytes no longer queued.
void SseEngine::forget(const Exchange& x) {
    for (const std::string& id : x.message.request_ids) in_flight_.erase(id);
    outbox_.done(x.message.payload.size());
}

}  // namespace mcph::sse
