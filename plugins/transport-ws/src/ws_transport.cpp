// The host-facing half of the transport: construction, start(), send(), close(). Everything that
// touches an lws connection runs on the service thread, in ws_callbacks.cpp.
#include "ws_transport.hpp"

#include "connect_probe.hpp"
#include "handshake_headers.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <strings.h>
#include <utility>

namespace mcph::ws {
namespace {

using mcph::plugin::Error;
using Clock = std::chrono::steady_clock;

// How long close() lets the close handshake (and a flush of queued messages) run before it
// tears the connection down regardless. Short: close() blocks the host thread.
constexpr std::chrono::milliseconds kCloseGrace{1000};

// libwebsockets reads one socket buffer's worth per RECEIVE callback; 64 KiB keeps a 5 MB
// message to ~80 callbacks instead of ~1300 with the 4 KiB default.
constexpr size_t kRxBufferBytes = size_t{64} << 10;

std::string ms_text(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

}  // namespace

WsTransport::WsTransport(mcph::plugin::TransportHost host, std::string_view config_json)
    : host_(host),
      config_(parse_config(config_json)),
      log_source_("ws:" + (config_.name.empty() ? config_.endpoint.host_header : config_.name)),
      role_(idle_watch(), this, &WsTransport::revive_from_watch, "the WebSocket service thread", [this] { service_loop(); }),
      queue_(config_.max_message_bytes),
      quiet_(config_.loop_idle),
      rx_(config_.max_message_bytes) {
    ensure_lws_log(host_.services());
    lws_sink_ = [this](std::string_view line) { diagnostic(MCPH_LOG_DEBUG, "libwebsockets: " + std::string(line)); };
    // Zero idle-validity times switch lws's own (whole-second) keep-alive off; see ping_timer().
    retry_policy_.secs_since_valid_ping = 0;
    retry_policy_.secs_since_valid_hangup = 0;
    protocols_[0].name = "mcph-ws";
    protocols_[0].callback = &WsTransport::lws_event;
    protocols_[0].rx_buffer_size = kRxBufferBytes;
    ping_timer_.owner = this;
    idle_timer_.owner = this;
}

WsTransport::~WsTransport() { close(); }

HeaderList WsTransport::handshake_headers() const {
    HeaderList out = config_.headers;
    // The auth hook may block (token refresh): it runs here, on the host thread, never on the
    // service thread, which would stall every other connection event meanwhile. A host that
    // answers PENDING (ABI v1.2) is waited for here, for the same reason.
    mcph::plugin::HookRequest request;
    request.method = "GET";  // the upgrade request, which a DPoP proof binds to
    request.url = config_.endpoint.url;
    for (auto& [name, value] : host_.request_headers(request)) {
        if (std::string problem = header_problem(name, value); !problem.empty())
            throw Error(MCPH_ERR_AUTH, "auth header '" + name + "' " + problem);
        // A header from the auth plugin replaces a configured one of the same name.
        out.erase(std::remove_if(out.begin(), out.end(),
                                 [&](const auto& h) { return ::strcasecmp(h.first.c_str(), name.c_str()) == 0; }),
                  out.end());
        out.emplace_back(name, value);
    }
    return out;
}

void WsTransport::describe_ide() const {
    if (config_.type != "ws-ide") return;
    host_.diagnostic(MCPH_LOG_INFO, "ws-ide: connecting to IDE '" + config_.ide_name + "' (running in Windows: " +
                                        (config_.ide_running_in_windows ? "yes" : "no") + ")");
}

void WsTransport::create_context() {
    lws_context_creation_info info;
    std::memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols_;
    info.user = this;
    info.gid = -1;
    info.uid = -1;
    // Without a limit lws sizes its fd table from `ulimit -n` (megabytes per context). We need
    // our one socket, the cancel pipe and some slack.
    info.fd_limit_per_thread = 16;
    info.pt_serv_buf_size = kRxBufferBytes;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (config_.endpoint.tls) {
        // Verification is always on: no LCCSCF_ALLOW_* flag is ever set. The system store is
        // loaded by lws; caFile is trusted in addition to it.
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        if (!config_.ca_file.empty()) info.client_ssl_ca_filepath = config_.ca_file.c_str();
    }
    // lws's own connect timeout must not fire before ours (connectTimeoutMs, enforced in start).
    auto secs = static_cast<unsigned>(config_.connect_timeout.count() / 1000 + 2);
    info.timeout_secs = secs;
    info.connect_timeout_secs = secs;

    ScopedLogSink sink(&lws_sink_);
    context_ = lws_create_context(&info);
    if (!context_) throw Error(MCPH_ERR_IO, log_source_ + ": cannot create a libwebsockets context");
}

void WsTransport::start() {
    if (closed_) throw Error(MCPH_ERR_CLOSED, "transport is closed");
    if (started_) throw Error(MCPH_ERR_INVALID_ARGUMENT, "transport already started");
    started_ = true;

    if (!config_.ca_file.empty() && ::access(config_.ca_file.c_str(), R_OK) != 0)
        throw Error(MCPH_ERR_INVALID_ARGUMENT,
                    "ws config: 'caFile' cannot be read: " + config_.ca_file + ": " + std::strerror(errno));
    describe_ide();
    HeaderList headers = handshake_headers();

    {
        std::lock_guard lifecycle(lifecycle_mutex_);
        if (closed_) throw Error(MCPH_ERR_CLOSED, "transport was closed while starting");
        create_context();
        role_.start();
    }

    // connectTimeoutMs bounds the whole connect — TCP, TLS, upgrade, the errno probe and an auth
    // retry together — except the time the host's auth hooks take (an interactive sign-in is
    // bounded by the auth plugin, not by the network's timeout).
    Clock::time_point deadline = Clock::now() + config_.connect_timeout;
    Attempt a = connect_once(headers, deadline);
    if (!a.ok && a.tcp_failed) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        std::string why = probe_connect_failure(config_.endpoint.address, config_.endpoint.port,
                                                std::clamp(left, std::chrono::milliseconds(1),
                                                           std::chrono::milliseconds(1000)));
        if (!why.empty()) a.error = why;
    }
    if (!a.ok && (a.http_status == 401 || a.http_status == 403)) {
        // One retry with fresh headers, if the host's auth plugin says it refreshed credentials.
        Clock::time_point hook_started = Clock::now();
        mcph::plugin::HookRequest challenge;
        challenge.method = "GET";
        challenge.url = config_.endpoint.url;
        challenge.http_status = a.http_status;
        challenge.www_authenticate = a.www_authenticate;
        if (!a.www_authenticate.empty()) challenge.response_headers.emplace_back("WWW-Authenticate", a.www_authenticate);
        if (host_.auth_challenge(challenge).status == MCPH_OK) {
            headers = handshake_headers();
            deadline += Clock::now() - hook_started;
            a = connect_once(headers, deadline);
        }
        if (!a.ok && (a.http_status == 401 || a.http_status == 403)) fail_start(MCPH_ERR_AUTH, a.error);
    }
    if (!a.ok) fail_start(closing_.load() ? MCPH_ERR_CLOSED : a.timed_out ? MCPH_ERR_TIMEOUT : MCPH_ERR_IO, a.error);
}

WsTransport::Attempt WsTransport::connect_once(const HeaderList& headers, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    attempt_ = Attempt{};
    pending_headers_ = headers;
    connect_requested_ = true;
    lws_cancel_service(context_);
    // close() from another thread ends the wait at once: it notifies cv_ after setting closing_.
    if (!cv_.wait_until(lock, deadline, [&] { return attempt_.done || closing_.load(); })) {
        Attempt timed_out;
        timed_out.done = true;
        timed_out.timed_out = true;
        timed_out.error = "timed out after " + ms_text(config_.connect_timeout) +
                          " (connectTimeoutMs) waiting for the WebSocket handshake";
        return timed_out;
    }
    if (!attempt_.done) {
        Attempt closed;
        closed.done = true;
        closed.error = "the transport was closed while connecting";
        return closed;
    }
    return attempt_;
}

void WsTransport::fail_start(mcph_status status, const std::string& message) {
    ended_.store(true);
    stop_service();
    std::string who = config_.name.empty() ? "ws" : "ws '" + config_.name + "'";
    throw Error(status, who + ": cannot connect to " + config_.endpoint.url + ": " + message);
}

void WsTransport::send(std::string_view message) {
    if (message.empty()) throw Error(MCPH_ERR_INVALID_ARGUMENT, "empty message");
    if (message.size() > config_.max_message_bytes)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "message of " + std::to_string(message.size()) +
                                                   " bytes exceeds maxMessageBytes (" +
                                                   std::to_string(config_.max_message_bytes) + ")");
    auto outgoing = make_outgoing(message);  // the copy happens outside the lock
    std::unique_lock lock(mutex_);
    for (;;) {
        if (!open_.load() || closing_.load() || ended_.load()) throw Error(MCPH_ERR_CLOSED, "transport is closed");
        if (queue_.push(outgoing)) break;
        // Back-pressure: the queue holds up to maxMessageBytes. Wait for the writer to drain it —
        // except on the service thread (a send from inside on_message), which is the writer.
        if (serving_ == this)
            throw Error(MCPH_ERR_IO, "send queue is full (" + std::to_string(queue_.pending_bytes()) +
                                         " bytes waiting for a slow peer)");
        cv_.wait(lock);
    }
    lws_cancel_service(context_);  // under mutex_: stop_service() cannot destroy the context meanwhile
    lock.unlock();
    wake();  // a retired connection gets its service thread back (after the push: ws_idle.cpp)
}

void WsTransport::close() noexcept {
    if (closed_.exchange(true)) return;
    const bool serving = role_.has_thread();  // running, or retired (then wake() brings one back)
    {
        // Under mutex_, so a start() waiting in connect_once sees closing_ when notified.
        std::lock_guard lock(mutex_);
        closing_.store(true);
        cv_.notify_all();
    }
    if (serving) {
        {
            std::lock_guard lock(mutex_);
            close_requested_ = true;
            if (context_) lws_cancel_service(context_);  // a failing start() may have ended the service
            cv_.notify_all();  // blocked senders give up
        }
        wake();  // the close handshake needs a service thread
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, kCloseGrace, [&] { return !connection_alive_; });
    }
    stop_service();
    open_.store(false);
    ended_.store(true);
}

void WsTransport::stop_service() noexcept {
    // close() and a failing start() on another thread may both get here: one joins, the other
    // waits for it and then finds nothing left to stop.
    std::lock_guard lifecycle(lifecycle_mutex_);
    if (std::thread thread = role_.take_last(); thread.joinable()) {
        {
            std::lock_guard lock(mutex_);
            stop_requested_ = true;
            lws_cancel_service(context_);
            cv_.notify_all();
        }
        thread.join();  // at once when it had retired
    }
    lws_context* context = nullptr;
    {
        std::lock_guard lock(mutex_);  // senders call lws_cancel_service(context_) under it
        context = std::exchange(context_, nullptr);
    }
    if (!context) return;
    // Nothing may reach the host from here on: lws calls our callback while it tears the
    // connection down (on this thread, now that the service thread is gone); with context_
    // null, lws_event() ignores everything.
    closing_.store(true);
    ended_.store(true);
    open_.store(false);
    ScopedLogSink sink(&lws_sink_);
    lws_sul_cancel(&ping_timer_.sul);
    lws_sul_cancel(&idle_timer_.sul);
    lws_context_destroy(context);
    wsi_ = nullptr;
    std::lock_guard lock(mutex_);
    connection_alive_ = false;
    queue_.clear();
}

}  // namespace mcph::ws
