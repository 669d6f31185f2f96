// The curl multi loop and the starting of exchanges. The event stream: sse_engine_stream.cpp;
// finished POSTs: sse_engine_post.cpp.
#include "sse_engine.hpp"

#include "curl_failure.hpp"
#include "response_notes.hpp"

#include <algorithm>
#include <new>

namespace mcph::sse {
namespace {

using namespace std::chrono_literals;
using mcph::http::append_header;
using mcph::http::new_easy;
using mcph::plugin::Error;

constexpr int kMaxPollMs = 1000;  // an upper bound only: wakeups and curl's own timers cut it short
constexpr size_t kMaxQueuedMessages = 10000;
// The hard bound on this transport's descriptors (issue #10 item 3): the stream plus POSTs; a
// burst of answers beyond it waits in libcurl's queue (bounded by the outbox) for a connection.
constexpr long kMaxConnections = 16;

mcph::plugin::Failure typed(mcph_failure_category category, std::string message, int http_status = 0) {
    mcph::plugin::Failure f;
    f.category = category;
    f.http_status = http_status;
    f.message = std::move(message);
    return f;
}

template <class T>
void setopt(CURL* easy, CURLoption option, T value) {
    // Options set here are valid for this libcurl; a failure means out of memory.
    if (curl_easy_setopt(easy, option, value) != CURLE_OK) throw std::bad_alloc();
}

// "Expect:" with nothing after the colon removes the header libcurl would add to larger POSTs:
// a server that ignores 100-continue would otherwise cost every such message a one-second stall.
void suppress_expect(mcph::http::HeaderList& list) {
    curl_slist* grown = curl_slist_append(list.get(), "Expect:");
    if (!grown) throw std::bad_alloc();
    (void)list.release();
    list.reset(grown);
}

}  // namespace

SseEngine::SseEngine(mcph::plugin::TransportHost host, const SseConfig& config, Handshake& handshake,
                     const std::atomic<bool>& stopping, std::atomic<bool>& ended)
    : host_(host), config_(config), handshake_(handshake), stopping_(stopping), ended_(ended),
      outbox_(kMaxQueuedMessages, std::max<size_t>(config.max_message_bytes * 2, size_t{64} << 20)) {
    curl_multi_setopt(multi_.get(), CURLMOPT_MAX_TOTAL_CONNECTIONS, kMaxConnections);
    curl_multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, kMaxConnections);
}

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

void SseEngine::run() noexcept {
    try {
        open_stream();
    } catch (const std::exception& e) {
        on_internal_error(e.what());
    }
    while (!stopping_.load() && !terminated_) {
        try {
            step();
        } catch (const std::exception& e) {
            on_internal_error(e.what());
        }
        if (stopping_.load() || terminated_) break;
        curl_multi_poll(multi_.get(), nullptr, 0, kMaxPollMs, nullptr);
    }
    abort_all();
}

void SseEngine::step() {
    drain_outbox();
    int running = 0;
    curl_multi_perform(multi_.get(), &running);  // the write callback delivers events from here
    reap();
}

void SseEngine::drain_outbox() {
    for (Outgoing& m : outbox_.take_all()) {
        if (quiet()) return;
        start_post(std::move(m), false);
    }
}

void SseEngine::reap() {
    int left = 0;
    while (!terminated_) {
        CURLMsg* msg = curl_multi_info_read(multi_.get(), &left);
        if (!msg) break;
        if (msg->msg != CURLMSG_DONE) continue;
        CURL* easy = msg->easy_handle;
        CURLcode code = msg->data.result;
        Exchange* raw = nullptr;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &raw);
        curl_multi_remove_handle(multi_.get(), easy);
        auto it = exchanges_.find(raw);
        if (it == exchanges_.end()) continue;
        std::unique_ptr<Exchange> x = std::move(it->second);
        exchanges_.erase(it);
        if (x->kind == ExchangeKind::Stream) on_stream_done(*x, code);
        else on_post_done(std::move(x), code);
    }
}

void SseEngine::abort_all() noexcept {
    for (auto& [raw, x] : exchanges_) curl_multi_remove_handle(multi_.get(), x->easy.get());
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

void SseEngine::start_post(Outgoing message, bool auth_retried) {
    in_flight_.insert(message.request_ids.begin(), message.request_ids.end());
    std::unique_ptr<Exchange> x = make_exchange(ExchangeKind::Post, endpoint_);
    x->message = std::move(message);
    x->auth_retried = auth_retried;
    if (!add_host_headers(*x)) return;
    append_header(x->headers, "Content-Type", "application/json");
    suppress_expect(x->headers);
    CURL* e = x->easy.get();
    setopt(e, CURLOPT_POST, 1L);
    // The exchange owns the payload and outlives the transfer: libcurl may point into it.
    setopt(e, CURLOPT_POSTFIELDS, x->message.payload.data());
    setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(x->message.payload.size()));
    setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.timeout.count()));
    launch(std::move(x));
}

std::unique_ptr<Exchange> SseEngine::make_exchange(ExchangeKind kind, const std::string& url) {
    auto x = std::make_unique<Exchange>();
    x->engine = this;
    x->kind = kind;
    x->url = url;
    x->easy = new_easy();
    CURL* e = x->easy.get();
    setopt(e, CURLOPT_URL, url.c_str());
    setopt(e, CURLOPT_PRIVATE, static_cast<void*>(x.get()));
    setopt(e, CURLOPT_WRITEFUNCTION, &SseEngine::write_callback);
    setopt(e, CURLOPT_WRITEDATA, static_cast<void*>(x.get()));
    setopt(e, CURLOPT_ERRORBUFFER, x->error);
    setopt(e, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a multi-threaded host
    setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout.count()));
    setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    // Verification is always on; caFile only chooses what to trust. Proxies come from the usual
    // environment variables (libcurl's default, NO_PROXY included): nothing here overrides them.
    // Redirects are not followed: the endpoint's origin check would be pointless if the stream
    // itself could wander off to another origin.
    setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
    setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!config_.ca_file.empty()) setopt(e, CURLOPT_CAINFO, config_.ca_file.c_str());
    return x;
}

// Static config headers, then the host's auth headers, fetched fresh before every request.
bool SseEngine::add_host_headers(Exchange& x) {
    std::vector<std::pair<std::string, std::string>> auth;
    try {
        auth = host_.request_headers();
    } catch (const Error& e) {
        std::string why = "the auth hook failed for " + x.url + ": " + e.what();
        if (x.kind == ExchangeKind::Stream) {
            fail_start(e.status() == MCPH_ERR_AUTH ? MCPH_ERR_AUTH : MCPH_ERR_IO, why);
        } else if (e.status() == MCPH_ERR_AUTH) {
            forget(x);
            terminate(MCPH_CLOSE_AUTH_REQUIRED, typed(MCPH_FAILURE_AUTH, why));
        } else {
            // Our side failed (a headers helper, say), not the link: nothing for the health monitor.
            post_failed(x, typed(MCPH_FAILURE_OTHER, why));
        }
        return false;
    }
    for (const auto& [name, value] : config_.headers) append_header(x.headers, name, value);
    for (const auto& [name, value] : auth) {
        if (!is_token(name) || is_managed_header(name) || !is_safe_header_value(value)) {
            diagnostic(MCPH_LOG_WARN, "ignoring an unusable header from the auth hook: '" + name + "'");
            continue;
        }
        append_header(x.headers, name, value);
    }
    return true;
}

void SseEngine::launch(std::unique_ptr<Exchange> x) {
    setopt(x->easy.get(), CURLOPT_HTTPHEADER, x->headers.get());
    if (curl_multi_add_handle(multi_.get(), x->easy.get()) != CURLM_OK) throw std::bad_alloc();
    Exchange* raw = x.get();
    exchanges_.emplace(raw, std::move(x));
}

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
