// SessionCore — the MCP client for one server: lifecycle (initialize → initialized → work →
// close), capability-checked features, cached lists kept fresh by list_changed notifications,
// and routing of server→client requests to the application's callbacks.
#pragma once

#include "auth/auth_session.hpp"
#include "jsonrpc/rpc_engine.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"
#include "runtime/runtime.hpp"
#include "session/client_request_router.hpp"
#include "session/era.hpp"
#include "session/list_refresh_gate.hpp"
#include "session/listen_filter.hpp"
#include "session/output_schema.hpp"
#include "session/param_headers.hpp"
#include "session/request_meta.hpp"
#include "session/response_cache.hpp"
#include "transport/transport.hpp"
#include "transport/transport_channel.hpp"

#include <mcph/callbacks.hpp>
#include <mcph/host.hpp>
#include <mcph/session.hpp>
#include <mcph/types.hpp>

#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <set>
#include <string>
#include <unordered_map>

namespace mcph::detail {

// Builds a fresh transport for each (re)connect; runs on the connecting thread and may block
// (e.g. a headersHelper command). Throws mcph::Error.
using TransportFactory = std::function<std::unique_ptr<transport::Transport>(transport::TransportListener* listener)>;

// The code carried by a Connection error when the server expired our session (HTTP 404); the
// seed's systems see the same condition as JSON-RPC -32001.
inline constexpr int kSessionExpiredCode = -32001;
// The code carried by a Connection error when a request's own response stream broke (modern
// Streamable HTTP): the request is lost and may be re-issued once with a new id. Host-internal.
inline constexpr int kResponseStreamBrokenCode = -32010;

struct SessionSettings {
    std::string server_name;
    std::string transport_type;
    std::string config_json;  // the server's config object, as handed to the plugin
    std::chrono::milliseconds request_timeout{60000};
    std::chrono::milliseconds connect_timeout{30000};
    Implementation client_info;
    // The extensions map this client declares in its capabilities (JSON object text; "" = none).
    std::string client_extensions_json;
    ClientCallbacks callbacks;
    // roots/list when callbacks.roots is unset: the server's configured roots (host.cpp), fixed
    // for the session's life. nullopt: the working directory, read when the server asks.
    std::optional<std::vector<Root>> roots;
    std::function<void(LogLevel, std::string_view, std::string_view)> log;
    // The server's auth backend, if its config names one; kept across reconnects.
    std::shared_ptr<auth::AuthSession> auth;
    // Called (on the event loop) when an established connection ends on its own.
    std::function<void(const std::string& reason)> on_disconnected;
    // Called (on a transport thread, quickly) with every typed failure the transport reports while
    // connected (ABI 1.1 on_failure): the connection's health monitor classifies it (terminal or not).
    std::function<void(const transport::Failure& failure)> on_transport_problem;
    // The tools generation: bumped (after the write) whenever the cached tool list changes —
    // fetched, refreshed after list_changed, cleared at a disconnect or close. The host shares one
    // counter among all its sessions and its own inputs, so its tool review checks one number per
    // call, however many servers there are. Null: the session keeps a counter of its own.
    std::shared_ptr<std::atomic<std::uint64_t>> tools_generation;
    // Modern era: results cached by their ttlMs / cacheScope (shared by the host's sessions).
    // Null: the session keeps one of its own.
    std::shared_ptr<session::ResponseCache> response_cache;
    // HostOptions::wire_trace, called with server_name for every message out and in.
    std::function<void(const std::string& server, WireDirection direction, std::string_view message)> wire_trace;
};

// What a server said about itself at the last connect. Published whole (a new object per
// connect, never modified after), so a reader on another thread never sees half of a reconnect.
struct ServerFacts {
    session::Era era = session::Era::Legacy;
    std::string protocol_version;
    Implementation server_info;
    Json capabilities{rapidjson::kObjectType};
    std::string instructions;
};

class SessionCore : public std::enable_shared_from_this<SessionCore>, public transport::TransportListener {
public:
    // The session shares ownership of the runtime and the services table, so a ClientSession kept
    // by the application past the Host's end never touches freed memory.
    SessionCore(SessionSettings settings, TransportFactory make_transport, std::shared_ptr<plugins::HostServices> services,
                std::shared_ptr<runtime::Runtime> runtime);
    ~SessionCore() override;

    // Starts the transport and runs the handshake, then fills the cached lists. Throws Error.
    void connect();
    void close();
    bool connected() const { return connected_.load(); }

    const SessionSettings& settings() const { return settings_; }
    // The facts of the current connection (never null; empty before the first connect).
    std::shared_ptr<const ServerFacts> facts() const;
    bool has_capability(const char* name) const;
    // Modern era: the level servers send notifications/message at for every request (the
    // per-request replacement of logging/setLevel). Legacy: logging/setLevel.
    void set_log_level(const std::string& level);
    // notifications/resources/updated for `uri`: resources/subscribe (legacy) or the listen
    // stream's resourceSubscriptions (modern: the stream is opened again with the new filter).
    void subscribe_resource(const std::string& uri);
    void unsubscribe_resource(const std::string& uri);
    // The modern listen stream for status: {"state", "notifications" granted}; null in legacy.
    Json listen_status() const;
    std::string last_error() const;

    PendingRequest request(const std::string& method, Json params, const RequestOptions& options);
    Json call(const std::string& method, Json params, const RequestOptions& options = {});
    // call() for the cacheable reads (lists, resources/read): a fresh cached answer is served
    // without a request, and an answer with ttlMs is kept (modern era; legacy: call()).
    Json cached_call(const std::string& method, Json params, const RequestOptions& options = {});
    void request_async(const std::string& method, Json params, ResponseHandler done, const RequestOptions& options);
    void notify(const std::string& method, Json params);

    std::vector<Tool> fetch_tools();
    std::vector<Resource> fetch_resources();
    std::vector<ResourceTemplate> fetch_resource_templates();
    std::vector<Prompt> fetch_prompts();
    CallToolResult call_tool(const std::string& name, const JsonValue& arguments, const RequestOptions& options);

    std::vector<Tool> cached_tools() const;
    // Tools the server listed that were left out: an invalid x-mcp-header annotation (over
    // Streamable HTTP), with the reason. Shown in status; never offered to the model.
    std::vector<std::pair<std::string, std::string>> set_aside_tools() const;
    // The tools generation (SessionSettings::tools_generation): it has moved whenever this
    // session's cached tool list changed since it was last read.
    std::uint64_t tools_generation() const { return tools_generation_->load(std::memory_order_acquire); }
    std::vector<Resource> cached_resources() const;
    std::vector<Prompt> cached_prompts() const;

    // TransportListener
    void on_transport_message(std::string_view message) override;
    void on_transport_closed(mcph_close_reason reason, const transport::Failure& failure) override;
    void on_transport_request_failed(std::string_view request_id, const transport::Failure& failure) override;
    void on_transport_diagnostic(mcph_log_level level, std::string_view message) override;
    void on_transport_failure(const transport::Failure& failure) override;
    std::shared_ptr<transport::AuthHooks> auth_hooks() override;
    // The last close was the server demanding credentials we could not supply.
    bool needs_auth() const { return needs_auth_.load(); }

private:
    void create_engine();
    void establish();
    void drop_transport();
    // [ABI 1.3] The engine's pump hook: reads the transport on this thread until `ready()` or
    // `deadline`, when the transport can be pumped (session_requests.cpp).
    void pump_until(const std::function<bool()>& ready, std::chrono::steady_clock::time_point deadline);
    bool session_can_expire() const;
    void recover_expired_session(std::uint64_t seen_generation);
    void handshake(std::chrono::milliseconds budget);
    bool probe_modern(std::chrono::steady_clock::time_point deadline);
    void legacy_handshake(std::chrono::steady_clock::time_point deadline);
    void adopt_modern(const std::string& version, const JsonValue& discover);
    void publish(std::shared_ptr<const ServerFacts> facts);
    bool modern() const;
    jsonrpc::RequestSettings modern_settings(const std::string& method, Json& params, const RequestOptions& options,
                                             const std::string& version);
    PendingRequest send_request(const std::string& method, Json params, const RequestOptions& options,
                                const std::string& version);
    // request()/send_request() and a wait for the answer, without a future (RpcEngine::call);
    // `is_cancelled` (may be empty) is polled while waiting and cancels the request once true.
    Json answer(const std::string& method, Json params, const RequestOptions& options,
                const std::function<bool()>& is_cancelled);
    Json answer_modern(const std::string& method, Json params, const RequestOptions& options, const std::string& version,
                       const std::function<bool()>& is_cancelled);
    // The same, sending `params` where they are (RpcEngine::call_in_place): unchanged unless
    // envelope_goes_into_params says otherwise for them.
    Json answer_modern_in_place(const std::string& method, Json& params, const RequestOptions& options,
                                const std::string& version, const std::function<bool()>& is_cancelled);
    Json exchange(const std::string& method, Json params, const RequestOptions& options, int* input_rounds = nullptr);
    Json modern_exchange(const std::string& method, Json params, const RequestOptions& options, int* input_rounds);
    std::string cache_principal() const;
    void refresh_lists();
    void set_aside_invalid_header_tools(std::vector<Tool>& tools);
    void start_listen();
    void restart_listen();
    void on_listen_ended(std::uint64_t generation, const Error* error);
    void on_listen_acknowledged(const JsonValue& params);
    void on_listen_ack_overdue(std::uint64_t generation);
    void schedule_relisten(std::uint64_t generation);
    void after(std::chrono::milliseconds delay, std::function<void(SessionCore&)> work);
    void clear_cached_lists();
    bool refresh_list(const std::string& which);  // false when the fetch failed (logged)
    void schedule_refresh(const std::string& which);
    void start_refresh(const std::string& which);
    void run_refresh(const std::string& which);
    session::ListRefreshGate& refresh_gate(const std::string& which);
    void require_capability(const char* name, const char* feature) const;
    void on_server_request(const std::string& method, Json params, std::shared_ptr<jsonrpc::Responder> responder);
    void answer_server_request(const std::string& method, const Json& params, jsonrpc::Responder& responder);
    // roots/list of the 2025 era: counted when asked and when answered, so connect can wait for
    // the answers (settle_roots).
    void count_roots_request(bool answered);
    void settle_roots();
    void on_server_notification(const std::string& method, const JsonValue& params);
    void arm_timeouts();
    void rearm_deadline_timer();
    void log(LogLevel level, const std::string& message) const;
    Error disconnected_error() const;
    Error closed_while_connecting() const;
    // Installs `transport` as channel_ (or, when it is null, marks the session connected) unless
    // close() began since `closes` was read; false then.
    bool install_unless_closed(std::unique_ptr<transport::Transport>& transport, std::uint64_t closes);
    jsonrpc::RequestSettings request_settings(const RequestOptions& options) const;

    SessionSettings settings_;
    TransportFactory make_transport_;
    std::shared_ptr<plugins::HostServices> services_;
    std::shared_ptr<runtime::Runtime> runtime_holder_;
    runtime::Runtime& runtime_;

    std::shared_ptr<jsonrpc::RpcEngine> engine_;  // set once, under channel_mutex_ (close() may read it meanwhile)
    std::shared_mutex channel_mutex_;  // exclusive only to swap channel_ (and to set engine_ and connected_)
    // How many times close() began, counted under channel_mutex_: a close from another thread (a
    // reachability probe) while establish() runs either closes the transport it installed or makes
    // it refuse to install one, and the connect ends in an error instead of a session marked
    // connected after it was closed.
    std::atomic<std::uint64_t> close_count_{0};
    std::unique_ptr<transport::Transport> channel_;
    std::timed_mutex reconnect_mutex_;
    std::atomic<std::uint64_t> generation_{0};
    boost::asio::steady_timer deadline_timer_;  // at the engine's next_deadline() (loop thread only)

    std::atomic<bool> connected_{false};
    std::atomic<bool> closing_{false};
    std::atomic<bool> needs_auth_{false};
    mutable std::mutex facts_mutex_;  // guards facts_ (the pointer, not the object: it is immutable)
    std::shared_ptr<const ServerFacts> facts_ = std::make_shared<const ServerFacts>();
    session::ProtocolPreference preference_;
    std::shared_ptr<session::ResponseCache> cache_;
    std::string cache_identity_;  // this server's definition, as the cache keys it
    int max_input_rounds_ = 10;
    // How long a stdio server may stay silent on server/discover before it counts as legacy (a
    // legacy server may ignore an unknown request sent before initialize; a modern one answers at
    // once). Config "discoverTimeoutMs".
    std::chrono::milliseconds stdio_probe_wait_{5000};
    std::chrono::milliseconds listen_ack_wait_ = session::kListenAckWait;  // config "listenAckTimeoutMs"
    // The era the last connect found (cached per server: a reconnect to a legacy HTTP server goes
    // straight to initialize and re-probes only if that fails).
    std::atomic<int> known_era_{-1};
    std::atomic<std::uint32_t> transport_traits_{0};  // the current transport's MCPH_TRAIT_* flags
    Json client_capabilities_;
    Json client_info_json_;
    // The 2026 envelope as text for the last (version, log level) asked (session::serialized_request_meta),
    // guarded by envelope_mutex_; requests share it (kept_envelope).
    std::mutex envelope_mutex_;
    std::string envelope_version_, envelope_log_level_;
    std::shared_ptr<const std::string> envelope_json_;
    std::shared_ptr<const std::string> kept_envelope(const session::RequestMeta& meta);
    // The envelope for `params`: kept text in `settings` (written by the engine) or, when the
    // request carries trace context, added to the tree.
    void add_envelope(Json& params, const session::RequestMeta& meta, jsonrpc::RequestSettings& settings);
    // Whether a modern request's envelope (or progress token) goes into its params tree, changing
    // them, instead of the kept text beside them: trace context to send, a progress token to
    // attach, or a `_meta` of the params' own to merge with.
    static bool envelope_goes_into_params(const JsonValue& params, bool trace_context, bool progress);
    // The modern listen stream (guarded by listen_mutex_). One at a time; a new generation makes
    // every callback of an older stream stale.
    mutable std::mutex listen_mutex_;
    std::int64_t listen_id_ = -1;
    std::uint64_t listen_generation_ = 0;
    bool listen_acked_ = false;
    bool listen_was_lost_ = false;  // the next acknowledgment follows a loss: refresh the lists
    int listen_failures_ = 0;
    std::string listen_state_ = "none";
    session::ListenFilter listen_asked_;
    session::ListenFilter listen_granted_;
    std::set<std::string> resource_subscriptions_;
    mutable std::mutex log_level_mutex_;
    std::string log_level_;  // modern era: sent in every request's _meta

    mutable std::mutex state_mutex_;  // guards the fields below
    std::string last_error_;
    std::vector<Tool> tools_;
    std::shared_ptr<std::atomic<std::uint64_t>> tools_generation_;  // bumped after each write of tools_
    std::vector<Resource> resources_;
    std::vector<Prompt> prompts_;
    OutputSchemaCache output_schemas_;
    std::unordered_map<std::string, std::vector<session::ParamHeader>> param_headers_;  // tool → x-mcp-header params
    std::vector<std::pair<std::string, std::string>> set_aside_tools_;              // tool, why

    // One per list kind (tools, resources, prompts): list_changed floods coalesce here.
    session::ListRefreshGate refresh_gates_[3];
    std::mutex roots_mutex_;  // guards the two counters; roots_cv_ signals an answer
    std::condition_variable roots_cv_;
    std::uint64_t roots_asked_ = 0;
    std::uint64_t roots_answered_ = 0;
    // Answers what servers ask (both eras), under the session's prompt rate limit.
    session::ClientRequestRouter client_requests_;
};

}  // namespace mcph::detail
