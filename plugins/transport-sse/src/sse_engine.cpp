// The curl multi loop and the starting of exchanges. The event stream: sse_engine_stream.cpp;
// finished POSTs: sse_engine_post.cpp.
#include "sse_engine.hpp"
#include "auth_request.hpp"

#include "transfer_failure.hpp"
#include "curl_loop.hpp"
#include "response_notes.hpp"
#include "threads.hpp"  // plugins/io-common

#include <algorithm>
#include <new>
#include <utility>

namespace mcph::sse {
namespace {

using namespace std::chrono_literals;
using mcph::http::append_header;
using mcph::http::new_easy;
using mcph::http::setopt;
using mcph::plugin::Error;

constexpr const char* kLoopThreadName = "mcph-sse-loop";  // at most 15 bytes
constexpr int kMaxPollMs = 1000;  // an upper bound only: wakeups and curl's own timers cut it short
constexpr size_t kMaxQueuedMessages = 10000;

mcph::plugin::Failure typed(mcph_failure_category category, std::string message, int http_status = 0) {
    mcph::plugin::Failure f;
    f.category = category;
    f.http_status = http_status;
    f.message = std::move(message);
    return f;
}


}  // namespace

SseEngine::SseEngine(mcph::plugin::TransportHost host, const SseConfig& config, Handshake& handshake,
                     const std::atomic<bool>& stopping, std::atomic<bool>& ended)
    : host_(host), config_(config), handshake_(handshake), stopping_(stopping), ended_(ended),
      outbox_(kMaxQueuedMessages, std::max<size_t>(config.max_message_bytes * 2, size_t{64} << 20)),
      role_(idle_watch(), this, &SseEngine::revive_from_watch, "the SSE loop thread", [this] { run(); }),
      quiet_(config.loop_idle) {}

SseEngine::~SseEngine() { abort_all(); }

// connectTimeoutMs bounds the whole connect — TCP, TLS, the GET's answer and the endpoint event —
// (issue #10 item 6: it used to add 5 s of grace, so `--connect-timeout 2s` still waited 15 s).
std::chrono::milliseconds SseEngine::handshake_window() const { return config_.connect_timeout; }

std::string SseEngine::handshake_timeout_message() const {
    long status = stream_status_.load();
    return "no endpoint event from " + config_.url + " within " + std::to_string(handshake_window().count()) +
           " ms (connectTimeoutMs)" +
           (status > 0 ? "; the stream answered HTTP " + std::to_string(status) + " but sent no endpoint event"
                       : "; no HTTP response");
}

// ---- the loop -----------------------------------------------------------------------------------

// The first thread opens the stream; a thread started again after a retirement takes the loop up
// where the last one left it. The cleanup runs on the thread that ends the loop, not on one that
// retires (the watch holds the transfers' sockets then).
void SseEngine::run() noexcept {
    io::name_this_thread(kLoopThreadName);
    quiet_.restart(Clock::now());  // a revived thread waits a whole loopIdleMs before it may retire again
    if (!std::exchange(stream_opened_, true)) {
        try {
            open_stream();
        } catch (const std::exception& e) {
            on_internal_error(e.what());
        }
    }
    while (!stopping_.load() && !terminated_) {
        try {
            step();
        } catch (const std::exception& e) {
            on_internal_error(e.what());
        }
        if (stopping_.load() || terminated_) break;
        if (try_retire()) return;
        exchanges_.poll(quiet_.poll_ms(kMaxPollMs));
    }
    abort_all();
}

void SseEngine::step() {
    take_auth_answers();
    drain_outbox();
    // The write callback delivers events from here; finished exchanges are handled after.
    exchanges_.perform_and_reap(
        [this](std::unique_ptr<Exchange> x, CURLcode code) {
            ++progress_;
            if (x->kind == ExchangeKind::Stream) on_stream_done(*x, code);
            else on_post_done(std::move(x), code);
        },
        [this] { return terminated_; });
    release_held();
}

void SseEngine::drain_outbox() {
    for (Outgoing& m : outbox_.take_all()) {
        if (quiet()) return;
        ++progress_;
        if (m.handshake_end) holding_ = unanswered_posts_ > 0;
        else if (holding_) held_.push_back(std::move(m));
        else start_post(std::move(m), 0);
    }
}

void SseEngine::release_held() {
    if (!holding_ || unanswered_posts_ > 0) return;
    holding_ = false;
    while (!held_.empty() && !quiet()) {
        Outgoing m = std::move(held_.front());
        held_.pop_front();
        start_post(std::move(m), 0);
    }
}

void SseEngine::abort_all() noexcept {
    held_.clear();
    parked_.clear();  // a late answer finds nothing
    parked_retries_.clear();
    exchanges_.clear();
}

// ---- starting exchanges -------------------------------------------------------------------------

void SseEngine::open_stream() {
    handshake_.pause();  // the auth hook may block; it is not the network's time
    std::unique_ptr<Exchange> x = make_exchange(ExchangeKind::Stream, config_.url);
    if (!add_host_headers(*x)) return;
    append_header(x->headers, "Accept", "text/event-stream");
    append_header(x->headers, "Cache-Control", "no-cache");
    setopt(x->easy.get(), CURLOPT_HTTPGET, 1L);
    setopt(x->easy.get(), CURLOPT_HEADERFUNCTION, &SseEngine::header_callback);
    setopt(x->easy.get(), CURLOPT_HEADERDATA, static_cast<void*>(x.get()));
    // No total timeout: the stream lives as long as the session. TCP keep-alive finds dead peers.
    handshake_.arm(handshake_window());
    launch(std::move(x));
}

void SseEngine::start_post(Outgoing message, int auth_retries) {
    in_flight_.insert(message.request_ids.begin(), message.request_ids.end());
    std::unique_ptr<Exchange> x = make_exchange(ExchangeKind::Post, endpoint_);
    x->unanswered = &unanswered_posts_;
    ++unanswered_posts_;
    x->message = std::move(message);
    x->auth_retries = auth_retries;
    const std::uint64_t park = next_park_++;
    mcph::plugin::AuthAnswer auth = host_.request_headers_async(
        mcph::http::auth_request("POST", x->url),
        [this, park](mcph::plugin::AuthAnswer answer) { auth_answered(park, false, std::move(answer)); });
    if (auth.status == MCPH_PENDING) {
        parked_.emplace(park, std::move(x));
        return;
    }
    send_post(std::move(x), auth);
}

void SseEngine::send_post(std::unique_ptr<Exchange> x, const mcph::plugin::AuthAnswer& auth) {
    if (!apply_host_headers(*x, auth)) return;
    append_header(x->headers, "Content-Type", "application/json");
    // No "Expect: 100-continue" on larger POSTs: a server that ignores it would otherwise cost
    // every such message a one-second stall.
    mcph::http::suppress_header(x->headers, "Expect");
    CURL* e = x->easy.get();
    setopt(e, CURLOPT_POST, 1L);
    // The exchange owns the payload and outlives the transfer: libcurl may point into it.
    setopt(e, CURLOPT_POSTFIELDS, x->message.payload.data());
    setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(x->message.payload.size()));
    setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.timeout.count()));
    launch(std::move(x));
}

// From the host's thread: the engine outlives it (the host completes nothing after close()).
void SseEngine::auth_answered(std::uint64_t parked, bool challenge, mcph::plugin::AuthAnswer answer) {
    {
        std::lock_guard lock(answers_mutex_);
        answers_.push_back(AuthAnswerFor{parked, challenge, std::move(answer)});
    }
    wake();
}

void SseEngine::take_auth_answers() {
    std::vector<AuthAnswerFor> answers;
    {
        std::lock_guard lock(answers_mutex_);
        answers.swap(answers_);
    }
    for (AuthAnswerFor& a : answers) {
        if (quiet()) return;
        ++progress_;
        auto& table = a.challenge ? parked_retries_ : parked_;
        auto it = table.find(a.parked);
        if (it == table.end()) continue;
        std::unique_ptr<Exchange> x = std::move(it->second);
        table.erase(it);
        if (a.challenge) after_challenge(std::move(x), a.answer);
        else send_post(std::move(x), a.answer);
    }
}

std::unique_ptr<Exchange> SseEngine::make_exchange(ExchangeKind kind, const std::string& url) {
    auto x = std::make_unique<Exchange>();
    x->engine = this;
    x->kind = kind;
    x->url = url;
    x->easy = new_easy();
    // Redirects are not followed (set_common_options): the endpoint's origin check would be
    // pointless if the stream itself could wander off to another origin.
    mcph::http::set_common_options(x->easy.get(), url,
                                   mcph::http::EasyOptions{config_.connect_timeout, config_.ca_file},
                                   &SseEngine::write_callback, x.get(), x->error);
    return x;
}

// Static config headers, then the host's auth headers, fetched fresh before every request. The
// stream's (once, at start) may wait for a PENDING answer: nothing else is running yet.
bool SseEngine::add_host_headers(Exchange& x) {
    mcph::plugin::AuthAnswer auth;
    try {
        auth.headers = host_.request_headers(mcph::http::auth_request(x.kind == ExchangeKind::Stream ? "GET" : "POST", x.url));
    } catch (const Error& e) {
        auth.status = e.status();
        auth.message = e.what();
    }
    return apply_host_headers(x, auth);
}

bool SseEngine::apply_host_headers(Exchange& x, const mcph::plugin::AuthAnswer& auth) {
    if (auth.status != MCPH_OK) {
        std::string why = "the auth hook failed for " + x.url + ": " + auth.message;
        if (x.kind == ExchangeKind::Stream) {
            fail_start(auth.status == MCPH_ERR_AUTH ? MCPH_ERR_AUTH : MCPH_ERR_IO, why);
        } else if (auth.status == MCPH_ERR_AUTH) {
            forget(x);
            terminate(MCPH_CLOSE_AUTH_REQUIRED, typed(MCPH_FAILURE_AUTH, why));
        } else {
            // Our side failed (a headers helper, say), not the link: nothing for the health monitor.
            post_failed(x, typed(MCPH_FAILURE_OTHER, why));
        }
        return false;
    }
    for (const auto& [name, value] : config_.headers) append_header(x.headers, name, value);
    for (const auto& [name, value] : auth.headers) {
        if (!is_token(name) || is_managed_header(name) || !is_safe_header_value(value)) {
            diagnostic(MCPH_LOG_WARN, "ignoring an unusable header from the auth hook: '" + name + "'");
            continue;
        }
        append_header(x.headers, name, value);
    }
    return true;
}

void SseEngine::launch(std::unique_ptr<Exchange> x) { exchanges_.launch(std::move(x)); }

void SseEngine::on_internal_error(const std::string& what) {
    std::string why = "internal error in the SSE transport: " + what;
    if (!open_.load()) fail_start(MCPH_ERR_INTERNAL, why);
    else terminate(MCPH_CLOSE_ERROR, typed(MCPH_FAILURE_OTHER, why));
}

// ---- ending -------------------------------------------------------------------------------------

// start() is still waiting: it reports the failure; on_closed never fires for it.
void SseEngine::fail_start(mcph_status status, const std::string& message) {
    handshake_.fail(status, message);
    terminated_ = true;
    ended_.store(true);
}

void SseEngine::terminate(mcph_close_reason reason, mcph::plugin::Failure why) {
    if (terminated_) return;
    terminated_ = true;
    ended_.store(true);  // before on_closed: a send() from inside it already sees MCPH_ERR_CLOSED
    abort_all();
    if (!stopping_.load()) host_.closed(reason, why);
}

void SseEngine::diagnostic(mcph_log_level level, const std::string& message) {
    if (!quiet()) host_.diagnostic(level, message);
}

void SseEngine::report_failure(mcph_log_level level, const mcph::plugin::Failure& failure) {
    if (!quiet()) host_.failure(level, failure);
}

std::string SseEngine::curl_failure(const Exchange& x, CURLcode code) const {
    std::string out = mcph::http::curl_failure_text(code);
    if (x.error[0]) out += std::string(": ") + x.error;
    return out;
}

}  // namespace mcph::sse
