// Sub-agent overlays (seed 000 §18.11): a sub-agent's servers are added on top of the parent's.
// A string reference reuses the parent's connection (shared; the overlay never closes it); an
// inline definition opens a connection the overlay owns and closes when it ends. Under a
// plugin-only policy, agents defined by users or projects may not bring inline servers; plugin,
// built-in and policy agents may (their definitions were approved with the plugin or policy).
#include "config/env_expansion.hpp"
#include "governance/policy.hpp"
#include "host/host_impl.hpp"
#include "session/client_session_access.hpp"

#include <set>

namespace mcph {

struct MCPH_LOCAL Overlay::Impl {
    Host::Impl* host = nullptr;
    std::string agent;
    std::vector<std::shared_ptr<connection::ServerConnection>> referenced;
    std::vector<std::shared_ptr<connection::ServerConnection>> owned;

    std::vector<std::shared_ptr<connection::ServerConnection>> all() const {
        auto out = referenced;
        out.insert(out.end(), owned.begin(), owned.end());
        return out;
    }
};

namespace {

const char* source_name(AgentSource source) {
    switch (source) {
        case AgentSource::BuiltIn: return "built-in";
        case AgentSource::Plugin: return "plugin";
        case AgentSource::Policy: return "policy";
        case AgentSource::User: return "user";
        case AgentSource::Project: return "project";
    }
    return "?";
}

bool may_bring_inline_servers(AgentSource source, const governance::PolicySettings& policy) {
    if (!policy.plugin_only_agents) return true;
    return source == AgentSource::BuiltIn || source == AgentSource::Plugin || source == AgentSource::Policy;
}

config::ServerConfig parse_inline(const OverlayServer& server) {
    Json entry = parse_json(server.config_json, "inline server config");
    if (entry.IsObject()) config::expand_server_entry(entry, entry.GetAllocator(), server.name, config::lookup_process_environment);
    return config::parse_server_config(server.name, entry);
}

}  // namespace

std::unique_ptr<Overlay> Host::open_overlay(const OverlaySpec& spec) {
    auto overlay = std::make_unique<Overlay::Impl>();
    overlay->host = impl_.get();
    overlay->agent = spec.agent;
    governance::PolicySettings policy;
    std::set<std::string> names;
    {
        std::lock_guard lock(impl_->mutex);
        policy = impl_->policy;
        for (const auto& [name, server] : impl_->every_server) names.insert(name);
    }
    const std::string who = "agent '" + spec.agent + "' (" + source_name(spec.source) + ")";
    std::vector<config::ConfiguredServer> inline_servers;
    for (const auto& s : spec.servers) {
        if (!s.reference.empty()) {
            overlay->referenced.push_back(impl_->connection_of(s.reference));
            continue;
        }
        if (!may_bring_inline_servers(spec.source, policy))
            throw Error(ErrorKind::Usage, who + " may not define its own MCP server '" + s.name +
                                              "': the managed policy allows inline servers only for plugin, built-in "
                                              "and policy agents (pluginOnlyMcpServers)");
        if (s.name.empty() || !names.insert(s.name).second)
            throw Error(ErrorKind::Usage, who + ": inline server name '" + s.name + "' is empty or already in use");
        config::ConfiguredServer server{parse_inline(s), config::Scope::Dynamic, "agent " + spec.agent, "", "", s.config_json, {}};
        auto decision = governance::check_server_allowed(server.config, policy);
        if (!decision.allowed)
            throw Error(ErrorKind::Usage, who + ": server '" + s.name + "' is denied by policy: " + decision.reason);
        inline_servers.push_back(std::move(server));
    }
    for (const auto& connection : overlay->referenced) {
        try {
            connection->connect();  // shared with the parent: connected once, reused by everyone
        } catch (const Error& e) {
            impl_->options.logger(LogLevel::Warn, connection->name(), std::string("for ") + who + ": " + e.what());
        }
    }
    for (const auto& server : inline_servers) {
        auto connection = impl_->make_connection(server);
        overlay->owned.push_back(connection);
        try {
            connection->connect();
        } catch (const Error& e) {
            impl_->options.logger(LogLevel::Warn, server.config.name, std::string("for ") + who + ": " + e.what());
        }
    }
    return std::unique_ptr<Overlay>(new Overlay(std::move(overlay)));  // the constructor is private
}

Overlay::Overlay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Overlay::~Overlay() {
    for (auto& connection : impl_->owned) connection->shutdown();  // only what the overlay opened
}

std::vector<std::string> Overlay::server_names() const {
    std::vector<std::string> out;
    for (const auto& c : impl_->all()) out.push_back(c->name());
    return out;
}

std::vector<std::string> Overlay::owned_servers() const {
    std::vector<std::string> out;
    for (const auto& c : impl_->owned) out.push_back(c->name());
    return out;
}

std::shared_ptr<ClientSession> Overlay::session(const std::string& name) const {
    for (const auto& c : impl_->all())
        if (c->name() == name)
            if (auto core = c->live_core()) return mcph::detail::make_client_session(core);
    return nullptr;
}

std::vector<Tool> Overlay::tools() const { return impl_->host->mapped_tools(impl_->all()); }

CallToolResult Overlay::call_tool(const std::string& mapped_name, const JsonValue& arguments, const RequestOptions& options) {
    for (const Tool& tool : tools()) {
        if (tool.mapped_name != mapped_name) continue;
        auto s = session(tool.server);
        if (!s) break;
        return s->call_tool(tool.name, arguments, options);
    }
    throw Error(ErrorKind::NotFound, "agent '" + impl_->agent + "' has no connected tool named '" + mapped_name + "'");
}

}  // namespace mcph
