// Host::Impl — the state behind mcph::Host, shared by host.cpp and status_json.cpp.
#pragma once

#include "config/server_config.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "runtime/runtime.hpp"
#include "session/session_core.hpp"

#include <mcph/host.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcph {

struct Host::Impl {
    HostOptions options;
    std::shared_ptr<runtime::Runtime> runtime = std::make_shared<runtime::Runtime>();
    std::shared_ptr<plugins::SecretStore> secrets;
    std::shared_ptr<plugins::HostServices> services;
    plugins::PluginRegistry registry;

    mutable std::mutex mutex;  // guards the maps below; never held across connect or I/O
    std::vector<std::string> order;  // server names in definition order
    std::map<std::string, config::ServerConfig> configs;
    std::map<std::string, std::shared_ptr<detail::SessionCore>> sessions;
    std::map<std::string, ServerStatus> statuses;
    std::map<std::string, std::shared_ptr<InProcessServer>> sdk_servers;
    std::map<std::string, std::shared_ptr<auth::AuthSession>> auth_sessions;  // survive reconnects

    explicit Impl(HostOptions opts);
    ~Impl() { shutdown(); }
    void shutdown();
    void set_status(const std::string& name, const std::string& state, const std::string& error);
    config::ServerConfig config_of(const std::string& name) const;
    std::shared_ptr<plugins::LoadedPlugin> plugin_for(const config::ServerConfig& config) const;
    detail::TransportFactory transport_factory(const config::ServerConfig& config);
    // The server's auth session (created on first use), or null when its config names no backend.
    std::shared_ptr<auth::AuthSession> auth_for(const config::ServerConfig& config);
    std::string disconnected_owner(const std::string& mapped_name) const;
    std::shared_ptr<detail::SessionCore> make_session(const config::ServerConfig& config);
};

}  // namespace mcph
