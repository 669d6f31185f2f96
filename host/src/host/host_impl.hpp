// Host::Impl — the state behind mcph::Host, shared by the host/*.cpp files:
//   host.cpp              construction, plugins, adding configs, sessions and tools
//   server_table.cpp      from the layered config to the set of servers to connect (dedup, policy,
//                         approvals) and the report of those left out
//   host_connections.cpp  connecting (batched), reconnect, enable/disable
//   host_config_writes.cpp  mcph add/remove/approve: config files and approvals on disk
//   overlay.cpp           sub-agent overlays
//   status_json.cpp       the "/mcp" status view
//   tool_review.cpp       the rug-pull guard over tools (scan, pins, withhold policy), one snapshot
//                         per change of its inputs (tool_review.hpp)
#pragma once

#include "config/approval_store.hpp"
#include "config/config_locations.hpp"
#include "config/kept_inputs.hpp"
#include "config/layered_config.hpp"
#include "config/server_config.hpp"
#include "connection/reconnect_policy.hpp"
#include "connection/server_connection.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "runtime/runtime.hpp"
#include "secrets/lazy_secret_store.hpp"
#include "session/response_cache.hpp"
#include "session/session_core.hpp"
#include "host/tool_review.hpp"

#include <mcph/host.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcph {


// MCPH_LOCAL: a member of the exported Host, but none of its functions is API.
struct MCPH_LOCAL Host::Impl {
    HostOptions options;
    std::shared_ptr<runtime::Runtime> runtime = std::make_shared<runtime::Runtime>();
    std::shared_ptr<plugins::SecretStore> secrets;  // == secret_store
    // Chosen on first use (secrets/lazy_secret_store.hpp); status asks it which store, and why.
    std::shared_ptr<secrets::LazySecretStore> secret_store;
    std::shared_ptr<plugins::HostServices> services;
    mutable plugins::PluginRegistry registry;  // loads plugins on first need, from const paths too
    config::ConfigLocations locations;
    config::ApprovalStore approvals;
    connection::ReconnectPolicy reconnect_policy;

    mutable std::mutex mutex;  // guards the members below; never held across connect or I/O
    std::vector<config::DynamicConfig> dynamic;  // the API's and --mcp-config's documents, in order
    std::map<std::string, std::shared_ptr<InProcessServer>> sdk_servers;
    std::map<std::string, AgentDefinition> builtin_agents;  // Host::register_agent (overlay.cpp)
    std::map<std::string, std::shared_ptr<auth::AuthSession>> auth_sessions;  // survive reconnects
    // The current server table (rebuilt by load_servers).
    std::vector<std::string> order;  // connectable servers, in definition order
    std::map<std::string, std::shared_ptr<connection::ServerConnection>> connections;
    std::map<std::string, config::ConfiguredServer> every_server;  // incl. those left out, for approve
    // What each approved server showed at approval (rug-pull guard); no entry: never approved.
    std::map<std::string, config::Pins> pins;
    ConfigReport report;
    governance::PolicySettings policy;

    explicit Impl(HostOptions opts);
    // Sets up the secret store, chosen on its first use (secrets/store_selection.hpp), which
    // logs why when it fell back; points secret_lock at the chosen store's lock folder.
    void choose_secret_store(plugins::HostServiceBindings& bindings);
    // Answers ${input:id} for the loader (server_table.cpp), from the kept answers when it can.
    config::InputResolver input_resolver();
    config::KeptInputs kept_inputs() const;  // over this host's secret store
    ~Impl() { shutdown(); }
    void shutdown();

    // Re-reads the configuration and rebuilds the server table (server_table.cpp).
    void load_servers();
    // Where the approval of this definition is stored: scope, file, project, name.
    config::ApprovalKey approval_key(const config::ConfiguredServer& server) const;

    std::shared_ptr<connection::ServerConnection> connection_of(const std::string& name) const;
    config::ConfiguredServer configured(const std::string& name) const;  // throws NotFound
    bool every_server_has(const std::string& name) const;               // configured, connectable or not
    std::shared_ptr<plugins::LoadedPlugin> plugin_for(const config::ServerConfig& config) const;
    detail::TransportFactory transport_factory(const config::ServerConfig& config);
    // The server's auth session (created on first use), or null when its config names no backend.
    std::shared_ptr<auth::AuthSession> auth_for(const config::ServerConfig& config);
    std::string disconnected_owner(const std::string& mapped_name) const;
    std::shared_ptr<detail::SessionCore> make_session(const config::ServerConfig& config, connection::SessionHooks hooks);
    std::shared_ptr<connection::ServerConnection> make_connection(const config::ConfiguredServer& server);
    void on_state_change(const std::string& name, const ConnectionState& state);

    // The rug-pull guard (tool_review.cpp): the review of every live server's tools, rebuilt only
    // when an input changed (see tool_review.hpp). Never null. Thread-safe; no lock held while
    // it builds.
    std::shared_ptr<const ToolReviewSnapshot> tool_review() const;
    std::string withheld_owner(const std::string& mapped_name) const;
    // Instructions, prompts and resources of a live server that differ from its approval (host.cpp).
    std::vector<UnapprovedChange> unapproved_changes(const std::string& name, const detail::SessionCore& core) const;
    // Everything the live server shows now, as an approval would pin it (host.cpp).
    static config::Pins pins_of(const detail::SessionCore& core);
    // Tools of these connections under mapped names, collisions withheld, reviewed afresh with
    // the host's servers as cross-server context (a sub-agent overlay's own set; tool_review.cpp).
    std::vector<Tool> mapped_tools(const std::vector<std::shared_ptr<connection::ServerConnection>>& live) const;
    // Marks the tool review out of date: pins, the withhold policy or the server table changed.
    // Call with `mutex` held, in the same critical section as the change.
    void review_inputs_changed() { review_generation->fetch_add(1, std::memory_order_acq_rel); }

    struct ReviewInputs;  // what a review reads (tool_review.cpp)

private:
    ReviewInputs review_inputs(const std::vector<std::shared_ptr<connection::ServerConnection>>& servers) const;
    bool review_is_current(const ToolReviewSnapshot& snapshot) const;
    std::shared_ptr<const ToolReviewSnapshot> build_tool_review() const;
    mutable std::mutex review_mutex;  // guards review_cache only: held for a pointer copy, never for a build
    mutable std::shared_ptr<const ToolReviewSnapshot> review_cache;
    // Moves whenever an input of the tool review changes: every session's tool list (each session
    // bumps it, SessionSettings::tools_generation), a server going live or not (on_state_change),
    // pins, policy and the server table (review_inputs_changed).
    const std::shared_ptr<std::atomic<std::uint64_t>> review_generation = std::make_shared<std::atomic<std::uint64_t>>(0);
    // One response cache for every server of this host (its bounds are host-wide).
    const std::shared_ptr<session::ResponseCache> response_cache = std::make_shared<session::ResponseCache>();
};

}  // namespace mcph
