// SessionCore: construction, the lifecycle (connect, reconnect after an expired session, close), the
// era handshake (server/discover probe, or initialize), transport events and request timeouts.
// The rest of the class: session_requests.cpp, session_features.cpp, session_server_messages.cpp,
// session_listen.cpp.
#include "session/session_core.hpp"

#include "extensions/tasks.hpp"
#include "session/input_required.hpp"
#include "session/protocol_version.hpp"
#include "session/request_meta.hpp"
#include "session/session_core_internals.hpp"

namespace mcph::detail {

using namespace core_internal;

SessionCore::SessionCore(SessionSettings settings, TransportFactory make_transport,
                         std::shared_ptr<plugins::HostServices> services, std::shared_ptr<runtime::Runtime> runtime)
    : settings_(std::move(settings)),
      make_transport_(std::move(make_transport)),
      services_(std::move(services)),
      runtime_holder_(std::move(runtime)),
      runtime_(*runtime_holder_),
      deadline_timer_(runtime_.loop()),
      tools_generation_(settings_.tools_generation ? settings_.tools_generation
                                                   : std::make_shared<std::atomic<std::uint64_t>>(0)),
      client_requests_(settings_.server_name, settings_.callbacks, settings_.roots,
                       [this](LogLevel level, const std::string& message) { log(level, message); }) {
    Json config;
    if (!settings_.config_json.empty()) json_bounds::parse(config, settings_.config_json);
    const std::string configured = config.IsObject() ? json::string_or(config, "protocolVersion") : std::string();
    preference_ = session::parse_protocol_preference(
        configured, settings_.transport_type == "sse" || settings_.transport_type == "sse-ide");
    if (const JsonValue* rounds = config.IsObject() ? json::member(config, "maxInputRounds") : nullptr) {
        if (!rounds->IsInt() || rounds->GetInt() < 1 || rounds->GetInt() > 1000)
            throw Error(ErrorKind::Usage, "server '" + settings_.server_name + "': maxInputRounds must be an integer from 1 to 1000");
        max_input_rounds_ = rounds->GetInt();
    } else {
        max_input_rounds_ = session::kDefaultMaxInputRounds;
    }
    if (const JsonValue* wait = config.IsObject() ? json::member(config, "discoverTimeoutMs") : nullptr) {
        if (!wait->IsInt() || wait->GetInt() < 1 || wait->GetInt() > 600000)
            throw Error(ErrorKind::Usage, "server '" + settings_.server_name + "': discoverTimeoutMs must be an integer from 1 to 600000");
        stdio_probe_wait_ = std::chrono::milliseconds(wait->GetInt());
    }
    if (const JsonValue* wait = config.IsObject() ? json::member(config, "listenAckTimeoutMs") : nullptr) {
        if (!wait->IsInt() || wait->GetInt() < 1 || wait->GetInt() > 600000)
            throw Error(ErrorKind::Usage, "server '" + settings_.server_name + "': listenAckTimeoutMs must be an integer from 1 to 600000");
        listen_ack_wait_ = std::chrono::milliseconds(wait->GetInt());
    }
    cache_ = settings_.response_cache ? settings_.response_cache : std::make_shared<session::ResponseCache>();
    cache_identity_ = session::cache_server_identity(settings_.server_name, settings_.config_json);
    Json extensions(rapidjson::kObjectType);
    if (!settings_.client_extensions_json.empty()) json_bounds::parse(extensions, settings_.client_extensions_json);
    client_capabilities_ = session::client_capabilities(extensions);
    client_info_json_ = session::implementation_json(settings_.client_info);
}

SessionCore::~SessionCore() {
    closing_ = true;
    if (engine_) engine_->fail_all(Error(ErrorKind::Connection, "session destroyed"));
    drop_transport();  // no callback after this
}

void SessionCore::connect() {
    if (connected_) return;
    if (!engine_) create_engine();
    establish();  // marks the session connected
    refresh_lists();
    settle_roots();
    start_listen();
}

void SessionCore::create_engine() {
    std::weak_ptr<SessionCore> weak = weak_from_this();
    jsonrpc::EngineHooks hooks;
    hooks.send = [this](std::string_view message, const transport::MessageFacts* facts) {
        // Shared: many senders at once; a reconnect swaps the transport under the exclusive lock.
        std::shared_lock lock(channel_mutex_);
        if (!channel_) throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' is not connected");
        if (settings_.wire_trace) settings_.wire_trace(settings_.server_name, WireDirection::Out, message);
        channel_->send(message, facts);
    };
    hooks.cancel_stream = [this](std::string_view id_json) {
        std::shared_lock lock(channel_mutex_);
        if (channel_) channel_->cancel(id_json);
    };
    hooks.on_request = [weak](const std::string& method, Json params, std::shared_ptr<jsonrpc::Responder> responder) {
        if (auto self = weak.lock()) self->on_server_request(method, std::move(params), std::move(responder));
    };
    hooks.on_notification = [this](const std::string& method, const JsonValue& params) {
        on_server_notification(method, params);
    };
    hooks.log = [this](int level, const std::string& message) { log(static_cast<LogLevel>(level), message); };
    hooks.arm_timeouts = [this] { arm_timeouts(); };
    hooks.pump = [weak](const std::function<bool()>& ready, jsonrpc::Clock::time_point deadline) {
        if (auto self = weak.lock()) self->pump_until(ready, deadline);
    };
    hooks.defer = [this](std::function<void()> work) { runtime_.run_background(std::move(work)); };
    auto engine = std::make_shared<jsonrpc::RpcEngine>(settings_.server_name, std::move(hooks));
    std::unique_lock lock(channel_mutex_);
    engine_ = std::move(engine);
}

Error SessionCore::closed_while_connecting() const {
    return Error(ErrorKind::Connection, "session with '" + settings_.server_name + "' was closed while it was connecting");
}

// Under the exclusive lock, so a close() counted after this point sees what this installed.
bool SessionCore::install_unless_closed(std::unique_ptr<transport::Transport>& transport, std::uint64_t closes) {
    std::unique_lock lock(channel_mutex_);
    if (close_count_.load() != closes) return false;
    if (transport) channel_ = std::move(transport);
    else connected_ = true;
    return true;
}

// Opens a fresh transport and runs the handshake on it (first connect, or after a session expired).
void SessionCore::establish() {
    if (channel_) drop_transport();  // a reconnect: the previous transport is finished
    const std::uint64_t closes = close_count_.load();  // a close() from now on ends this connect
    closing_ = false;
    needs_auth_ = false;
    cache_->clear(cache_identity_);  // a new connection may meet a changed server
    engine_->reopen();
    // --connect-timeout bounds the whole connect: the transport's start and the handshake share it.
    const auto deadline = std::chrono::steady_clock::now() + settings_.connect_timeout;
    try {
        auto transport = make_transport_(this);
        if (!install_unless_closed(transport, closes)) throw closed_while_connecting();
        transport_traits_ = channel_->traits();
        channel_->start();
        if (close_count_.load() != closes) throw closed_while_connecting();
        if (std::chrono::steady_clock::now() >= deadline)
            throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' did not connect within the connect timeout (" +
                                                   std::to_string(settings_.connect_timeout.count()) + " ms)");
        handshake(remaining(deadline));
        std::unique_ptr<transport::Transport> none;
        if (!install_unless_closed(none, closes)) throw closed_while_connecting();  // else connected_ is set
    } catch (const Error& e) {
        // Every connect failure names the server: the plugin's own message may not.
        const std::string prefix = "server '" + settings_.server_name + "'";
        const std::string what = e.what();
        Error named = what.find(prefix) == std::string::npos ? Error(e.kind(), prefix + ": " + what, e.code(), e.data_json()) : e;
        {
            std::lock_guard lock(state_mutex_);
            last_error_ = named.what();
        }
        closing_ = true;
        engine_->fail_all(named);
        drop_transport();
        throw named;
    }
}

// Closes the transport first (which also releases a sender blocked in it), then destroys it once
// no sender holds it any more.
void SessionCore::drop_transport() {
    std::unique_ptr<transport::Transport> old;
    if (channel_) channel_->close();
    {
        std::unique_lock lock(channel_mutex_);
        old = std::move(channel_);
    }
}

// Modern servers keep no sessions; a legacy remote one may forget ours.
bool SessionCore::session_can_expire() const {
    return (transport_traits_.load() & MCPH_TRAIT_SESSION_CAN_EXPIRE) != 0 && !modern();
}

// A remote server forgot our session (HTTP 404): start a fresh one, once per expiry, however many
// callers noticed it at the same time.
// The lock covers only the reconnect (bounded by the connect timeout), never the list refresh after
// it: that refresh calls call(), which may meet an expired session again on this very thread.
void SessionCore::recover_expired_session(std::uint64_t seen_generation) {
    std::unique_lock lock(reconnect_mutex_, std::defer_lock);
    // try_lock_until on the system clock: try_lock_for (steady clock) becomes pthread_mutex_clocklock,
    // which GCC 12's ThreadSanitizer does not intercept (it then loses this lock's ordering);
    // pthread_mutex_timedlock it does. A wall-clock step only lengthens or shortens this bounded wait.
    if (!lock.try_lock_until(std::chrono::system_clock::now() + settings_.connect_timeout + kRecoveryWaitSlack))
        throw Error(ErrorKind::Timeout, "server '" + settings_.server_name +
                                            "': another caller's session recovery did not finish within the connect "
                                            "timeout (" + std::to_string(settings_.connect_timeout.count()) + " ms)");
    if (generation_.load() != seen_generation) return;  // another caller already recovered
    log(LogLevel::Info, "session expired; starting a fresh session");
    drop_transport();
    establish();
    ++generation_;
    lock.unlock();
    RecoveryScope once;  // a fresh session expiring at once too ends in an error, not another recovery
    refresh_lists();
}

// Finds the server's era and opens the conversation in it: a modern server is probed with
// server/discover (no handshake follows); a legacy one gets initialize. "auto" tries modern first
// unless the transport speaks only the legacy generation or this server was legacy last time.
void SessionCore::handshake(std::chrono::milliseconds budget) {
    const auto deadline = std::chrono::steady_clock::now() + budget;
    const bool legacy_only = (channel_->traits() & MCPH_TRAIT_LEGACY_ONLY) != 0;
    const bool pinned_legacy = !preference_.automatic() && !preference_.pins_modern();
    if (legacy_only || pinned_legacy) {
        legacy_handshake(deadline);
        return;
    }
    const bool known_legacy = known_era_.load() == static_cast<int>(session::Era::Legacy) && preference_.automatic();
    if (known_legacy) {
        try {
            legacy_handshake(deadline);
            return;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::Remote && e.kind() != ErrorKind::Protocol) throw;
            log(LogLevel::Info, std::string("initialize failed where it worked before (") + e.what() + "); probing the era again");
        }
    }
    if (probe_modern(deadline)) return;
    if (preference_.pins_modern())
        throw Error(ErrorKind::Protocol, "server '" + settings_.server_name + "' does not speak protocol version " +
                                             preference_.pinned + " (it did not answer server/discover as a modern server); "
                                             "set \"protocolVersion\": \"auto\" to use its legacy version");
    legacy_handshake(deadline);
}

// server/discover at our newest modern version. True when the server is modern (adopted); false
// when it is legacy. Throws on a connection failure or a modern server we share no version with.
bool SessionCore::probe_modern(std::chrono::steady_clock::time_point deadline) {
    const bool stdio = (channel_->traits() & MCPH_TRAIT_SESSION_CAN_EXPIRE) == 0;
    std::string version = preference_.pins_modern() ? preference_.pinned : std::string(session::kLatestModernProtocolVersion);
    channel_->set_option("era", "modern");  // no session id, no GET stream while probing
    for (int attempt = 0; attempt < 2; ++attempt) {
        RequestOptions options;
        options.timeout = remaining(deadline);
        if (stdio) options.timeout = std::min(*options.timeout, stdio_probe_wait_);
        session::ProbeVerdict verdict;
        try {
            Json result = answer_modern("server/discover", Json(rapidjson::kObjectType), options, version, {});
            verdict = session::classify_probe_result(result, settings_.server_name);
        } catch (const Error& e) {
            if (is_transport_failure(e)) throw Error(ErrorKind::Connection, e.what(), e.code(), e.data_json());
            verdict = session::classify_probe_error(e, stdio, settings_.server_name);
            if (verdict.kind == session::ProbeVerdict::Legacy)
                log(LogLevel::Debug, std::string("server/discover: ") + e.what() + " — a legacy server; falling back to initialize");
        }
        switch (verdict.kind) {
            case session::ProbeVerdict::Modern:
                adopt_modern(verdict.version, verdict.discover);
                return true;
            case session::ProbeVerdict::Corrective:
                version = verdict.version;  // the server named a version we share: ask again, once
                continue;
            case session::ProbeVerdict::Failed:
                throw *verdict.error;
            case session::ProbeVerdict::Legacy:
                channel_->set_option("era", "legacy");
                return false;
        }
    }
    throw Error(ErrorKind::Protocol, "server '" + settings_.server_name + "' refused protocol version " + version +
                                         " on server/discover although it listed it as supported");
}

void SessionCore::adopt_modern(const std::string& version, const JsonValue& discover) {
    auto facts = std::make_shared<ServerFacts>();
    facts->era = session::Era::Modern;
    facts->protocol_version = version;
    if (const JsonValue* caps = json::object_member(discover, "capabilities"))
        facts->capabilities.CopyFrom(*caps, facts->capabilities.GetAllocator());
    // serverInfo sits in the result's _meta in the schema; early servers put it at the top level.
    const JsonValue* meta = json::object_member(discover, "_meta");
    const JsonValue* info = meta ? json::object_member(*meta, session::kMetaServerInfo) : nullptr;
    if (!info) info = json::object_member(discover, "serverInfo");
    if (info) facts->server_info = {json::string_or(*info, "name"), json::string_or(*info, "version"), json::string_or(*info, "title")};
    facts->instructions = json::string_or(discover, "instructions");
    publish(std::move(facts));
    known_era_ = static_cast<int>(session::Era::Modern);
    channel_->set_option("era", "modern");
    channel_->set_option("protocol-version", version);
    engine_->set_cancel_by_stream((channel_->traits() & MCPH_TRAIT_PER_REQUEST_CANCEL) != 0);
}

void SessionCore::legacy_handshake(std::chrono::steady_clock::time_point deadline) {
    RequestOptions options;
    options.timeout = remaining(deadline);
    const std::string offered = preference_.automatic() || preference_.pins_modern() ? std::string(session::kLatestProtocolVersion)
                                                                                     : preference_.pinned;
    Json result;
    try {
        result = answer("initialize", initialize_params(offered, client_capabilities_, client_info_json_), options, {});
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Timeout)
            throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' did not answer initialize within " +
                                                   std::to_string(settings_.connect_timeout.count()) + " ms");
        if (is_transport_failure(e)) throw Error(ErrorKind::Connection, e.what(), e.code(), e.data_json());
        if (auto refused = session::unsupported_version(e)) {
            if (!preference_.automatic())
                throw Error(ErrorKind::Protocol, "server '" + settings_.server_name + "' refused protocol version " + offered +
                                                     " (pinned by \"protocolVersion\"); it speaks " + joined(refused->supported) +
                                                     "; set \"protocolVersion\" to \"auto\" or one of those",
                            e.code(), e.data_json());
            throw Error(ErrorKind::Protocol, "server '" + settings_.server_name + "' refused initialize at " + offered +
                                                 "; it supports " + joined(refused->supported) +
                                                 ", yet did not answer server/discover as a modern server; mcph speaks " +
                                                 session::client_versions(false),
                        e.code(), e.data_json());
        }
        throw;
    }
    std::string version = json::string_or(result, "protocolVersion");
    const bool legacy_sse = (channel_->traits() & MCPH_TRAIT_LEGACY_ONLY) != 0;
    if (!session::is_supported_protocol_version(version, legacy_sse)) {
        throw Error(ErrorKind::Protocol,
                    "server '" + settings_.server_name + "' chose protocol version '" + version +
                        "' in answer to initialize, which is not a legacy version mcph speaks (supported: 2025-11-25, "
                        "2025-06-18, 2025-03-26" + (legacy_sse ? ", 2024-11-05" : "") + "); upgrade the server or mcph");
    }
    auto facts = std::make_shared<ServerFacts>();
    facts->era = session::Era::Legacy;
    facts->protocol_version = version;
    if (const JsonValue* caps = json::object_member(result, "capabilities"))
        facts->capabilities.CopyFrom(*caps, facts->capabilities.GetAllocator());
    if (const JsonValue* info = json::object_member(result, "serverInfo"))
        facts->server_info = {json::string_or(*info, "name"), json::string_or(*info, "version"), json::string_or(*info, "title")};
    facts->instructions = json::string_or(result, "instructions");
    publish(std::move(facts));
    known_era_ = static_cast<int>(session::Era::Legacy);
    engine_->set_cancel_by_stream(false);

    channel_->set_option("era", "legacy");
    channel_->set_option("protocol-version", version);
    engine_->notify("notifications/initialized", nullptr);
    // The marker after it: a transport that could let a later message overtake the notification
    // (HTTP, legacy SSE: a connection per POST) holds what follows until the server has it
    // (plugin_api.h, set_option; the transports' READMEs, "the handshake hold").
    channel_->set_option("initialized", "true");
}

std::shared_ptr<const ServerFacts> SessionCore::facts() const {
    std::lock_guard lock(facts_mutex_);
    return facts_;
}

void SessionCore::publish(std::shared_ptr<const ServerFacts> facts) {
    std::lock_guard lock(facts_mutex_);
    facts_ = std::move(facts);
}

bool SessionCore::modern() const { return facts()->era == session::Era::Modern; }

void SessionCore::set_log_level(const std::string& level) {
    if (!modern()) {
        call("logging/setLevel", object_with("level", level));
        return;
    }
    std::lock_guard lock(log_level_mutex_);
    log_level_ = level;
}

// May run on another thread while connect() is in progress (a reachability probe closing the
// session): channel_ and engine_ are read under channel_mutex_, and the count tells establish().
void SessionCore::close() {
    if (closing_.exchange(true)) return;  // guard: close must not re-enter itself
    std::shared_ptr<jsonrpc::RpcEngine> engine;
    {
        std::shared_lock lock(channel_mutex_);
        ++close_count_;
        connected_ = false;
        engine = engine_;
    }
    // Outside the lock: failing a request runs its waiter's code, which may send (shared lock again).
    if (engine) engine->fail_all(Error(ErrorKind::Connection, "session with '" + settings_.server_name + "' was closed"));
    {
        // The object itself lives until destruction: senders may still hold it. Closing is
        // idempotent and thread-safe (TransportChannel::close), so establish()'s own cleanup may race it.
        std::shared_lock lock(channel_mutex_);
        if (channel_) channel_->close();
    }
    clear_cached_lists();
}

void SessionCore::clear_cached_lists() {
    cache_->clear(cache_identity_);
    {
        std::lock_guard lock(state_mutex_);
        tools_.clear();
        resources_.clear();
        prompts_.clear();
    }
    tools_generation_->fetch_add(1, std::memory_order_acq_rel);
}

bool SessionCore::has_capability(const char* name) const {
    const auto f = facts();
    return f->capabilities.IsObject() && f->capabilities.HasMember(name);
}

void SessionCore::require_capability(const char* name, const char* feature) const {
    if (!has_capability(name))
        throw Error(ErrorKind::Usage, "server '" + settings_.server_name + "' does not offer " + feature +
                                          " (no '" + name + "' capability)");
}

std::string SessionCore::last_error() const {
    std::lock_guard lock(state_mutex_);
    return last_error_;
}

Error SessionCore::disconnected_error() const {
    return Error(ErrorKind::Connection, "server '" + settings_.server_name + "' is not connected");
}

void SessionCore::on_transport_message(std::string_view message) {
    if (settings_.wire_trace) settings_.wire_trace(settings_.server_name, WireDirection::In, message);
    engine_->handle_message(message);
}

void SessionCore::on_transport_request_failed(std::string_view request_id, const transport::Failure& failure) {
    if (engine_) engine_->fail_request(request_id, request_failure_error(failure));
}

void SessionCore::on_transport_closed(mcph_close_reason reason, const transport::Failure& failure) {
    const std::string detail =
        failure.stderr_tail.empty() ? failure.message : failure.message + "; stderr:\n" + failure.stderr_tail;
    std::string why = reason == MCPH_CLOSE_CLEAN ? "closed the connection"
                      : reason == MCPH_CLOSE_SESSION_EXPIRED ? "expired the session"
                      : reason == MCPH_CLOSE_AUTH_REQUIRED   ? "requires authentication"
                                                             : "connection failed";
    std::string message = "server '" + settings_.server_name + "' " + why;
    if (!detail.empty()) message += ": " + std::string(detail);
    if (reason == MCPH_CLOSE_AUTH_REQUIRED) {
        needs_auth_ = true;
        message += " (run `mcph login " + settings_.server_name + "`)";
    }
    {
        std::lock_guard lock(state_mutex_);
        last_error_ = message;
    }
    if (reason == MCPH_CLOSE_SESSION_EXPIRED && connected_) {
        // Recoverable: pending calls fail with a marked error and call() starts a fresh session.
        engine_->fail_all(Error(ErrorKind::Connection, message, kSessionExpiredCode));
        return;
    }
    const bool was_connected = connected_.exchange(false);
    engine_->fail_all(Error(ErrorKind::Connection, message));
    if (was_connected) clear_cached_lists();  // a reconnect must discover afresh (seed 000 §18.8)
    if (was_connected && !closing_ && settings_.on_disconnected) {
        std::weak_ptr<SessionCore> weak = weak_from_this();
        runtime_.post([weak, message] {
            if (auto self = weak.lock()) self->settings_.on_disconnected(message);
        });
    }
}

// The transport's hooks talk to the AuthSession directly (and from the auth worker): nothing of
// this session is touched there, so a hook answered after the session is gone is harmless. A
// refused challenge reaches the session as the transport's AUTH_REQUIRED close, whose detail
// carries the auth's reason.
std::shared_ptr<transport::AuthHooks> SessionCore::auth_hooks() { return settings_.auth; }

// The human log line only: its text is never classified (an ABI 1.0 plugin's warnings therefore
// never count as link failures; see ServerConnection::on_transport_problem).
void SessionCore::on_transport_diagnostic(mcph_log_level level, std::string_view message) {
    log(to_log_level(level), std::string(message));
}

// Typed, and sent alongside the diagnostic that logged it: the health monitor decides.
void SessionCore::on_transport_failure(const transport::Failure& failure) {
    if (connected_ && settings_.on_transport_problem) settings_.on_transport_problem(failure);
}

// Called by the engine (any thread) when a request is due before the timer's wake-up: the timer
// belongs to the loop thread, so it is moved there.
void SessionCore::arm_timeouts() {
    std::weak_ptr<SessionCore> weak = weak_from_this();
    runtime_.post([weak] {
        if (auto self = weak.lock()) self->rearm_deadline_timer();
    });
}

// One timer per session, at the earliest deadline (loop thread only). Setting it cancels the wait
// it replaces (that handler sees operation_aborted and does nothing). A request that completes
// leaves the timer where it is: it wakes once, finds nothing due and re-arms for the next deadline
// or stops when none is left.
void SessionCore::rearm_deadline_timer() {
    const jsonrpc::Clock::time_point due = engine_->next_deadline();
    if (due == jsonrpc::Clock::time_point::max()) {
        deadline_timer_.cancel();
        return;
    }
    deadline_timer_.expires_at(due);
    std::weak_ptr<SessionCore> weak = weak_from_this();
    deadline_timer_.async_wait([weak](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (ec || !self) return;
        self->engine_->check_timeouts(jsonrpc::Clock::now());
        self->rearm_deadline_timer();
    });
}

void SessionCore::log(LogLevel level, const std::string& message) const {
    if (settings_.log) settings_.log(level, settings_.server_name, message);
}

}  // namespace mcph::detail
