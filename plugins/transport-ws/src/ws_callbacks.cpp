// The service-thread half of the transport: the lws protocol callback and everything it drives
// (connect, handshake headers, receive, write, ping, close). No function here blocks, and none
// holds mutex_ while calling the host.
#include "ws_transport.hpp"

#include "threads.hpp"  // plugins/io-common

#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <cstring>

namespace mcph::ws {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kServiceThreadName = "mcph-ws-loop";  // at most 15 bytes

std::string close_code_meaning(int code) {
    switch (code) {
        case 1000: return "normal closure";
        case 1001: return "going away";
        case 1002: return "protocol error";
        case 1003: return "unsupported data";
        case 1005: return "no status code";
        case 1006: return "abnormal closure";
        case 1007: return "invalid payload data";
        case 1008: return "policy violation";
        case 1009: return "message too big";
        case 1010: return "missing extension";
        case 1011: return "internal server error";
        case 1012: return "service restart";
        case 1013: return "try again later";
        default: return "";
    }
}

// What a close code other than 1000 says: the peer refused what we sent (a protocol matter), or the
// connection ended for another reason (going away, restarting, an internal error: the link broke).
mcph_failure_category close_code_category(int code) {
    switch (code) {
        case 1002:  // protocol error
        case 1003:  // unsupported data
        case 1007:  // invalid payload data
        case 1008:  // policy violation
        case 1009:  // message too big
        case 1010:  // missing extension
            return MCPH_FAILURE_PROTOCOL;
        default:
            return MCPH_FAILURE_RESET;
    }
}

}  // namespace

int WsTransport::lws_event(lws* wsi, lws_callback_reasons reason, void* user, void* in, size_t len) {
    if (!wsi) return 0;
    auto* self = static_cast<WsTransport*>(lws_context_user(lws_get_context(wsi)));
    // No context_: lws is being created or destroyed on the host thread; nothing to do.
    if (!self || !self->context_) return 0;
    try {
        if (reason == LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION) {
            // lws passes the X509_STORE_CTX as `user` and preverify_ok as `len`.
            self->on_certificate_check(static_cast<X509_STORE_CTX*>(user), len != 0);
            return 0;  // 0: leave OpenSSL's verdict alone
        }
        return self->on_event(wsi, reason, in, len);
    } catch (const std::exception& e) {
        // No exception may unwind through libwebsockets (C code).
        self->finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_OTHER, std::string("internal error: ") + e.what());
    } catch (...) {
        self->finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_OTHER, "internal error");
    }
    return -1;
}

thread_local const WsTransport* WsTransport::serving_ = nullptr;

// One service thread's life: it ends at stop_service(), or earlier when it retires (ws_idle.cpp).
void WsTransport::service_loop() noexcept {
    io::name_this_thread(kServiceThreadName);
    serving_ = this;
    ScopedLogSink sink(&lws_sink_);
    quiet_.restart(Clock::now());  // a new thread serves a whole loopIdleMs before it may retire
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (stop_requested_) return;
        }
        if (try_retire()) return;
        schedule_idle_check();
        if (lws_service(context_, 0) < 0) {
            finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_OTHER, "libwebsockets service loop failed");
            {
                std::lock_guard lock(mutex_);
                if (!attempt_.done) {
                    attempt_.done = true;
                    attempt_.error = "libwebsockets service loop failed";
                }
                connection_alive_ = false;
                cv_.notify_all();
            }
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_requested_; });
            return;
        }
    }
}

int WsTransport::on_event(lws* wsi, lws_callback_reasons reason, void* in, size_t len) {
    switch (reason) {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
        case LWS_CALLBACK_CLIENT_RECEIVE:
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
        case LWS_CALLBACK_CLIENT_WRITEABLE:
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            ++progress_;  // served something: the quiet spell starts again (ws_idle.cpp)
            break;
        default:
            break;
    }
    switch (reason) {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            on_wakeup();
            return 0;
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return append_headers(wsi, static_cast<unsigned char**>(in), *static_cast<unsigned char**>(in) + len);
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            on_http_answer(wsi);
            return 0;
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            on_connection_error(in ? std::string_view(static_cast<const char*>(in), len) : std::string_view());
            return 0;
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            on_established(wsi);
            return 0;
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return on_receive(wsi, static_cast<const char*>(in), len);
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            last_rx_ = Clock::now();
            awaiting_pong_ = false;
            return 0;
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return on_writeable(wsi);
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            on_peer_close(static_cast<const unsigned char*>(in), len);
            return 0;  // lws echoes the close frame and closes
        case LWS_CALLBACK_CLIENT_CLOSED:
            if (wsi == wsi_) on_wsi_closed();
            return 0;
        case LWS_CALLBACK_WSI_DESTROY:
            if (wsi == wsi_) {
                if (established_) on_wsi_closed();
                wsi_ = nullptr;
                std::lock_guard lock(mutex_);
                connection_alive_ = false;
                cv_.notify_all();
            }
            return 0;
        default:
            return 0;
    }
}

// lws's own failure text for a refused certificate is an opaque "connect SSL err 1"; OpenSSL's
// verify error says what is wrong (self-signed, expired, wrong host name...). Only recorded here:
// the verdict stays OpenSSL's, and verification is never relaxed.
void WsTransport::on_certificate_check(X509_STORE_CTX* store, bool preverify_ok) {
    if (preverify_ok || !store || !local_error_.empty()) return;
    int err = X509_STORE_CTX_get_error(store);
    local_error_ = std::string("TLS certificate verification failed: ") + X509_verify_cert_error_string(err);
    if (err == X509_V_ERR_HOSTNAME_MISMATCH || err == X509_V_ERR_IP_ADDRESS_MISMATCH)
        local_error_ += " (the certificate does not name '" + config_.endpoint.address + "')";
    else if (!config_.ca_file.empty())
        local_error_ += " (trusted: the system store and caFile " + config_.ca_file + ")";
}

// Runs after lws_cancel_service(): picks up what other threads asked for.
void WsTransport::on_wakeup() {
    bool connect, close, has_data;
    {
        std::lock_guard lock(mutex_);
        connect = std::exchange(connect_requested_, false);
        if (connect) connect_headers_ = std::move(pending_headers_);
        close = close_requested_;
        has_data = !queue_.empty();
    }
    if (connect) do_connect();
    if (!wsi_) return;
    if (!established_) {
        if (close) lws_set_timeout(wsi_, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    if (close) close_frame_queued_ = true;
    if (has_data || close) lws_callback_on_writable(wsi_);
}

void WsTransport::do_connect() {
    const Endpoint& ep = config_.endpoint;
    lws_client_connect_info ci;
    std::memset(&ci, 0, sizeof ci);
    ci.context = context_;
    ci.address = ep.address.c_str();
    ci.port = ep.port;
    ci.path = ep.path.c_str();
    ci.host = ep.host_header.c_str();
    // Never follow redirects: the upgrade request carries credentials, and a redirect could hand
    // them to another origin. A 3xx fails the handshake with its status instead.
    ci.ssl_connection = LCCSCF_HTTP_NO_FOLLOW_REDIRECT | (ep.tls ? LCCSCF_USE_SSL : 0);
    ci.protocol = config_.subprotocol.empty() ? nullptr : config_.subprotocol.c_str();
    ci.local_protocol_name = protocols_[0].name;
    ci.retry_and_idle_policy = &retry_policy_;
    ci.pwsi = &wsi_;  // set before any callback for this connection runs

    established_ = false;
    close_frame_queued_ = false;
    rx_refused_ = false;
    peer_close_code_ = -1;
    peer_close_reason_.clear();
    local_error_.clear();
    rx_.reset();
    {
        std::lock_guard lock(mutex_);
        connection_alive_ = true;
    }
    if (!lws_client_connect_via_info(&ci)) {
        // lws usually reported why through CLIENT_CONNECTION_ERROR already; finish_attempt keeps
        // the first reason.
        wsi_ = nullptr;
        finish_attempt(false, "could not start the connection");
        std::lock_guard lock(mutex_);
        connection_alive_ = false;
        cv_.notify_all();
    }
}

int WsTransport::append_headers(lws* wsi, unsigned char** p, unsigned char* end) {
    for (const auto& [name, value] : connect_headers_) {
        std::string key = name + ":";  // lws wants the colon as part of the name
        if (lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>(key.c_str()),
                                        reinterpret_cast<const unsigned char*>(value.data()),
                                        static_cast<int>(value.size()), p, end)) {
            local_error_ = "the handshake headers do not fit in " + std::to_string(kChunkBytes) + " bytes";
            return -1;
        }
    }
    return 0;
}

// Every HTTP answer to our upgrade request passes here before lws decides whether it is a
// valid 101; a rejection's status and challenge can only be read now.
namespace {
std::string header_value(lws* wsi, lws_token_indexes token) {
    std::string out;
    int n = lws_hdr_total_length(wsi, token);
    if (n > 0) {
        out.resize(static_cast<size_t>(n) + 1);
        n = lws_hdr_copy(wsi, out.data(), n + 1, token);
        out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    }
    return out;
}
}  // namespace

void WsTransport::on_http_answer(lws* wsi) {
    int status = static_cast<int>(lws_http_client_http_response(wsi));
    if (status == 101) return;
    std::string challenge = header_value(wsi, WSI_TOKEN_HTTP_WWW_AUTHENTICATE);
    std::string location;
    if (status >= 300 && status < 400) {
        // Quoted in the error (never followed): printable ASCII, at most 200 bytes.
        for (char c : header_value(wsi, WSI_TOKEN_HTTP_LOCATION).substr(0, 200)) location += c >= 0x20 && c < 0x7f ? c : ' ';
    }
    std::lock_guard lock(mutex_);
    attempt_.http_status = status;
    attempt_.www_authenticate = std::move(challenge);
    attempt_.location = std::move(location);
}

void WsTransport::on_connection_error(std::string_view lws_reason) {
    wsi_ = nullptr;
    int status;
    std::string location;
    {
        std::lock_guard lock(mutex_);
        status = attempt_.http_status;
        location = attempt_.location;
        connection_alive_ = false;
        cv_.notify_all();
    }
    std::string error;
    bool tcp_failed = false;
    if (!local_error_.empty()) {
        error = local_error_;
    } else if (status != 0) {
        error = "the server refused the WebSocket upgrade with HTTP " + std::to_string(status);
        if (status >= 300 && status < 400)
            error += " (redirects are not followed: the upgrade carries credentials" +
                     (location.empty() ? std::string() : "; Location: " + location) + ")";
    } else if (lws_reason == "Unable to connect") {
        error = "unable to connect";
        tcp_failed = true;
    } else if (lws_reason.empty()) {
        error = "connection failed";
    } else {
        error = std::string(lws_reason);
    }
    {
        std::lock_guard lock(mutex_);
        attempt_.tcp_failed = tcp_failed;
    }
    finish_attempt(false, error);
}

void WsTransport::on_established(lws* wsi) {
    established_ = true;
    was_open_ = true;
    last_rx_ = Clock::now();
    awaiting_pong_ = false;
    ping_due_ = false;
    if (!config_.subprotocol.empty() && lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL) <= 0)
        diagnostic(MCPH_LOG_INFO, "the server did not confirm the '" + config_.subprotocol + "' subprotocol; continuing");
    open_.store(true);
    schedule_ping();
    finish_attempt(true, {});
}

int WsTransport::on_receive(lws* wsi, const char* data, size_t len) {
    last_rx_ = Clock::now();
    if (rx_refused_ || closing_.load() || ended_.load()) return 0;
    bool final = lws_is_final_fragment(wsi) != 0;
    bool binary = lws_frame_is_binary(wsi) != 0;
    switch (rx_.feed(std::string_view(data, len), final, binary)) {
        case MessageAssembler::Step::Partial:
            return 0;
        case MessageAssembler::Step::Skipped:
            report_failure(MCPH_LOG_WARN, MCPH_FAILURE_PROTOCOL, "ignored a binary WebSocket message (MCP messages are text)");
            return 0;
        case MessageAssembler::Step::Message:
            host_.deliver(rx_.message());
            return 0;
        case MessageAssembler::Step::TooLarge:
            finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_PROTOCOL, "incoming message exceeds maxMessageBytes (" +
                                         std::to_string(config_.max_message_bytes) + " bytes)");
            // Not `return -1` here: lws 4.1 keeps parsing the rest of a frame whose RECEIVE
            // callback refused it, writing past its freed rx buffer (heap corruption, issue #10
            // item 1). The rest of the message is read and dropped instead (on_receive returns at
            // the top once ended_ or closing_ is set; nothing is buffered), and the connection is
            // failed with 1009 from the WRITEABLE callback, outside lws's receive path.
            rx_refused_ = true;
            lws_callback_on_writable(wsi);
            // Backstop: a peer that never lets us write (it does not read) is dropped anyway.
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, 5);
            return 0;
    }
    return 0;
}

int WsTransport::on_writeable(lws* wsi) {
    // An incoming message over the limit: fail the connection now (lws sends the close frame).
    if (rx_refused_) {
        set_close_reason(LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too big");
        return -1;
    }
    // Priority: ping (tiny, and it keeps the connection judged alive), then data, then the close
    // frame once everything queued before close() has gone out.
    if (ping_due_) {
        ping_due_ = false;
        unsigned char ping[LWS_PRE + 4] = {};
        std::memcpy(ping + LWS_PRE, "mcph", 4);
        if (lws_write(wsi, ping + LWS_PRE, 4, LWS_WRITE_PING) < 0) {
            finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_RESET, "cannot write a ping frame: connection lost");
            return -1;
        }
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (!writer_.busy()) {
        std::lock_guard lock(mutex_);
        if (auto next = queue_.pop()) writer_.begin(std::move(next));
    }
    if (writer_.busy()) {
        FrameChunk chunk = writer_.next();
        int n = lws_write(wsi, chunk.data, chunk.size, static_cast<lws_write_protocol>(chunk.flags));
        if (n < 0) {
            finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_RESET, "cannot write to the WebSocket: connection lost");
            return -1;
        }
        // lws_write() either takes the whole chunk (buffering what the socket did not) or fails.
        if (size_t done = writer_.advance(chunk.size)) {
            std::lock_guard lock(mutex_);
            queue_.done(done);
            cv_.notify_all();  // a sender may be waiting for room
        }
        lws_callback_on_writable(wsi);  // more data, or the close frame, or nothing (harmless)
        return 0;
    }
    bool more;
    {
        std::lock_guard lock(mutex_);
        more = !queue_.empty();
    }
    if (more) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (close_frame_queued_) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nullptr, 0);
        return -1;  // lws sends the close frame and waits (bounded) for the server's
    }
    return 0;
}

void WsTransport::on_peer_close(const unsigned char* payload, size_t len) {
    peer_close_code_ = len >= 2 ? (payload[0] << 8 | payload[1]) : 1005;
    peer_close_reason_ = len > 2 ? std::string(reinterpret_cast<const char*>(payload) + 2, len - 2) : std::string();
}

void WsTransport::on_wsi_closed() {
    established_ = false;
    open_.store(false);
    lws_sul_cancel(&ping_timer_.sul);
    next_ping_ = Clock::time_point::max();
    size_t dropped = writer_.abandon();
    {
        std::lock_guard lock(mutex_);
        queue_.done(dropped);
        queue_.clear();
        cv_.notify_all();
    }
    std::string reason = peer_close_reason_.empty() ? "" : ": " + peer_close_reason_;
    if (peer_close_code_ == 1000) {
        finish(MCPH_CLOSE_CLEAN, MCPH_FAILURE_OTHER, "the server closed the connection (1000 normal closure)" + reason);
    } else if (peer_close_code_ >= 0) {
        std::string meaning = close_code_meaning(peer_close_code_);
        finish(MCPH_CLOSE_ERROR, close_code_category(peer_close_code_),
               "the server closed the connection with code " + std::to_string(peer_close_code_) +
                   (meaning.empty() ? "" : " (" + meaning + ")") + reason);
    } else {
        finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_RESET, "connection lost (closed without a WebSocket close frame)");
    }
}

void WsTransport::schedule_ping() {
    if (config_.ping_interval.count() <= 0) return;
    next_ping_ = Clock::now() + config_.ping_interval;  // a retired connection's watch wakes for it
    lws_sul_schedule(context_, 0, &ping_timer_.sul, &WsTransport::ping_timer,
                     static_cast<lws_usec_t>(config_.ping_interval.count()) * LWS_US_PER_MS);
}

void WsTransport::ping_timer(lws_sorted_usec_list_t* sul) {
    reinterpret_cast<PingTimer*>(sul)->owner->on_ping_timer();
}

// Every interval: if the ping sent last time was not answered, and nothing else arrived since,
// the peer is gone; otherwise send the next ping. So a dead peer is noticed between one and two
// intervals after it fell silent.
void WsTransport::on_ping_timer() {
    ++progress_;
    if (!established_ || !wsi_ || closing_.load() || ended_.load()) return;
    if (awaiting_pong_ && last_rx_ <= ping_sent_) {
        finish(MCPH_CLOSE_ERROR, MCPH_FAILURE_TIMEOUT, "ping timeout: the server sent nothing, not even a pong, for " +
                                     std::to_string(config_.ping_interval.count()) + " ms after a ping");
        // The peer is unresponsive: no close handshake, just drop the connection.
        lws_set_timeout(wsi_, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    ping_due_ = true;
    awaiting_pong_ = true;
    ping_sent_ = Clock::now();
    lws_callback_on_writable(wsi_);
    schedule_ping();
}

void WsTransport::set_close_reason(enum lws_close_status status, std::string_view reason) {
    if (!wsi_) return;
    lws_close_reason(wsi_, status, reinterpret_cast<unsigned char*>(const_cast<char*>(reason.data())), reason.size());
}

void WsTransport::finish_attempt(bool ok, std::string error) {
    std::lock_guard lock(mutex_);
    if (attempt_.done) return;
    attempt_.done = true;
    attempt_.ok = ok;
    attempt_.error = std::move(error);
    cv_.notify_all();
}

// Reports the end of an established connection, once. Our own close() is not reported.
void WsTransport::finish(mcph_close_reason reason, mcph_failure_category category, const std::string& detail) {
    if (!was_open_) return;  // never opened: start() reports failures
    open_.store(false);
    if (closing_.load() || ended_.exchange(true)) return;
    {
        std::lock_guard lock(mutex_);
        cv_.notify_all();  // blocked senders see ended_
    }
    host_.log(reason == MCPH_CLOSE_CLEAN ? MCPH_LOG_INFO : MCPH_LOG_WARN, log_source_, detail);
    mcph::plugin::Failure failure;
    failure.category = category;
    failure.message = detail;
    host_.closed(reason, failure);
}

void WsTransport::diagnostic(mcph_log_level level, const std::string& message) {
    if (closing_.load()) return;
    host_.diagnostic(level, message);
}

// A non-fatal problem, typed for the host's health monitor; the text goes out as the diagnostic.
void WsTransport::report_failure(mcph_log_level level, mcph_failure_category category, const std::string& message) {
    if (closing_.load()) return;
    mcph::plugin::Failure failure;
    failure.category = category;
    failure.message = message;
    host_.failure(level, failure);
}

}  // namespace mcph::ws
