// Sub-agent overlays (seed 000 §18.11): a sub-agent's servers are added on top of the parent's.
// A string reference reuses the parent's connection (shared; the overlay never closes it); an
// inline definition opens a connection the overlay owns and closes when it ends. Under a
// plugin-only policy, agents defined by users or projects may not bring inline servers; plugin,
// built-in and policy agents may (their definitions were approved with the plugin or policy).
//
// Named agents (docs/agents.md) come from agent files and the embedder's built-in set
// (extensions/agent_catalog.hpp); open_overlay(name) refuses an unapproved project agent before
// anything starts, then opens its servers as above.
#include "config/config_roots.hpp"
#include "config/env_expansion.hpp"
#include "extensions/agent_catalog.hpp"
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

bool may_bring_inline_servers(AgentSource source, const governance::PolicySettings& policy) {
    if (!policy.plugin_only_agents) return true;
    return source == AgentSource::BuiltIn || source == AgentSource::Plugin || source == AgentSource::Policy;
}

// An inline server's "roots" follow the rules of a server entry's (config_roots.hpp, reused): a
// relative entry is taken from the agent file's folder (from the project root for an agent given
// through the API), every entry must resolve to a directory, and a project agent file's must stay
// inside the repository — anyone who can commit writes that file.
config::ServerConfig parse_inline(const OverlayServer& server, const OverlaySpec& spec, const config::ConfigLocations& locations) {
    Json entry = parse_json(server.config_json, "inline server config");
    if (entry.IsObject()) config::expand_server_entry(entry, entry.GetAllocator(), server.name, config::lookup_process_environment);
    config::ServerConfig out = config::parse_server_config(server.name, entry);
    if (out.written_roots) {
        const std::filesystem::path file(spec.origin);
        const std::filesystem::path base = file.is_absolute() ? file.parent_path() : locations.project_root;
        const std::filesystem::path confined_to = spec.source == AgentSource::Project ? locations.project_root : std::filesystem::path();
        out.roots = config::resolve_roots(*out.written_roots, base, confined_to, config::lookup_process_environment,
                                          "server '" + server.name + "': ");
    }
    return out;
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
    const std::string who = "agent '" + spec.agent + "' (" + agent_source_name(spec.source) +
                            (spec.origin.empty() ? std::string() : ", defined in " + spec.origin) + ")";
    std::vector<config::ConfiguredServer> inline_servers;
    for (const auto& s : spec.servers) {
        if (!s.reference.empty()) {
            try {
                overlay->referenced.push_back(impl_->connection_of(s.reference));
            } catch (const Error& e) {  // say whose reference it is: the agent file is what to fix
                throw Error(e.kind(), who + " references a server of the parent: " + e.what());
            }
            continue;
        }
        if (!may_bring_inline_servers(spec.source, policy))
            throw Error(ErrorKind::Usage, who + " may not define its own MCP server '" + s.name +
                                              "': the managed policy allows inline servers only for plugin, built-in "
                                              "and policy agents (pluginOnlyMcpServers in " +
                                              impl_->locations.managed_settings_file().string() + ")");
        if (s.name.empty() || !names.insert(s.name).second)
            throw Error(ErrorKind::Usage, who + ": inline server name '" + s.name + "' is empty or already in use");
        config::ServerConfig parsed;
        try {
            parsed = parse_inline(s, spec, impl_->locations);
        } catch (const Error& e) {  // a bad config or a missing ${VAR}: the agent's file is what to fix
            throw Error(ErrorKind::Usage, who + ": inline server '" + s.name + "': " + e.what());
        }
        config::ConfiguredServer server{std::move(parsed), config::Scope::Dynamic, "agent " + spec.agent, "", "", s.config_json, {}};
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
        if (tool.mapped_name != mapped_name && tool.server + "/" + tool.name != mapped_name) continue;
        auto s = session(tool.server);
        if (!s) break;
        return s->call_tool(tool.name, arguments, options);
    }
    throw Error(ErrorKind::NotFound, "agent '" + impl_->agent + "' has no connected tool named '" + mapped_name + "'");
}

const char* agent_source_name(AgentSource source) {
    switch (source) {
        case AgentSource::BuiltIn: return "built-in";
        case AgentSource::Plugin: return "plugin";
        case AgentSource::Policy: return "policy";
        case AgentSource::User: return "user";
        case AgentSource::Project: return "project";
    }
    return "?";
}

// ---- named agents ---------------------------------------------------------------------------------

namespace {

// The embedder's built-in agents, copied under the host's lock (Host::Impl is private to Host:
// the caller passes its members).
std::vector<AgentDefinition> builtins_of(std::mutex& mutex, const std::map<std::string, AgentDefinition>& builtin) {
    std::lock_guard lock(mutex);
    std::vector<AgentDefinition> out;
    for (const auto& [name, agent] : builtin) out.push_back(agent);
    return out;
}

AgentDefinition find_agent(const AgentCatalog& catalog, const std::string& name) {
    for (const AgentDefinition& agent : catalog.agents)
        if (agent.name == name) return agent;
    std::string known;
    for (const AgentDefinition& agent : catalog.agents) known += (known.empty() ? "" : ", ") + agent.name;
    std::string message = "no agent named '" + name + "' (agents: " + (known.empty() ? "none" : known) + ")";
    for (const AgentProblem& p : catalog.problems) message += "; not loaded: " + p.message;
    throw Error(ErrorKind::NotFound, message);
}

}  // namespace

AgentCatalog Host::agents() const {
    std::vector<extensions::AgentFolder> folders;
    if (impl_->options.load_layered_config) folders = extensions::agent_folders(impl_->locations);
    return extensions::load_agent_catalog(folders, builtins_of(impl_->mutex, impl_->builtin_agents), &impl_->approvals,
                                          impl_->locations.project_root.string());
}

void Host::register_agent(AgentDefinition agent) {
    if (!extensions::valid_agent_name(agent.name))
        throw Error(ErrorKind::Usage, "agent name '" + agent.name + "' is not a name (1 to 64 of A-Z a-z 0-9 . _ -)");
    agent.source = AgentSource::BuiltIn;
    agent.origin = "api";
    agent.plugin_source.clear();
    agent.approved = true;
    agent.unapproved_reason.clear();
    std::lock_guard lock(impl_->mutex);
    impl_->builtin_agents[agent.name] = std::move(agent);
}

std::unique_ptr<Overlay> Host::open_overlay(const std::string& agent_name) {
    const AgentDefinition agent = find_agent(agents(), agent_name);
    if (!agent.approved)
        throw Error(ErrorKind::Usage, "agent '" + agent.name + "' (project, defined in " + agent.origin + ") is not used: " +
                                          agent.unapproved_reason);
    OverlaySpec spec;
    spec.agent = agent.name;
    spec.source = agent.source;
    spec.servers = agent.servers;
    spec.origin = agent.origin;
    return open_overlay(spec);
}

void Host::approve_agent(const std::string& agent_name) {
    const AgentDefinition agent = find_agent(agents(), agent_name);
    if (agent.source != AgentSource::Project)
        throw Error(ErrorKind::Usage, "agent '" + agent.name + "' is a " + agent_source_name(agent.source) + " agent (" + agent.origin +
                                          "): only project agent files need approval");
    // The bytes approved are the bytes read now, checked to still define this agent: a file
    // changed since agents() was read is approved as it is, never as it was.
    extensions::AgentFolder folder;
    folder.source = AgentSource::Project;
    folder.rule = config::TrustRule{config::Owner::CurrentUser, true};
    folder.confined_to = impl_->locations.project_root;
    const std::string text = extensions::read_agent_file(agent.origin, folder);
    const auto parsed = extensions::parse_agent_file(text, agent.origin);
    if (!parsed.agent) throw Error(ErrorKind::Usage, parsed.error);
    if (parsed.agent->name != agent.name)
        throw Error(ErrorKind::Usage, agent.origin + " now defines agent '" + parsed.agent->name + "', not '" + agent.name + "'");
    config::Approval approval;
    approval.key = config::agent_file_approval_key(agent.origin, impl_->locations.project_root.string(), agent.name);
    approval.signature = config::agent_file_signature(text);
    impl_->approvals.save(approval);
}

}  // namespace mcph
