// Connecting servers: one at a time on request, or all of them in batches (seed 000 §18.10);
// the user's reconnect / enable / disable; the state of each.
#include "config/config_editor.hpp"
#include "connection/batch_runner.hpp"
#include "host/host_impl.hpp"
#include "session/client_session_access.hpp"

#include <thread>

namespace mcph {
namespace {

bool is_local(const config::ServerConfig& config) { return config.type == "stdio" || config.type == "sdk"; }

std::string error_of(const ConnectionState& state) {
    if (auto* f = std::get_if<state::Failed>(&state)) return f->error;
    if (auto* n = std::get_if<state::NeedsAuth>(&state)) return n->reason;
    if (auto* p = std::get_if<state::Pending>(&state)) return p->last_error;
    return {};
}

}  // namespace

std::shared_ptr<ClientSession> Host::connect(const std::string& name) {
    auto core = impl_->connection_of(name)->connect();
    return mcph::detail::make_client_session(core);
}

void Host::connect_all() {
    std::vector<std::function<void()>> local, remote;
    for (const auto& name : server_names()) {
        auto connection = impl_->connection_of(name);
        if (std::holds_alternative<state::Disabled>(connection->state()) || connection->live_core()) continue;
        auto task = [connection] {
            try {
                connection->connect();
            } catch (const Error&) {
                // recorded in the connection's state
            }
        };
        (is_local(connection->server().config) ? local : remote).push_back(std::move(task));
    }
    auto sizes = connection::BatchSizes::from_environment();
    if (impl_->options.local_connect_batch) sizes.local = *impl_->options.local_connect_batch;
    if (impl_->options.remote_connect_batch) sizes.remote = *impl_->options.remote_connect_batch;
    // Local and remote servers load different resources (processes vs sockets): the two kinds run
    // side by side, each in its own sequence of batches.
    std::thread remote_lane([&] { connection::run_in_batches(std::move(remote), sizes.remote); });
    connection::run_in_batches(std::move(local), sizes.local);
    remote_lane.join();
}

std::shared_ptr<ClientSession> Host::reconnect(const std::string& name) {
    return mcph::detail::make_client_session(impl_->connection_of(name)->reconnect_now());
}

void Host::disconnect(const std::string& name) {
    std::shared_ptr<connection::ServerConnection> connection;
    {
        std::lock_guard lock(impl_->mutex);
        auto it = impl_->connections.find(name);
        if (it == impl_->connections.end()) return;
        connection = it->second;
        // A fresh connection object: the old one is shut down, its session closed on purpose.
        it->second = impl_->make_connection(connection->server());
        impl_->review_inputs_changed();
    }
    connection->shutdown();
}

void Host::disable(const std::string& name) {
    auto server = impl_->configured(name);
    if (impl_->options.load_layered_config)
        config::set_server_disabled(impl_->locations.local_settings_file(), name, true);
    std::shared_ptr<connection::ServerConnection> connection;
    {
        std::lock_guard lock(impl_->mutex);
        if (auto it = impl_->connections.find(name); it != impl_->connections.end()) connection = it->second;
    }
    if (connection) connection->disable("disabled by the user");
}

void Host::enable(const std::string& name) {
    impl_->configured(name);  // NotFound for an unknown name
    if (impl_->options.load_layered_config) {
        config::set_server_disabled(impl_->locations.local_settings_file(), name, false);
        impl_->load_servers();  // a "disabled": true definition is now overridden
    }
    impl_->connection_of(name)->enable();
}

ConnectionState Host::state(const std::string& name) const { return impl_->connection_of(name)->state(); }

std::vector<ServerStatus> Host::status() const {
    std::vector<std::shared_ptr<connection::ServerConnection>> connections;
    {
        std::lock_guard lock(impl_->mutex);
        for (const auto& name : impl_->order) connections.push_back(impl_->connections.at(name));
    }
    const auto review = impl_->tool_review();
    std::vector<ServerStatus> out;
    for (const auto& connection : connections) {
        const auto& server = connection->server();
        ServerStatus s;
        s.name = connection->name();
        s.type = connection->transport_type();
        s.connection = connection->state();
        s.state = std::string(state_name(s.connection));
        s.error = error_of(s.connection);
        s.scope = std::string(config::scope_name(server.scope));
        s.origin = server.origin;
        s.plugin_source = server.plugin_source;
        s.stderr_tail = connection->stderr_tail();
        if (auto core = connection->live_core()) {
            if (auto it = review->servers.find(s.name); it != review->servers.end()) s.withheld_tools = it->second.withheld;
            s.unapproved_changes = impl_->unapproved_changes(s.name, *core);
        }
        out.push_back(std::move(s));
    }
    return out;
}

ConfigReport Host::config_report() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->report;
}

void Host::reload_config() { impl_->load_servers(); }

}  // namespace mcph
