// ServerConnection — one configured server's connection over time: the state machine of seed 000
// §18.3 (pending → connected | failed | needs-auth; connected → pending; disabled until the user
// enables it) and the reconnection of §18.8, improved:
//   - stdio servers are respawned too; a crash-loop guard (the attempt counter only resets after
//     the connection stayed up `stable_after`) ends a server that dies right after each connect;
//   - terminal transport failures (typed: terminal_errors.hpp) are counted (3 in a row reconnect)
//     and also kept in a sliding window that triggers a `ping` probe, so alternating errors cannot
//     hide a dead server;
//   - on loss every pending call fails at once and the cached lists are cleared (SessionCore);
//     after reconnecting they are fetched afresh.
// The SessionCore is kept across reconnects, so a ClientSession handed out earlier keeps working.
#pragma once

#include "config/config_source.hpp"
#include "connection/connection_health.hpp"
#include "connection/reconnect_policy.hpp"
#include "runtime/runtime.hpp"
#include "session/session_core.hpp"

#include <mcph/connection_state.hpp>
#include <mcph/host.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::connection {

struct SessionHooks {
    std::function<void(const std::string& reason)> on_disconnected;
    // A typed, non-fatal transport failure while connected (SessionSettings::on_transport_problem).
    std::function<void(const transport::Failure& failure)> on_transport_problem;
};

struct ConnectionDeps {
    std::shared_ptr<runtime::Runtime> runtime;
    // Builds the session for a config (throws Error, e.g. no plugin serves its type).
    std::function<std::shared_ptr<detail::SessionCore>(const config::ServerConfig&, SessionHooks)> make_session;
    ReconnectPolicy policy;
    bool reachability_check = true;
    std::chrono::milliseconds reachability_timeout{5000};
    std::chrono::milliseconds probe_timeout{5000};  // the ping that decides whether a noisy link is dead
    std::function<void(LogLevel, std::string_view, std::string_view)> log;
    std::function<void(const std::string& server, const ConnectionState&)> on_state_change;
};

class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
public:
    ServerConnection(config::ConfiguredServer server, ConnectionDeps deps);
    ~ServerConnection();

    const config::ConfiguredServer& server() const { return server_; }
    const std::string& name() const { return server_.config.name; }
    // The transport type in use ("sse" after an http "mode":"auto" fallback).
    std::string transport_type() const;

    // Connects now (blocking) unless connected. Throws Error; the state says what happened.
    std::shared_ptr<detail::SessionCore> connect();
    // The user's reconnect: a fresh attempt budget, from any state but disabled.
    std::shared_ptr<detail::SessionCore> reconnect_now();
    void disable(const std::string& reason);
    void enable();  // → pending (attempt 0); the caller connects
    // No more reconnects; closes the session. Idempotent.
    void shutdown();

    ConnectionState state() const;
    std::shared_ptr<detail::SessionCore> live_core() const;  // null unless connected
    std::vector<std::string> stderr_tail() const;

private:
    void set_state(ConnectionState next);
    std::shared_ptr<detail::SessionCore> connect_locked();
    void connect_once();
    void mark_connected();
    bool reachability_applies() const;
    void connect_diagnosed(const std::shared_ptr<detail::SessionCore>& core);
    Error unreachable(const std::string& problem) const;
    void on_lost(const std::string& reason);
    // Counts a lost connection (`lost`) or a failed attempt and schedules the next one or gives up.
    void after_failed_attempt(const std::string& error, bool needs_auth, bool lost);
    void schedule_attempt(std::chrono::milliseconds delay);
    void run_attempt(std::uint64_t epoch);
    void on_transport_problem(const transport::Failure& failure);
    void probe_liveness();
    void drop_and_reconnect(const std::string& why);
    void remember_error(const std::string& error);
    int max_attempts() const { return deps_.policy.max_attempts; }

    config::ConfiguredServer server_;
    ConnectionDeps deps_;
    config::ServerConfig effective_;  // after an auto fallback to legacy SSE

    mutable std::mutex mutex_;  // guards everything below except connect_mutex_
    std::mutex connect_mutex_;  // one connect attempt at a time (user and background)
    ConnectionState state_;
    std::shared_ptr<detail::SessionCore> core_;
    CrashLoopGuard attempts_;  // reconnect attempts spent since the last stable connection
    std::uint64_t epoch_ = 0;  // bumped to cancel a scheduled attempt
    bool shut_down_ = false;
    ConnectionHealth health_;
    bool probing_ = false;
    std::vector<std::string> stderr_tail_;
};

}  // namespace mcph::connection
