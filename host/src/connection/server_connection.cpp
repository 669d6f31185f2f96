#include "connection/server_connection.hpp"

#include "connection/reachability.hpp"
#include "connection/reachability_watch.hpp"
#include "connection/terminal_errors.hpp"
#include "json/json_access.hpp"
#include "session/era.hpp"
#include "url/redact.hpp"
#include "session/client_session_access.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/session.hpp>

#include <boost/asio/steady_timer.hpp>

#include <cstdlib>
#include <sstream>

namespace mcph::connection {
namespace {

// Error texts quote URLs (the transports name the endpoint that failed); a key in one must not reach
// the status view, a state-change callback or a log (url/redact.hpp).
void redact_detail(ConnectionState& state) {
    if (auto* f = std::get_if<state::Failed>(&state)) f->error = url::redact_urls_in_text(f->error);
    else if (auto* n = std::get_if<state::NeedsAuth>(&state)) n->reason = url::redact_urls_in_text(n->reason);
    else if (auto* p = std::get_if<state::Pending>(&state)) p->last_error = url::redact_urls_in_text(p->last_error);
}

using Clock = std::chrono::steady_clock;
constexpr std::size_t kStderrTailLines = 20;
constexpr std::string_view kStderrMarker = "; stderr:\n";  // how the stdio plugin appends the tail

// Did initialize fail the way a legacy (2024-11-05) server answers a POST: HTTP 400, 404 or 405,
// without a recognised modern JSON-RPC error in the body (a modern server answers an unsupported
// version, an unknown method or a header mismatch with one, and must not be sent to HTTP+SSE).
bool looks_like_legacy_server(const Error& e) {
    if (e.kind() != ErrorKind::Remote) return false;
    int status = e.http_status();
    if (status == 0 && !e.data_json().empty()) {  // an ABI 1.0 plugin's synthesized error
        Json data;
        if (json_bounds::parse(data, e.data_json()) && data.IsObject() && data.HasMember("httpStatus") &&
            data["httpStatus"].IsInt())
            status = data["httpStatus"].GetInt();
    }
    if (status != 400 && status != 404 && status != 405) return false;
    if (session::unsupported_version(e) || e.code() == session::kHeaderMismatchCode ||
        e.code() == session::kMissingRequiredClientCapabilityCode || (status == 404 && e.code() == -32601))
        return false;
    return true;
}

bool is_remote(const config::ServerConfig& config) { return !config.url.empty() && config.type != "sdk"; }

// A direct TCP check says nothing when the traffic goes through a proxy.
bool proxy_configured() {
    for (const char* var : {"http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})
        if (const char* v = std::getenv(var); v && *v) return true;
    return false;
}

// Streamable HTTP only: its plugin's start() returns at once and the handshake is requests, which
// SessionCore::close() fails at once. The sse and ws plugins block in start() for their own
// handshake, and a close() then does not end it (sse waits out its connect timeout; ws was seen to
// throw): for them, and for third-party types, the check still runs first, as before.
bool connect_can_be_aborted(const config::ServerConfig& config) { return config.type == "http"; }

std::vector<std::string> tail_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    if (lines.size() > kStderrTailLines) lines.erase(lines.begin(), lines.end() - kStderrTailLines);
    return lines;
}

}  // namespace

ServerConnection::ServerConnection(config::ConfiguredServer server, ConnectionDeps deps)
    : server_(std::move(server)), deps_(std::move(deps)), effective_(server_.config), attempts_(deps_.policy) {
    if (server_.config.disabled) state_ = state::Disabled{"disabled in config"};
    else state_ = state::Pending{0, max_attempts(), ""};
}

ServerConnection::~ServerConnection() { shutdown(); }

std::string ServerConnection::transport_type() const {
    std::lock_guard lock(mutex_);
    return effective_.type;
}

ConnectionState ServerConnection::state() const {
    std::lock_guard lock(mutex_);
    return state_;
}

std::shared_ptr<detail::SessionCore> ServerConnection::live_core() const {
    std::lock_guard lock(mutex_);
    // The session knows first that its transport died; the state follows on the event loop.
    return std::holds_alternative<state::Connected>(state_) && core_ && core_->connected() ? core_ : nullptr;
}

std::vector<std::string> ServerConnection::stderr_tail() const {
    std::lock_guard lock(mutex_);
    return stderr_tail_;
}

void ServerConnection::set_state(ConnectionState next) {
    redact_detail(next);
    {
        std::lock_guard lock(mutex_);
        state_ = next;
    }
    if (deps_.on_state_change) deps_.on_state_change(name(), next);
}

// Keeps the stderr tail the stdio plugin appends to its error text, for the status view.
void ServerConnection::remember_error(const std::string& error) {
    const auto at = error.find(kStderrMarker);
    if (at == std::string::npos) return;
    auto lines = tail_lines(std::string_view(error).substr(at + kStderrMarker.size()));
    std::lock_guard lock(mutex_);
    stderr_tail_ = std::move(lines);
}

// ---- connecting ---------------------------------------------------------------------------------

std::shared_ptr<detail::SessionCore> ServerConnection::connect() {
    std::lock_guard serial(connect_mutex_);
    {
        std::lock_guard lock(mutex_);
        if (std::holds_alternative<state::Connected>(state_) && core_->connected()) return core_;
        if (std::holds_alternative<state::Disabled>(state_))
            throw Error(ErrorKind::Usage, "server '" + name() + "' is disabled (" + std::get<state::Disabled>(state_).reason +
                                              "); run `mcph enable " + name() + "`");
        if (shut_down_) throw Error(ErrorKind::Connection, "the host is closing");
        ++epoch_;  // the user's connect replaces any scheduled attempt
        attempts_.reset();
    }
    set_state(state::Pending{0, max_attempts(), ""});
    return connect_locked();
}

std::shared_ptr<detail::SessionCore> ServerConnection::reconnect_now() {
    std::lock_guard serial(connect_mutex_);
    std::shared_ptr<detail::SessionCore> old;
    {
        std::lock_guard lock(mutex_);
        if (std::holds_alternative<state::Disabled>(state_))
            throw Error(ErrorKind::Usage, "server '" + name() + "' is disabled; run `mcph enable " + name() + "` first");
        if (shut_down_) throw Error(ErrorKind::Connection, "the host is closing");
        ++epoch_;
        attempts_.reset();
        if (std::holds_alternative<state::Connected>(state_)) old = core_;
    }
    if (old) old->close();  // closing on purpose: no on_disconnected, no automatic reconnect
    set_state(state::Pending{0, max_attempts(), ""});
    return connect_locked();
}

// Runs one attempt for the user (connect_mutex_ held); failures end in failed / needs-auth.
std::shared_ptr<detail::SessionCore> ServerConnection::connect_locked() {
    try {
        connect_once();
    } catch (const Error& e) {
        remember_error(e.what());
        std::shared_ptr<detail::SessionCore> core;
        {
            std::lock_guard lock(mutex_);
            core = core_;
        }
        if (core && core->needs_auth()) set_state(state::NeedsAuth{e.what()});
        else set_state(state::Failed{e.what()});
        throw Error(e.kind(), url::redact_urls_in_text(e.what()), e.code(), e.data_json());
    }
    mark_connected();
    // The session itself, not live_core(): a server may end the transport right after the
    // handshake, before this line, and live_core() then was null — Host::connect wrapped it and
    // the caller's first use crashed (TSan run of mcph-conformance: SEGV in cached_tools). A
    // session whose transport died fails its calls with the reason, and the handle stays valid
    // across the automatic reconnect.
    std::lock_guard lock(mutex_);
    if (!core_) throw Error(ErrorKind::Connection, "server '" + name() + "' closed while connecting");
    return core_;
}

bool ServerConnection::reachability_applies() const {
    return deps_.reachability_check && deps_.runtime && is_remote(effective_) && !proxy_configured();
}

// Connects first; the reachability check runs only when the connect failed at the connection level
// or is slow (reachability_watch.hpp), so a connect that succeeds opens one connection, not two.
void ServerConnection::connect_diagnosed(const std::shared_ptr<detail::SessionCore>& core) {
    if (!reachability_applies()) {
        core->connect();
        return;
    }
    if (!connect_can_be_aborted(effective_)) {
        if (auto problem = connection::check_reachable(effective_.url, deps_.reachability_timeout)) throw unreachable(*problem);
        core->connect();
        return;
    }
    std::weak_ptr<detail::SessionCore> weak = core;
    auto watch = ReachabilityWatch::arm(deps_.runtime->loop(), effective_.url, deps_.reachability_timeout, [weak] {
        if (auto c = weak.lock()) c->close();  // the pending handshake fails at once
    });
    try {
        core->connect();
    } catch (const Error& e) {
        // The server answered (an HTTP status, a protocol error) or wants a sign-in: it is reachable.
        const bool connection_level = e.kind() == ErrorKind::Connection || e.kind() == ErrorKind::Timeout;
        if (!connection_level || core->needs_auth()) {
            if (auto problem = watch->settle_success()) throw unreachable(*problem);  // aborted just before
            throw;
        }
        if (auto problem = watch->settle_failure()) throw unreachable(*problem);
        throw;
    }
    if (auto problem = watch->settle_success()) throw unreachable(*problem);
}

Error ServerConnection::unreachable(const std::string& problem) const {
    return Error(ErrorKind::Connection, "server '" + name() + "' is unreachable: " + problem);
}

// One attempt: (re)uses the session so ClientSession handles stay valid across reconnects.
void ServerConnection::connect_once() {
    std::shared_ptr<detail::SessionCore> core;
    {
        std::lock_guard lock(mutex_);
        core = core_;
    }
    SessionHooks hooks;
    std::weak_ptr<ServerConnection> weak = weak_from_this();
    hooks.on_disconnected = [weak](const std::string& reason) {
        if (auto self = weak.lock()) self->on_lost(reason);
    };
    hooks.on_transport_problem = [weak](const transport::Failure& failure) {
        if (auto self = weak.lock()) self->on_transport_problem(failure);
    };
    if (!core) {
        // Configuration errors (no plugin for the type, unknown auth backend) come before the network.
        core = deps_.make_session(effective_, hooks);
        {
            std::lock_guard lock(mutex_);
            core_ = core;
        }
        try {
            connect_diagnosed(core);
        } catch (const Error& e) {
            if (!effective_.auto_fallback_to_sse || !looks_like_legacy_server(e)) throw;
            deps_.log(LogLevel::Info, name(), "Streamable HTTP refused; falling back to the legacy SSE transport");
            auto sse = config::as_legacy_sse(effective_);
            core = deps_.make_session(sse, hooks);
            {
                std::lock_guard lock(mutex_);
                effective_ = sse;
                core_ = core;
            }
            core->connect();
        }
        return;
    }
    connect_diagnosed(core);
}

void ServerConnection::mark_connected() {
    std::shared_ptr<detail::SessionCore> core;
    bool abandon = false;
    {
        std::lock_guard lock(mutex_);
        core = core_;
        // Disabled or shut down while the attempt ran: the user's word wins.
        abandon = shut_down_ || std::holds_alternative<state::Disabled>(state_);
        attempts_.on_connected(Clock::now());
        health_.reset();
        probing_ = false;
    }
    if (abandon) {
        core->close();
        throw Error(ErrorKind::Connection, "server '" + name() + "' was disabled or closed while connecting");
    }
    state::Connected connected;
    connected.client = mcph::detail::make_client_session(core);
    const auto facts = core->facts();
    connected.capabilities_json = to_json(facts->capabilities);
    connected.server_info = facts->server_info;
    connected.instructions = facts->instructions;
    connected.protocol_version = facts->protocol_version;
    connected.era = session::to_string(facts->era);
    set_state(std::move(connected));
}

// ---- losing the connection and reconnecting -----------------------------------------------------

// An established connection ended on its own (runs on the event loop).
void ServerConnection::on_lost(const std::string& reason) {
    remember_error(reason);
    {
        std::lock_guard lock(mutex_);
        if (shut_down_ || !std::holds_alternative<state::Connected>(state_)) return;
        if (core_ && core_->connected()) return;  // stale news: the user already reconnected
    }
    deps_.log(LogLevel::Warn, name(), "connection lost: " + reason);
    after_failed_attempt(reason, false, true);
}

void ServerConnection::after_failed_attempt(const std::string& error, bool needs_auth, bool lost) {
    if (needs_auth) {
        set_state(state::NeedsAuth{error});
        return;
    }
    std::optional<std::chrono::milliseconds> delay;
    int attempt = 0;
    {
        std::lock_guard lock(mutex_);
        if (shut_down_ || std::holds_alternative<state::Disabled>(state_)) return;
        // The crash-loop guard: only a connection that stayed up earns a fresh attempt budget.
        delay = lost ? attempts_.on_disconnected(Clock::now()) : attempts_.on_attempt_failed();
        attempt = attempts_.attempts();
    }
    if (!delay) {
        set_state(state::Failed{error + " (gave up after " + std::to_string(max_attempts()) +
                                " reconnection attempts; run `mcph reconnect " + name() + "`)"});
        return;
    }
    set_state(state::Pending{attempt, max_attempts(), error});
    schedule_attempt(*delay);
}

void ServerConnection::schedule_attempt(std::chrono::milliseconds delay) {
    std::uint64_t epoch = 0;
    {
        std::lock_guard lock(mutex_);
        epoch = ++epoch_;
    }
    auto timer = std::make_shared<boost::asio::steady_timer>(deps_.runtime->loop(), delay);
    std::weak_ptr<ServerConnection> weak = weak_from_this();
    // Weak: the pending handler lives inside the runtime's io_context, and a strong reference
    // back to the runtime would keep both alive forever if the loop stops before the timer fires.
    std::weak_ptr<runtime::Runtime> runtime = deps_.runtime;
    timer->async_wait([weak, epoch, timer, runtime](const boost::system::error_code& ec) {
        auto rt = runtime.lock();
        if (ec || !rt) return;
        // Connecting blocks (spawn, handshake): never on the event loop.
        rt->run_background([weak, epoch] {
            if (auto self = weak.lock()) self->run_attempt(epoch);
        });
    });
}

void ServerConnection::run_attempt(std::uint64_t epoch) {
    std::lock_guard serial(connect_mutex_);
    int attempt = 0;
    {
        std::lock_guard lock(mutex_);
        if (shut_down_ || epoch != epoch_ || !std::holds_alternative<state::Pending>(state_)) return;
        attempt = attempts_.attempts();
    }
    deps_.log(LogLevel::Info, name(), "reconnecting (attempt " + std::to_string(attempt) + " of " +
                                          std::to_string(max_attempts()) + ")");
    try {
        connect_once();
        mark_connected();
    } catch (const Error& e) {
        remember_error(e.what());
        std::shared_ptr<detail::SessionCore> core;
        {
            std::lock_guard lock(mutex_);
            core = core_;
        }
        after_failed_attempt(e.what(), core && core->needs_auth(), false);
    }
}

// ---- health -------------------------------------------------------------------------------------

// Fed only by typed failures (ABI 1.1 on_failure; SessionCore::on_transport_failure). An ABI 1.0
// plugin reports non-fatal problems as text alone (on_diagnostic), and text is never classified:
// for such a plugin nothing is counted here, so its warnings can never tear a connection down, and
// what ends its connection is what the plugin itself decides — on_closed, whose reason and detail
// reach on_lost() and the reconnect policy exactly as for any plugin. That is the safe side: a
// missed dead link still fails its calls (the request timeout) and is reported by the plugin's
// close; a false "dead" would drop a working connection and every call in flight on it.
void ServerConnection::on_transport_problem(const transport::Failure& failure) {
    const FailureVerdict verdict = classify_failure(failure);
    ConnectionHealth::Action action = ConnectionHealth::Action::None;
    {
        std::lock_guard lock(mutex_);
        if (!std::holds_alternative<state::Connected>(state_)) return;
        action = health_.record_failure(verdict.meaning, Clock::now());
        if (action == ConnectionHealth::Action::Probe) {
            if (probing_) return;
            probing_ = true;
        }
    }
    std::weak_ptr<ServerConnection> weak = weak_from_this();
    if (action == ConnectionHealth::Action::Reconnect) {
        const std::string why = "3 terminal transport errors in a row (last: " + std::string(verdict.signal) + ": " +
                                failure.message + ")";
        deps_.runtime->run_background([weak, why] {
            if (auto self = weak.lock()) self->drop_and_reconnect(why);
        });
    } else if (action == ConnectionHealth::Action::Probe) {
        deps_.runtime->run_background([weak] {
            if (auto self = weak.lock()) self->probe_liveness();
        });
    }
}

// Repeated terminal errors, not all in a row: ask the server whether it is still there.
void ServerConnection::probe_liveness() {
    auto core = live_core();
    bool alive = false;
    if (core) {
        try {
            RequestOptions options;
            options.timeout = deps_.probe_timeout;
            core->call("ping", Json(rapidjson::kObjectType), options);
            alive = true;
        } catch (const Error&) {
        }
    }
    ConnectionHealth::Action action = ConnectionHealth::Action::None;
    {
        std::lock_guard lock(mutex_);
        probing_ = false;
        action = health_.probe_result(alive, Clock::now());
    }
    if (action == ConnectionHealth::Action::Reconnect) drop_and_reconnect("ping probe failed after repeated transport errors");
}

void ServerConnection::drop_and_reconnect(const std::string& why) {
    std::shared_ptr<detail::SessionCore> core = live_core();
    if (!core) return;
    deps_.log(LogLevel::Warn, name(), "closing an unhealthy connection: " + why);
    core->close();  // pending calls fail at once; lists are cleared
    on_lost(why);
}

// ---- user control -------------------------------------------------------------------------------

void ServerConnection::disable(const std::string& reason) {
    std::shared_ptr<detail::SessionCore> core;
    {
        std::lock_guard lock(mutex_);
        ++epoch_;
        core = core_;
    }
    set_state(state::Disabled{reason});
    if (core) core->close();
}

void ServerConnection::enable() {
    {
        std::lock_guard lock(mutex_);
        if (!std::holds_alternative<state::Disabled>(state_)) return;
        attempts_.reset();
    }
    set_state(state::Pending{0, max_attempts(), ""});
}

void ServerConnection::shutdown() {
    std::shared_ptr<detail::SessionCore> core;
    {
        std::lock_guard lock(mutex_);
        if (shut_down_) return;
        shut_down_ = true;
        ++epoch_;
        core = core_;
    }
    if (core) core->close();
}

}  // namespace mcph::connection
