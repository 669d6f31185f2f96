#include "session/session_core.hpp"

#include "extensions/tasks.hpp"
#include "json/json_access.hpp"
#include "session/feature_parsing.hpp"
#include "session/input_required.hpp"
#include "session/pagination.hpp"
#include "session/protocol_version.hpp"
#include "session/request_meta.hpp"
#include "session/server_requests.hpp"

#include <mcph/bounded_json.hpp>

#include <algorithm>

namespace mcph::detail {
namespace {

constexpr auto kTimeoutTick = std::chrono::milliseconds(20);
constexpr int kIdleTicksBeforeDisarm = 50;  // keep ticking ~1 s after the last request finishes
// Progress may keep a request alive past its timeout, but not forever (the spec says clients
// SHOULD enforce a maximum): ten timeouts at most unless the caller sets max_total_timeout.
constexpr int kProgressMaxTotalFactor = 10;
constexpr std::chrono::milliseconds kLongestDefaultTotal = std::chrono::hours(24 * 30);  // no clock overflow
// A caller finding another caller's session recovery under way waits for it this much beyond the
// connect timeout that bounds that recovery.
constexpr auto kRecoveryWaitSlack = std::chrono::milliseconds(2000);
// The least time between the starts of two refreshes of one list (list_changed floods).
constexpr auto kListRefreshSpacing = std::chrono::milliseconds(200);

// Set while a thread fetches the lists of a freshly recovered session: a request failing there
// with an expired session again must not start another recovery (one recovery per call).
thread_local bool t_in_recovery = false;

class RecoveryScope {
public:
    RecoveryScope() : previous_(t_in_recovery) { t_in_recovery = true; }
    ~RecoveryScope() { t_in_recovery = previous_; }
    RecoveryScope(const RecoveryScope&) = delete;
    RecoveryScope& operator=(const RecoveryScope&) = delete;

private:
    bool previous_;
};

std::chrono::milliseconds remaining(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max(left, std::chrono::milliseconds(1));
}

Json initialize_params(const std::string& version, const JsonValue& capabilities, const JsonValue& client_info) {
    Json params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    params.AddMember("protocolVersion", json::string_value(version, a), a);
    params.AddMember("capabilities", JsonValue(capabilities, a), a);
    params.AddMember("clientInfo", JsonValue(client_info, a), a);
    return params;
}


// The name Mcp-Name mirrors: params.name (tools/call, prompts/get), params.uri (resources/read) or,
// for the Tasks extension, params.taskId (tasks/get, tasks/update, tasks/cancel).
std::string routed_name(const std::string& method, const JsonValue& params) {
    if (method == "tools/call" || method == "prompts/get") return json::string_or(params, "name");
    if (method == "resources/read") return json::string_or(params, "uri");
    if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
        return json::string_or(params, "taskId");
    return {};
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

// HTTP-family transports answer a request that never got an HTTP response (refused, DNS, TLS) with
// a synthesized JSON-RPC error whose data.httpStatus is 0: for a connect, that is a connection
// failure, not the server's answer.
bool is_transport_failure(const Error& e) {
    if (e.kind() != ErrorKind::Remote || e.data_json().empty()) return false;
    Json data;
    if (!json_bounds::parse(data, e.data_json())) return false;
    return data.IsObject() && data.HasMember("httpStatus") && data["httpStatus"].IsInt() && data["httpStatus"].GetInt() == 0;
}

Json cursor_params(const std::string& cursor) {
    Json params(rapidjson::kObjectType);
    if (!cursor.empty()) params.AddMember("cursor", json::string_value(cursor, params.GetAllocator()), params.GetAllocator());
    return params;
}

LogLevel to_log_level(mcph_log_level level) { return static_cast<LogLevel>(level); }

// A request the transport lost or the server refused below JSON-RPC. An HTTP error whose body is a
// JSON-RPC error is the server's answer (modern servers say -32022 with a 400): keep its code and
// data, and the status. Otherwise the category says what it was.
Error request_failure_error(const transport::Failure& failure) {
    Json body;
    if (!failure.body.empty() && json_bounds::parse(body, failure.body) && body.IsObject()) {
        if (const JsonValue* error = json::object_member(body, "error")) {
            const JsonValue* code = json::member(*error, "code");
            const JsonValue* data = json::member(*error, "data");
            Error e(ErrorKind::Remote,
                    json::string_or(*error, "message", "server refused the request") + " (HTTP " +
                        std::to_string(failure.http_status) + ", JSON-RPC error " +
                        std::to_string(code && code->IsInt() ? code->GetInt() : 0) + ")",
                    code && code->IsInt() ? code->GetInt() : 0, data ? to_json(*data) : std::string());
            e.set_http_status(failure.http_status);
            return e;
        }
    }
    switch (failure.category) {
        case MCPH_FAILURE_HTTP_STATUS: {
            Error e(ErrorKind::Remote, failure.message, -32000,
                    "{\"httpStatus\":" + std::to_string(failure.http_status) + "}");
            e.set_http_status(failure.http_status);
            return e;
        }
        case MCPH_FAILURE_SESSION_EXPIRED: return Error(ErrorKind::Connection, failure.message, kSessionExpiredCode);
        case MCPH_FAILURE_RESET: return Error(ErrorKind::Connection, failure.message, kResponseStreamBrokenCode);
        case MCPH_FAILURE_TIMEOUT: return Error(ErrorKind::Timeout, failure.message);
        case MCPH_FAILURE_AUTH: return Error(ErrorKind::Connection, failure.message);
        default: return Error(ErrorKind::Connection, failure.message);
    }
}

}  // namespace

SessionCore::SessionCore(SessionSettings settings, TransportFactory make_transport,
                         std::shared_ptr<plugins::HostServices> services, std::shared_ptr<runtime::Runtime> runtime)
    : settings_(std::move(settings)),
      make_transport_(std::move(make_transport)),
      services_(std::move(services)),
      runtime_holder_(std::move(runtime)),
      runtime_(*runtime_holder_),
      ticker_(runtime_.loop()),
      tools_generation_(settings_.tools_generation ? settings_.tools_generation
                                                   : std::make_shared<std::atomic<std::uint64_t>>(0)),
      client_requests_(settings_.server_name, settings_.callbacks,
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

// ---- lifecycle ----------------------------------------------------------------------------------

void SessionCore::connect() {
    if (connected_) return;
    if (!engine_) create_engine();
    establish();
    connected_ = true;
    refresh_lists();
    start_listen();
}

void SessionCore::create_engine() {
    std::weak_ptr<SessionCore> weak = weak_from_this();
    jsonrpc::EngineHooks hooks;
    hooks.send = [this](std::string_view message, const transport::MessageFacts* facts) {
        // Shared: many senders at once; a reconnect swaps the transport under the exclusive lock.
        std::shared_lock lock(channel_mutex_);
        if (!channel_) throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' is not connected");
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
    hooks.defer = [this](std::function<void()> work) { runtime_.run_background(std::move(work)); };
    engine_ = std::make_shared<jsonrpc::RpcEngine>(settings_.server_name, std::move(hooks));
}

// Opens a fresh transport and runs the handshake on it (first connect, or after a session expired).
void SessionCore::establish() {
    if (channel_) drop_transport();  // a reconnect: the previous transport is finished
    closing_ = false;
    needs_auth_ = false;
    cache_->clear(cache_identity_);  // a new connection may meet a changed server
    engine_->reopen();
    // --connect-timeout bounds the whole connect: the transport's start and the handshake share it.
    const auto deadline = std::chrono::steady_clock::now() + settings_.connect_timeout;
    try {
        auto transport = make_transport_(this);
        {
            std::unique_lock lock(channel_mutex_);
            channel_ = std::move(transport);
        }
        transport_traits_ = channel_->traits();
        channel_->start();
        if (std::chrono::steady_clock::now() >= deadline)
            throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' did not connect within the connect timeout (" +
                                                   std::to_string(settings_.connect_timeout.count()) + " ms)");
        handshake(remaining(deadline));
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
    if (!lock.try_lock_for(settings_.connect_timeout + kRecoveryWaitSlack))
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
            Json result = send_request("server/discover", Json(rapidjson::kObjectType), options, version).get();
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
        result = request("initialize", initialize_params(offered, client_capabilities_, client_info_json_), options).get();
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
        Json params(rapidjson::kObjectType);
        params.AddMember("level", json::string_value(level, params.GetAllocator()), params.GetAllocator());
        call("logging/setLevel", std::move(params));
        return;
    }
    std::lock_guard lock(log_level_mutex_);
    log_level_ = level;
}

void SessionCore::close() {
    if (closing_.exchange(true)) return;  // guard: close must not re-enter itself
    connected_ = false;
    if (engine_) engine_->fail_all(Error(ErrorKind::Connection, "session with '" + settings_.server_name + "' was closed"));
    if (channel_) channel_->close();  // the object itself lives until destruction: senders may still hold it
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

// ---- requests -----------------------------------------------------------------------------------

PendingRequest SessionCore::request(const std::string& method, Json params, const RequestOptions& options) {
    if (!engine_) {
        std::promise<Json> failed;
        failed.set_exception(std::make_exception_ptr(disconnected_error()));
        return PendingRequest(failed.get_future(), {});
    }
    const auto f = facts();
    if (f->era == session::Era::Modern) return send_request(method, std::move(params), options, f->protocol_version);
    return engine_->start_request(method, std::move(params), request_settings(options));
}

// A modern request: the envelope in _meta, and the facts an HTTP transport mirrors in headers.
PendingRequest SessionCore::send_request(const std::string& method, Json params, const RequestOptions& options,
                                         const std::string& version) {
    session::RequestMeta meta;
    meta.protocol_version = version;
    meta.capabilities = &client_capabilities_;
    meta.client_info = &client_info_json_;
    if (!options.log_level.empty()) {
        meta.log_level = options.log_level;
    } else {
        std::lock_guard lock(log_level_mutex_);
        meta.log_level = log_level_;
    }
    meta.traceparent = options.traceparent;
    meta.tracestate = options.tracestate;
    meta.baggage = options.baggage;
    session::add_request_meta(params, meta);
    jsonrpc::RequestSettings settings = request_settings(options);
    settings.facts.protocol_version = version;
    settings.facts.name = routed_name(method, params);
    if (method == "tools/call" && (transport_traits_.load() & MCPH_TRAIT_HTTP_HEADERS)) {
        std::lock_guard lock(state_mutex_);
        if (auto it = param_headers_.find(settings.facts.name); it != param_headers_.end())
            if (const JsonValue* arguments = json::object_member(params, "arguments"))
                settings.facts.params = session::extract_param_headers(it->second, *arguments);
    }
    if (method == "subscriptions/listen") settings.facts.flags |= MCPH_MESSAGE_LISTEN_STREAM;
    return engine_->start_request(method, std::move(params), std::move(settings));
}

void SessionCore::request_async(const std::string& method, Json params, ResponseHandler done,
                                const RequestOptions& options) {
    if (!engine_) {
        Error error = disconnected_error();
        done(Json(), &error);
        return;
    }
    jsonrpc::RequestSettings settings = request_settings(options);
    const auto f = facts();
    if (f->era == session::Era::Modern) {
        session::RequestMeta meta;
        meta.protocol_version = f->protocol_version;
        meta.capabilities = &client_capabilities_;
        meta.client_info = &client_info_json_;
        meta.log_level = options.log_level;
        meta.traceparent = options.traceparent;
        meta.tracestate = options.tracestate;
        meta.baggage = options.baggage;
        session::add_request_meta(params, meta);
        settings.facts.protocol_version = f->protocol_version;
        settings.facts.name = routed_name(method, params);
    }
    engine_->start_request_async(method, std::move(params), std::move(settings), std::move(done));
}

jsonrpc::RequestSettings SessionCore::request_settings(const RequestOptions& options) const {
    jsonrpc::RequestSettings settings;
    settings.timeout = options.timeout.value_or(settings_.request_timeout);
    settings.reset_timeout_on_progress = options.reset_timeout_on_progress;
    settings.max_total_timeout = options.max_total_timeout;
    if (!settings.max_total_timeout && settings.reset_timeout_on_progress)
        settings.max_total_timeout = settings.timeout >= kLongestDefaultTotal / kProgressMaxTotalFactor
                                         ? kLongestDefaultTotal
                                         : settings.timeout * kProgressMaxTotalFactor;
    settings.on_progress = options.on_progress;
    return settings;
}

Json SessionCore::call(const std::string& method, Json params, const RequestOptions& options) {
    if (!session_can_expire() || t_in_recovery) return exchange(method, std::move(params), options);
    // Remote sessions can expire under us: keep a copy of the params to retry once on a fresh one.
    Json retry_params = clone_json(params);
    const std::uint64_t generation = generation_.load();
    try {
        return exchange(method, std::move(params), options);
    } catch (const Error& e) {
        if (e.code() != kSessionExpiredCode || method == "initialize") throw;
    }
    recover_expired_session(generation);
    try {
        return exchange(method, std::move(retry_params), options);
    } catch (const Error& e) {
        if (e.code() != kSessionExpiredCode) throw;
        // One recovery per call: a server whose fresh session is gone at once as well (a load
        // balancer without affinity, a restart loop) gets a clear error, not a loop.
        throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' expired a fresh session at once too (" +
                                               e.what() + "); gave up after one session recovery");
    }
}

Json SessionCore::exchange(const std::string& method, Json params, const RequestOptions& options, int* input_rounds) {
    if (modern()) return modern_exchange(method, std::move(params), options, input_rounds);
    Json result = request(method, std::move(params), options).get();
    // Earlier servers omit resultType (= complete); one that says otherwise is not followed.
    if (result.IsObject() && session::result_type(result, method + " from '" + settings_.server_name + "'") !=
                                 session::ResultType::Complete)
        throw Error(ErrorKind::Protocol, method + " from '" + settings_.server_name + "': a " +
                                             std::string(facts()->protocol_version) +
                                             " server answered with a multi round-trip result, which that version does not have");
    return result;
}

// One modern request to its end: input rounds answered through the application's callbacks
// (each retry a new id, the original params plus this round's inputResponses and requestState),
// one retry at a version the server names as shared, one re-issue after a broken response stream.
Json SessionCore::modern_exchange(const std::string& method, Json params, const RequestOptions& options,
                                  int* input_rounds) {
    const std::string context = method + " from '" + settings_.server_name + "'";
    Json original;  // the caller's params, copied only when a first input round needs them
    Json current = std::move(params);
    bool version_retried = false;
    bool stream_retried = false;
    bool headers_retried = false;
    int rounds = 0;
    for (;;) {
        Json sent;
        sent.CopyFrom(current, sent.GetAllocator());
        const auto f = facts();
        Json result;
        try {
            result = send_request(method, std::move(sent), options, f->protocol_version).get();
        } catch (const Error& e) {
            if (auto refused = session::unsupported_version(e)) {
                auto mutual = session::mutual_modern_version(refused->supported);
                if (mutual && !version_retried) {
                    version_retried = true;
                    if (*mutual != f->protocol_version) {
                        auto changed = std::make_shared<ServerFacts>();
                        changed->era = f->era;
                        changed->protocol_version = *mutual;
                        changed->server_info = f->server_info;
                        changed->capabilities.CopyFrom(f->capabilities, changed->capabilities.GetAllocator());
                        changed->instructions = f->instructions;
                        publish(std::move(changed));
                    }
                    continue;
                }
                throw Error(ErrorKind::Protocol, context + ": the server refused protocol version " + f->protocol_version +
                                                     " (it supports " + joined(refused->supported) + ")");
            }
            if (e.code() == session::kHeaderMismatchCode && method == "tools/call" && !headers_retried) {
                // The tool's annotations may have changed: list the tools again, then retry once.
                headers_retried = true;
                log(LogLevel::Info, context + ": the server reported a header mismatch; refreshing the tool list");
                cache_->evict_method(cache_identity_, "tools/list");
                refresh_list("tools");
                continue;
            }
            if (e.code() == kResponseStreamBrokenCode && !stream_retried) {
                stream_retried = true;  // the request was lost with its stream: re-issue it once, new id
                log(LogLevel::Info, context + ": the response stream broke; re-issuing the request once");
                continue;
            }
            throw;
        }
        if (!result.IsObject()) throw Error(ErrorKind::Protocol, context + ": the result is not an object");
        switch (session::result_type(result, context)) {
            case session::ResultType::Complete:
                if (input_rounds) *input_rounds = rounds;
                return result;
            case session::ResultType::Task: {
                // Tasks extension: poll the task to its end here; the caller sees the final result.
                // Only tools/call may become a task (a task for anything else is an invalid answer).
                if (method != "tools/call")
                    throw Error(ErrorKind::Protocol, context + ": the server answered with a task, which " + method +
                                                         " does not support");
                const RequestOptions poll = extensions::task_poll_options(options);
                extensions::TaskRun run = extensions::task_run_for(
                    extensions::TaskDialect::Extension, context, options, settings_.request_timeout,
                    [this, poll](const std::string& m, Json p) {
                        return send_request(m, std::move(p), poll, facts()->protocol_version).get();
                    });
                run.answer_inputs = [this, &context](const JsonValue& task) {
                    return std::move(session::answer_input_requests(
                                         task,
                                         [this](const std::string& m, const JsonValue& p) {
                                             return client_requests_.answer(m, p);
                                         },
                                         [this](const std::string& warning) { log(LogLevel::Warn, warning); }, context)
                                         .responses);
                };
                return extensions::run_task(result, run);
            }
            case session::ResultType::InputRequired:
                break;
        }
        if (!session::supports_input_required(method))
            throw Error(ErrorKind::Protocol, context + ": input_required is not allowed for " + method);
        if (++rounds > max_input_rounds_)
            throw Error(ErrorKind::Protocol, context + ": the server still asked for input after " +
                                                 std::to_string(max_input_rounds_) +
                                                 " rounds (the client's round cap, maxInputRounds); gave up");
        session::InputRound round = session::answer_input_requests(
            result,
            [this](const std::string& m, const JsonValue& p) { return client_requests_.answer(m, p); },
            [this](const std::string& warning) { log(LogLevel::Warn, warning); }, context);
        if (rounds == 1) original.CopyFrom(current, original.GetAllocator());  // still the caller's params
        current = session::retry_params(original, round);
    }
}

// The spec's caching hints (ttlMs, cacheScope) apply to what one authorization context sees: a
// private entry is keyed by a digest of the request's auth headers, never the token itself.
std::string SessionCore::cache_principal() const {
    return settings_.auth ? session::cache_principal(settings_.auth->headers()) : std::string();
}

Json SessionCore::cached_call(const std::string& method, Json params, const RequestOptions& options) {
    if (!modern()) return call(method, std::move(params), options);
    const std::string principal = cache_principal();
    auto key = session::make_cache_key(cache_identity_, method, &params, principal);
    if (!key) return call(method, std::move(params), options);
    if (auto hit = cache_->lookup(*key, std::chrono::steady_clock::now())) return std::move(*hit);
    int rounds = 0;
    Json result;
    try {
        result = exchange(method, std::move(params), options, &rounds);
    } catch (const Error&) {
        // A failed page (an invalid cursor) makes every cached page of that list suspect.
        if (method != "resources/read") cache_->evict_method(cache_identity_, method);
        throw;
    }
    // Results that took input rounds, or were fetched as another principal, are not kept.
    if (rounds == 0 && cache_principal() == principal) cache_->store(*key, result, std::chrono::steady_clock::now());
    return result;
}

void SessionCore::notify(const std::string& method, Json params) {
    if (!engine_) throw disconnected_error();
    engine_->notify(method, &params);
}

// ---- features -----------------------------------------------------------------------------------

std::vector<Tool> SessionCore::fetch_tools() {
    require_capability("tools", "tools");
    std::vector<Tool> tools;
    session::for_each_page_item(
        "tools/list from '" + settings_.server_name + "'", "tools",
        [this](const std::string& cursor) { return cached_call("tools/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "name")); },
        [&](const JsonValue& item) {
            if (auto tool = parse_tool(settings_.server_name, item)) tools.push_back(std::move(*tool));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    set_aside_invalid_header_tools(tools);
    output_schemas_.set_tools(tools);
    {
        std::lock_guard lock(state_mutex_);
        tools_ = tools;
    }
    tools_generation_->fetch_add(1, std::memory_order_acq_rel);
    return tools;
}

std::vector<Resource> SessionCore::fetch_resources() {
    require_capability("resources", "resources");
    std::vector<Resource> out;
    session::for_each_page_item(
        "resources/list from '" + settings_.server_name + "'", "resources",
        [this](const std::string& cursor) { return cached_call("resources/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "uri")); },
        [&](const JsonValue& item) {
            if (auto r = parse_resource(settings_.server_name, item)) out.push_back(std::move(*r));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    std::lock_guard lock(state_mutex_);
    resources_ = out;
    return out;
}

std::vector<ResourceTemplate> SessionCore::fetch_resource_templates() {
    require_capability("resources", "resource templates");
    std::vector<ResourceTemplate> out;
    session::for_each_page_item(
        "resources/templates/list from '" + settings_.server_name + "'", "resourceTemplates",
        [this](const std::string& cursor) { return cached_call("resources/templates/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "uriTemplate")); },
        [&](const JsonValue& item) {
            if (auto r = parse_resource_template(settings_.server_name, item)) out.push_back(std::move(*r));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    return out;
}

std::vector<Prompt> SessionCore::fetch_prompts() {
    require_capability("prompts", "prompts");
    std::vector<Prompt> out;
    session::for_each_page_item(
        "prompts/list from '" + settings_.server_name + "'", "prompts",
        [this](const std::string& cursor) { return cached_call("prompts/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "name")); },
        [&](const JsonValue& item) {
            if (auto p = parse_prompt(settings_.server_name, item)) out.push_back(std::move(*p));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    std::lock_guard lock(state_mutex_);
    prompts_ = out;
    return out;
}

CallToolResult SessionCore::call_tool(const std::string& name, const JsonValue& arguments, const RequestOptions& options) {
    Json params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    params.AddMember("name", json::string_value(name, a), a);
    if (arguments.IsObject())
        params.AddMember("arguments", JsonValue(arguments, a), a);
    else if (!arguments.IsNull())
        throw Error(ErrorKind::Usage, "tool arguments must be a JSON object");
    // 2025-11-25 experimental tasks: a tool that requires it (or allows it, when the caller prefers
    // tasks) is called task-augmented on a server that offers task-augmented tools/call.
    bool as_task = false;
    if (!modern()) {
        std::string support;
        for (const Tool& t : cached_tools())
            if (t.name == name) support = t.task_support;
        as_task = (support == "required" || (support == "optional" && options.prefer_task)) &&
                  extensions::server_offers_tool_tasks(facts()->capabilities);
    }
    CallToolResult result;
    if (as_task) {
        params.AddMember("task", JsonValue(rapidjson::kObjectType), a);
        const std::string context = "tools/call of '" + name + "' from '" + settings_.server_name + "'";
        Json created = request("tools/call", std::move(params), extensions::task_poll_options(options)).get();
        const RequestOptions poll = extensions::task_poll_options(options);
        result.raw = extensions::run_task(
            created, extensions::task_run_for(extensions::TaskDialect::Legacy, context, options,
                                              settings_.request_timeout, [this, poll](const std::string& m, Json p) {
                                                  return request(m, std::move(p), poll).get();
                                              }));
    } else {
        result.raw = call("tools/call", std::move(params), options);
    }
    if (!result.raw.IsObject()) throw Error(ErrorKind::Protocol, "tools/call result is not an object");
    result.is_error = json::bool_or(result.raw, "isError", false);
    if (!json::array_member(result.raw, "content") && !result.structured())
        throw Error(ErrorKind::Protocol, "tools/call result of '" + name + "' has no content");
    std::string problem = output_schemas_.validate(name, result);
    if (!problem.empty()) throw Error(ErrorKind::Protocol, problem);
    return result;
}

// Over a transport that mirrors parameters into headers (Streamable HTTP), a tool whose
// x-mcp-header annotations break the spec's rules is left out — that tool only, never the server
// — with a warning and its reason kept for status. The valid annotations are kept per tool.
void SessionCore::set_aside_invalid_header_tools(std::vector<Tool>& tools) {
    std::unordered_map<std::string, std::vector<session::ParamHeader>> headers;
    std::vector<std::pair<std::string, std::string>> set_aside;
    if (transport_traits_.load() & MCPH_TRAIT_HTTP_HEADERS) {
        std::erase_if(tools, [&](const Tool& tool) {
            Json schema;
            json_bounds::parse(schema, tool.input_schema);  // written by us from a bounded tree
            session::HeaderAnnotations annotations = session::read_header_annotations(schema);
            if (!annotations.valid()) {
                log(LogLevel::Warn, "tool '" + tool.name + "' set aside: invalid x-mcp-header annotation (" +
                                        annotations.invalid_reason + ")");
                set_aside.emplace_back(tool.name, annotations.invalid_reason);
                return true;
            }
            if (!annotations.headers.empty()) headers.emplace(tool.name, std::move(annotations.headers));
            return false;
        });
    }
    std::lock_guard lock(state_mutex_);
    param_headers_ = std::move(headers);
    set_aside_tools_ = std::move(set_aside);
}

std::vector<std::pair<std::string, std::string>> SessionCore::set_aside_tools() const {
    std::lock_guard lock(state_mutex_);
    return set_aside_tools_;
}

std::vector<Tool> SessionCore::cached_tools() const {
    std::lock_guard lock(state_mutex_);
    return tools_;
}
std::vector<Resource> SessionCore::cached_resources() const {
    std::lock_guard lock(state_mutex_);
    return resources_;
}
std::vector<Prompt> SessionCore::cached_prompts() const {
    std::lock_guard lock(state_mutex_);
    return prompts_;
}

void SessionCore::refresh_lists() {
    for (const char* which : {"tools", "resources", "prompts"})
        if (has_capability(which)) refresh_list(which);
}

bool SessionCore::refresh_list(const std::string& which) {
    try {
        if (which == "tools") fetch_tools();
        else if (which == "resources") fetch_resources();
        else if (which == "prompts") fetch_prompts();
        return true;
    } catch (const Error& e) {
        log(LogLevel::Warn, "could not list " + which + ": " + e.what());
        return false;
    }
}

// ---- server → client ----------------------------------------------------------------------------

void SessionCore::on_server_request(const std::string& method, Json params, std::shared_ptr<jsonrpc::Responder> responder) {
    // The engine bounds how many of these are in flight; on top, prompts that reach the application
    // (a person or a model) are rate-limited, refused at once when the server asks too fast.
    std::string why;
    if (!client_requests_.take_prompt(method, &why)) {
        responder->error(session::kPromptRateLimitedCode, why);
        return;
    }
    // Application callbacks may block (a person answering a form): run them on the callback pool
    // so this transport thread keeps reading and the timer loop keeps ticking.
    auto shared_params = std::make_shared<Json>(std::move(params));
    std::weak_ptr<SessionCore> weak = weak_from_this();
    runtime_.run_callback([weak, method, shared_params, responder] {
        auto self = weak.lock();
        if (!self) return;
        try {
            self->answer_server_request(method, *shared_params, *responder);
        } catch (const Error& e) {
            responder->error(e.kind() == ErrorKind::Remote ? e.code() : -32603, e.what());
        } catch (const std::exception& e) {
            responder->error(-32603, std::string("client callback failed: ") + e.what());
        }
    });
}

void SessionCore::answer_server_request(const std::string& method, const Json& params, jsonrpc::Responder& responder) {
    responder.result(client_requests_.answer_taken(method, params));  // the budget was taken on arrival
}

session::ListRefreshGate& SessionCore::refresh_gate(const std::string& which) {
    return refresh_gates_[which == "tools" ? 0 : which == "resources" ? 1 : 2];
}

// One refresh in flight per list kind; notifications arriving meanwhile set its dirty flag and
// cost one more refresh after it, however many there were. Two refreshes start at least
// kListRefreshSpacing apart (a timer on the loop; no thread is held while waiting).
void SessionCore::schedule_refresh(const std::string& which) {
    if (refresh_gate(which).request()) start_refresh(which);
}

void SessionCore::start_refresh(const std::string& which) {
    const auto delay = refresh_gate(which).start_delay(std::chrono::steady_clock::now(), kListRefreshSpacing);
    std::weak_ptr<SessionCore> weak = weak_from_this();
    // The refresh waits for responses, so it must not run on the transport thread.
    auto run = [weak, which] {
        if (auto self = weak.lock()) self->run_refresh(which);
    };
    if (delay <= std::chrono::steady_clock::duration::zero()) {
        runtime_.run_background(run);
        return;
    }
    auto timer = std::make_shared<boost::asio::steady_timer>(runtime_.loop(), delay);
    timer->async_wait([weak, which, timer, run](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (!self) return;
        if (ec) self->refresh_gate(which).abandon();
        else self->runtime_.run_background(run);
    });
}

void SessionCore::run_refresh(const std::string& which) {
    session::ListRefreshGate& gate = refresh_gate(which);
    if (!connected()) {
        gate.abandon();
        return;
    }
    if (refresh_list(which) && settings_.callbacks.on_list_changed)
        settings_.callbacks.on_list_changed(settings_.server_name, which);
    if (gate.finish()) start_refresh(which);  // notifications came meanwhile: once more, later
}

void SessionCore::on_server_notification(const std::string& method, const JsonValue& params) {
    const ClientCallbacks& cb = settings_.callbacks;
    cache_->evict_for_notification(cache_identity_, method, &params);  // before any refresh reads it
    // Modern era: change notifications come only on our listen stream, tagged with its id; one
    // that names another (or no) subscription is not ours to act on.
    if (session::is_subscription_notification(method) && modern()) {
        std::int64_t current = -1;
        {
            std::lock_guard lock(listen_mutex_);
            current = listen_id_;
        }
        if (current < 0 || !session::names_subscription(params, current)) {
            log(LogLevel::Debug, "ignored " + method + " that names no open subscription of ours");
            return;
        }
        if (method == "notifications/subscriptions/acknowledged") {
            on_listen_acknowledged(params);
            return;
        }
    }
    if (method == "notifications/tools/list_changed") schedule_refresh("tools");
    else if (method == "notifications/resources/list_changed") schedule_refresh("resources");
    else if (method == "notifications/prompts/list_changed") schedule_refresh("prompts");
    else if (method == "notifications/resources/updated") {
        if (cb.on_resource_updated) cb.on_resource_updated(settings_.server_name, json::string_or(params, "uri"));
    } else if (method == "notifications/message") {
        static const JsonValue kNull;
        const JsonValue* data = json::member(params, "data");
        if (cb.on_log)
            cb.on_log(settings_.server_name, json::string_or(params, "level", "info"), json::string_or(params, "logger"),
                      data ? *data : kNull);
        else
            log(LogLevel::Debug, "server log: " + (data ? to_json(*data) : std::string()));
    } else {
        log(LogLevel::Debug, "ignored notification " + method);
    }
}

// ---- subscriptions/listen (modern era) -----------------------------------------------------------

// Opens the listen stream for what this server can tell (its listChanged capabilities and the
// application's resource subscriptions). It stays open with no timeout; its end, a missing
// acknowledgment or a lost connection are handled by the callbacks below.
void SessionCore::start_listen() {
    const auto f = facts();
    if (f->era != session::Era::Modern || closing_ || !connected_ || !engine_) return;
    session::ListenFilter filter;
    std::uint64_t generation = 0;
    {
        std::lock_guard lock(listen_mutex_);
        filter = session::wanted_filter(f->capabilities, resource_subscriptions_);
        generation = ++listen_generation_;
        listen_id_ = -1;
        listen_acked_ = false;
        listen_asked_ = filter;
        listen_state_ = filter.empty() ? "none" : "pending";
    }
    if (filter.empty()) return;
    Json params(rapidjson::kObjectType);
    params.AddMember("notifications", JsonValue(filter.to_json(), params.GetAllocator()), params.GetAllocator());
    session::RequestMeta meta;
    meta.protocol_version = f->protocol_version;
    meta.capabilities = &client_capabilities_;
    meta.client_info = &client_info_json_;
    session::add_request_meta(params, meta);
    jsonrpc::RequestSettings settings;
    settings.long_lived = true;
    settings.facts.protocol_version = f->protocol_version;
    settings.facts.flags = MCPH_MESSAGE_LISTEN_STREAM;
    std::weak_ptr<SessionCore> weak = weak_from_this();
    // Held across the send: the acknowledgment may arrive (on the transport thread) before the id
    // is stored, and must then wait for it. The completion never takes this lock in place.
    std::lock_guard lock(listen_mutex_);
    listen_id_ = engine_->start_request_async(
        "subscriptions/listen", std::move(params), std::move(settings), [weak, generation](Json, const Error* error) {
            auto self = weak.lock();
            if (!self) return;
            std::optional<Error> copy;
            if (error) copy = *error;
            self->runtime_.post([weak, generation, copy] {
                if (auto s = weak.lock()) s->on_listen_ended(generation, copy ? &*copy : nullptr);
            });
        });
    after(listen_ack_wait_, [generation](SessionCore& self) { self.on_listen_ack_overdue(generation); });
}

// The application's subscriptions changed: the stream is opened again with the new filter.
void SessionCore::restart_listen() {
    std::int64_t old_id = -1;
    {
        std::lock_guard lock(listen_mutex_);
        old_id = listen_id_;
        ++listen_generation_;  // the old stream's end is not a loss
        listen_id_ = -1;
    }
    if (old_id >= 0 && engine_) engine_->cancel(old_id, "subscriptions changed");
    start_listen();
}

void SessionCore::on_listen_acknowledged(const JsonValue& params) {
    static const JsonValue kNone(rapidjson::kObjectType);
    const JsonValue* granted_json = json::object_member(params, "notifications");
    const session::ListenFilter granted = session::ListenFilter::from_json(granted_json ? *granted_json : kNone);
    bool refresh = false;
    std::vector<std::string> missing;
    {
        std::lock_guard lock(listen_mutex_);
        listen_acked_ = true;
        listen_failures_ = 0;
        listen_granted_ = granted;
        listen_state_ = "acknowledged";
        missing = session::not_granted(listen_asked_, granted);
        refresh = std::exchange(listen_was_lost_, false);
    }
    for (const auto& what : missing) log(LogLevel::Info, "the server does not send " + what + " on its listen stream");
    if (refresh) {
        // Changes made while no stream was open went unannounced: list again, once.
        std::weak_ptr<SessionCore> weak = weak_from_this();
        runtime_.run_background([weak] {
            if (auto self = weak.lock())
                for (const char* which : {"tools", "resources", "prompts"})
                    if (self->has_capability(which)) self->schedule_refresh(which);
        });
    }
}

void SessionCore::on_listen_ack_overdue(std::uint64_t generation) {
    std::int64_t id = -1;
    {
        std::lock_guard lock(listen_mutex_);
        if (generation != listen_generation_ || listen_acked_ || listen_id_ < 0) return;
        id = listen_id_;
    }
    log(LogLevel::Warn, "the server did not acknowledge subscriptions/listen within " +
                            std::to_string(listen_ack_wait_.count()) +
                            " ms; list changes may go unseen until it does (listening again later)");
    if (engine_) engine_->cancel(id, "not acknowledged");  // its end schedules the next attempt
}

// The stream ended: the server closed it gracefully, it broke, or the connection went. While the
// connection lasts the client listens again, later and later if it keeps ending.
void SessionCore::on_listen_ended(std::uint64_t generation, const Error* error) {
    {
        std::lock_guard lock(listen_mutex_);
        if (generation != listen_generation_) return;  // replaced on purpose
        listen_id_ = -1;
        listen_was_lost_ = true;
        ++listen_failures_;
        listen_state_ = "retrying";
    }
    if (closing_ || !connected_ || !modern()) return;
    log(error ? LogLevel::Warn : LogLevel::Info,
        std::string("the listen stream ended") + (error ? std::string(": ") + error->what() : " (the server closed it)") +
            "; listening again");
    schedule_relisten(generation);
}

void SessionCore::schedule_relisten(std::uint64_t generation) {
    int failures = 0;
    {
        std::lock_guard lock(listen_mutex_);
        failures = listen_failures_;
    }
    after(session::relisten_delay(failures), [generation](SessionCore& self) {
        {
            std::lock_guard lock(self.listen_mutex_);
            if (generation != self.listen_generation_ || self.listen_id_ >= 0) return;
        }
        self.start_listen();
    });
}

// Runs `work` on the event loop after `delay`, if the session still exists then.
void SessionCore::after(std::chrono::milliseconds delay, std::function<void(SessionCore&)> work) {
    auto timer = std::make_shared<boost::asio::steady_timer>(runtime_.loop(), delay);
    std::weak_ptr<SessionCore> weak = weak_from_this();
    timer->async_wait([weak, timer, work = std::move(work)](const boost::system::error_code& ec) {
        if (ec) return;
        if (auto self = weak.lock()) work(*self);
    });
}

void SessionCore::subscribe_resource(const std::string& uri) {
    if (!modern()) {
        Json params(rapidjson::kObjectType);
        params.AddMember("uri", json::string_value(uri, params.GetAllocator()), params.GetAllocator());
        call("resources/subscribe", std::move(params));
        return;
    }
    {
        std::lock_guard lock(listen_mutex_);
        if (!resource_subscriptions_.insert(uri).second) return;
    }
    restart_listen();
}

void SessionCore::unsubscribe_resource(const std::string& uri) {
    if (!modern()) {
        Json params(rapidjson::kObjectType);
        params.AddMember("uri", json::string_value(uri, params.GetAllocator()), params.GetAllocator());
        call("resources/unsubscribe", std::move(params));
        return;
    }
    {
        std::lock_guard lock(listen_mutex_);
        if (!resource_subscriptions_.erase(uri)) return;
    }
    restart_listen();
}

Json SessionCore::listen_status() const {
    Json out;
    if (!modern()) return out;
    out.SetObject();
    auto& a = out.GetAllocator();
    std::lock_guard lock(listen_mutex_);
    out.AddMember("state", json::string_value(listen_state_, a), a);
    if (listen_acked_) out.AddMember("notifications", JsonValue(listen_granted_.to_json(), a), a);
    return out;
}

// ---- transport events ---------------------------------------------------------------------------

void SessionCore::on_transport_message(std::string_view message) { engine_->handle_message(message); }

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

transport::HeaderList SessionCore::request_headers() {
    if (!settings_.auth) return {};
    return settings_.auth->headers();
}

bool SessionCore::auth_challenge(int http_status, std::string_view www_authenticate) {
    if (!settings_.auth) return false;
    std::string reason;
    bool retry = settings_.auth->handle_challenge(http_status, std::string(www_authenticate), &reason);
    if (!retry) {
        std::lock_guard lock(state_mutex_);
        last_error_ = "authorization failed: " + (reason.empty() ? "no credentials" : reason);
    } else {
        needs_auth_ = false;
    }
    return retry;
}

// The human log line only: its text is never classified (an ABI 1.0 plugin's warnings therefore
// never count as link failures; see ServerConnection::on_transport_problem).
void SessionCore::on_transport_diagnostic(mcph_log_level level, std::string_view message) {
    log(to_log_level(level), std::string(message));
}

// Typed, and sent alongside the diagnostic that logged it: the health monitor decides.
void SessionCore::on_transport_failure(const transport::Failure& failure) {
    if (connected_ && settings_.on_transport_problem) settings_.on_transport_problem(failure);
}

// ---- timeouts -----------------------------------------------------------------------------------

void SessionCore::arm_timeouts() {
    if (ticking_.exchange(true)) return;
    std::weak_ptr<SessionCore> weak = weak_from_this();
    runtime_.post([weak] {
        if (auto self = weak.lock()) {
            self->idle_ticks_ = 0;
            self->tick_timeouts();
        }
    });
}

void SessionCore::tick_timeouts() {
    std::weak_ptr<SessionCore> weak = weak_from_this();
    ticker_.expires_after(kTimeoutTick);
    ticker_.async_wait([weak](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (ec || !self) return;
        const std::size_t remaining = self->engine_->check_timeouts(jsonrpc::Clock::now());
        self->idle_ticks_ = remaining ? 0 : self->idle_ticks_ + 1;
        if (self->idle_ticks_ < kIdleTicksBeforeDisarm) {
            self->tick_timeouts();
            return;
        }
        self->ticking_ = false;
        // A request may have been added between the check and the store: re-arm if so.
        if (self->engine_->timed_pending_count() && !self->ticking_.exchange(true)) {
            self->idle_ticks_ = 0;
            self->tick_timeouts();
        }
    });
}

void SessionCore::log(LogLevel level, const std::string& message) const {
    if (settings_.log) settings_.log(level, settings_.server_name, message);
}

}  // namespace mcph::detail
