#include "config/env_expansion.hpp"
#include "config/env_file.hpp"
#include "config/headers_helper.hpp"
#include "extensions/enterprise_auth.hpp"
#include "extensions/skills.hpp"
#include "extensions/tasks.hpp"
#include "host/host_impl.hpp"
#include "secrets/file_secret_store.hpp"
#include "secrets/store_selection.hpp"
#include "session/connect_budget.hpp"
#include "transport/in_process_transport.hpp"
#include "json/json_access.hpp"
#include "governance/tool_pins.hpp"
#include "tools/name_mapping.hpp"
#include "session/client_session_access.hpp"

#include <mcph/host.hpp>
#include <mcph/text.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>

namespace mcph {
namespace {

const char* level_name(LogLevel level) {
    switch (level) {
        case LogLevel::Debug: return "debug";
        case LogLevel::Info: return "info";
        case LogLevel::Warn: return "warn";
        case LogLevel::Error: return "error";
    }
    return "?";
}

// Default sink: stderr, Warn and above unless MCPH_LOG_LEVEL says otherwise.
std::function<void(LogLevel, std::string_view, std::string_view)> default_logger() {
    LogLevel threshold = LogLevel::Warn;
    if (const char* env = std::getenv("MCPH_LOG_LEVEL")) {
        std::string v = env;
        if (v == "debug" || v == "trace") threshold = LogLevel::Debug;  // trace: debug lines and the wire trace (the CLI's)
        else if (v == "info") threshold = LogLevel::Info;
        else if (v == "error") threshold = LogLevel::Error;
    }
    auto mutex = std::make_shared<std::mutex>();
    return [threshold, mutex](LogLevel level, std::string_view source, std::string_view message) {
        if (level < threshold) return;
        std::lock_guard lock(*mutex);
        // Messages carry what servers said (stderr lines, log data, error texts): escaped.
        std::cerr << "mcph: [" << level_name(level) << "] " << terminal_safe(source, LineBreaks::Escape) << ": "
                  << terminal_safe(message) << std::endl;
    };
}

}  // namespace

namespace {

config::ConfigLocations locations_for(const HostOptions& options) {
    auto locations = config::ConfigLocations::from_environment(options.cwd.empty() ? std::filesystem::current_path() : options.cwd);
    locations.plugin_dirs = plugins::plugin_search_path(options);
    return locations;
}

connection::ReconnectPolicy reconnect_policy_for(const HostOptions& options) {
    if (!options.reconnect) return connection::ReconnectPolicy::from_environment();
    connection::ReconnectPolicy policy;
    policy.max_attempts = options.reconnect->max_attempts;
    policy.initial_backoff = options.reconnect->initial_backoff;
    policy.max_backoff = options.reconnect->max_backoff;
    policy.stable_after = options.reconnect->stable_after;
    return policy;
}

secrets::StoreChoice store_choice_for(const HostOptions& options) {
    using S = HostOptions::SecretStorage;
    using C = secrets::StoreChoice;
    switch (options.secret_storage) {
    case S::File: return C::File;
    case S::Keyring: return C::Keyring;
    case S::Memory: return C::Memory;
    case S::Auto: break;
    }
    return secrets::choice_from_environment(C::Auto, config::lookup_process_environment);
}

}  // namespace

void Host::Impl::choose_secret_store(plugins::HostServiceBindings& bindings) {
    const auto file = options.credentials_file.empty() ? secrets::default_credentials_path() : options.credentials_file;
    // Read now, so that a bad $MCPH_SECRET_STORE fails the Host's construction (Usage) as before;
    // the choice itself, which may probe the keyring, waits for the first use.
    const secrets::StoreChoice choice = store_choice_for(options);
    auto choose = [choice, file] { return secrets::select_secret_store(choice, file); };
    // One line, once per host: where tokens go and, when the keyring was passed over, why.
    auto tell = [logger = options.logger](const secrets::SelectedStore& chosen) {
        if (chosen.fell_back && logger)
            logger(chosen.keyring_expected ? LogLevel::Warn : LogLevel::Info, "secrets", "storing credentials in " + chosen.detail);
    };
    secret_store = std::make_shared<secrets::LazySecretStore>(std::move(choose), std::move(tell));
    secrets = secret_store;
    bindings.secret_lock_folder = [store = secret_store] { return store->chosen().lock_folder; };
}

Host::Impl::Impl(HostOptions opts)
    : options(std::move(opts)),
      locations(locations_for(options)),
      approvals(locations.approvals_file()),
      reconnect_policy(reconnect_policy_for(options)) {
    if (!options.logger) options.logger = default_logger();
    plugins::HostServiceBindings bindings;
    choose_secret_store(bindings);
    bindings.log = options.logger;
    bindings.open_url = options.open_url;
    bindings.post = [rt = std::weak_ptr<runtime::Runtime>(runtime)](std::function<void()> fn) {
        if (auto r = rt.lock()) r->post(std::move(fn));
    };
    bindings.secrets = secrets;
    services = std::make_shared<plugins::HostServices>(std::move(bindings));
    registry.discover(locations.plugin_dirs, services->table());  // plugin_search_path(options), computed once
}

void Host::Impl::shutdown() {
    std::map<std::string, std::shared_ptr<connection::ServerConnection>> closing;
    {
        std::lock_guard lock(mutex);
        closing.swap(connections);
    }
    for (auto& [name, connection] : closing) connection->shutdown();
    closing.clear();
    std::map<std::string, std::shared_ptr<auth::AuthSession>> auths;
    {
        std::lock_guard lock(mutex);
        auths.swap(auth_sessions);
    }
    auths.clear();
    runtime->stop();
    registry.clear();  // plugins unload once the last object they created is gone
}

std::shared_ptr<connection::ServerConnection> Host::Impl::connection_of(const std::string& name) const {
    std::lock_guard lock(mutex);
    auto it = connections.find(name);
    if (it != connections.end()) return it->second;
    std::string why = "no server named '" + name + "' is configured";
    for (const auto* list : {&report.denied, &report.unapproved, &report.suppressed_duplicates, &report.problems})
        for (const auto& excluded : *list)
            if (excluded.name == name) why = "server '" + name + "' is not connectable: " + excluded.reason;
    throw Error(ErrorKind::NotFound, why);
}

bool Host::Impl::every_server_has(const std::string& name) const {
    std::lock_guard lock(mutex);
    return every_server.count(name) > 0;
}

config::ConfiguredServer Host::Impl::configured(const std::string& name) const {
    std::lock_guard lock(mutex);
    auto it = every_server.find(name);
    if (it == every_server.end()) throw Error(ErrorKind::NotFound, "no server named '" + name + "' is configured");
    return it->second;
}

std::shared_ptr<plugins::LoadedPlugin> Host::Impl::plugin_for(const config::ServerConfig& config) const {
    auto plugin = registry.transport_for(config.type);
    if (plugin) return plugin;
    if (std::string why = registry.refusal_for(config.type); !why.empty())
        throw Error(ErrorKind::Plugin, "server '" + config.name + "': the plugin for transport type '" + config.type +
                                           "' could not be loaded: " + why);
    std::string known;
    for (const auto& type : registry.transport_types()) known += (known.empty() ? "" : ", ") + type;
    throw Error(ErrorKind::Plugin, "server '" + config.name + "': no loaded plugin serves transport type '" +
                                       config.type + "' (available: " + (known.empty() ? "none" : known) +
                                       "); check --plugin-dir / MCPH_PLUGIN_PATH and run `mcph plugins`");
}

std::shared_ptr<detail::SessionCore> Host::Impl::make_session(const config::ServerConfig& config,
                                                              connection::SessionHooks hooks) {
    detail::SessionSettings settings;
    settings.server_name = config.name;
    settings.transport_type = config.type;
    settings.config_json = config.config_json;
    settings.request_timeout = config.request_timeout.value_or(options.request_timeout);
    settings.connect_timeout = options.connect_timeout;
    settings.client_info = options.client_info;
    // Extensions this host implements, declared in both eras' client capabilities.
    // Enterprise-managed authorization only for the servers this host would use it with (xaa).
    Json client_extensions = extensions::skills_client_extensions();
    auto merge = [&client_extensions](const Json& more) {
        for (const auto& m : more.GetObject())
            client_extensions.AddMember(JsonValue(m.name, client_extensions.GetAllocator()),
                                        JsonValue(m.value, client_extensions.GetAllocator()), client_extensions.GetAllocator());
    };
    merge(extensions::tasks_client_extensions());
    merge(extensions::enterprise_auth_client_extensions(config));
    settings.client_extensions_json = to_json(client_extensions);
    settings.callbacks = options.callbacks;
    // roots/list without a roots callback: the configured roots, else the host's own cwd. Fixed
    // here, before the transport starts, so the answer never waits on anything (a server such as
    // server-filesystem asks right after initialize).
    if (config.roots) {
        std::vector<Root> roots;
        for (const auto& dir : *config.roots) roots.push_back(file_root(dir));
        settings.roots = std::move(roots);
    } else if (!options.cwd.empty()) {
        std::error_code ec;
        const std::filesystem::path cwd = std::filesystem::weakly_canonical(std::filesystem::absolute(options.cwd), ec);
        if (!ec) settings.roots = std::vector<Root>{file_root(cwd)};
    }
    settings.log = options.logger;
    settings.auth = auth_for(config);
    settings.on_disconnected = std::move(hooks.on_disconnected);
    settings.on_transport_problem = std::move(hooks.on_transport_problem);
    settings.tools_generation = review_generation;
    settings.response_cache = response_cache;
    settings.wire_trace = options.wire_trace;
    return std::make_shared<detail::SessionCore>(std::move(settings), transport_factory(config), services, runtime);
}

std::shared_ptr<connection::ServerConnection> Host::Impl::make_connection(const config::ConfiguredServer& server) {
    connection::ConnectionDeps deps;
    deps.runtime = runtime;
    deps.make_session = [this](const config::ServerConfig& config, connection::SessionHooks hooks) {
        return make_session(config, std::move(hooks));
    };
    deps.policy = reconnect_policy;
    deps.reachability_check = options.reachability_check;
    deps.reachability_timeout = std::min<std::chrono::milliseconds>(options.connect_timeout, std::chrono::milliseconds(5000));
    deps.log = options.logger;
    deps.on_state_change = [this](const std::string& name, const ConnectionState& state) { on_state_change(name, state); };
    return std::make_shared<connection::ServerConnection>(server, std::move(deps));
}

// The configured but disconnected server a mapped tool name points at, so a call to a dead server
// says so instead of "no such tool". Empty when none fits.
std::string Host::Impl::disconnected_owner(const std::string& mapped_name) const {
    std::lock_guard lock(mutex);
    for (const auto& name : order) {
        auto it = connections.find(name);
        if (it != connections.end() && it->second->live_core()) continue;
        if (mapped_name.rfind("mcp__" + tools::sanitize_name_part(name) + "__", 0) == 0) return name;
    }
    return {};
}

std::shared_ptr<auth::AuthSession> Host::Impl::auth_for(const config::ServerConfig& config) {
    if (config.auth_backend.empty()) return nullptr;
    {
        std::lock_guard lock(mutex);
        if (auto it = auth_sessions.find(config.name); it != auth_sessions.end()) return it->second;
    }
    auto plugin = registry.auth_backend(config.auth_backend);
    if (!plugin)
        throw Error(ErrorKind::Plugin, "server '" + config.name + "': no loaded plugin provides auth backend '" +
                                           config.auth_backend + "' (run `mcph plugins`; add its directory with "
                                           "--plugin-dir or MCPH_PLUGIN_PATH)");
    auto session = std::make_shared<auth::AuthSession>(plugin, services, config.name, config.url,
                                                       config.auth_config_json);
    std::lock_guard lock(mutex);
    return auth_sessions.emplace(config.name, session).first->second;
}

detail::TransportFactory Host::Impl::transport_factory(const config::ServerConfig& config) {
    if (config.type == "sdk") {
        std::shared_ptr<InProcessServer> server;
        {
            std::lock_guard lock(mutex);
            if (auto it = sdk_servers.find(config.name); it != sdk_servers.end()) server = it->second;
        }
        if (!server)
            throw Error(ErrorKind::NotFound, "server '" + config.name +
                                                 "' has type \"sdk\" but the application registered no in-process "
                                                 "server under that name (Host::register_sdk_server)");
        return [server](transport::TransportListener* listener) -> std::unique_ptr<transport::Transport> {
            return std::make_unique<transport::InProcessTransport>(server, listener);
        };
    }
    auto plugin = plugin_for(config);
    // A remote plugin bounds its own connect by the host's connect timeout (stdio has no connect).
    std::string json = config.type == "stdio" ? config.config_json
                                              : session::with_connect_timeout(config.config_json, options.connect_timeout);
    // The helper runs, and the envFile is read, at every connect and reconnect — only ever for a
    // server that passed approval and policy (config/env_file.hpp).
    const bool stdio = config.type == "stdio";
    return [plugin, services = services, name = config.name, json = std::move(json), stdio,
            confined = config.env_file_confined_to](transport::TransportListener* listener) -> std::unique_ptr<transport::Transport> {
        std::string effective = config::apply_headers_helper(name, json);
        if (stdio) effective = config::apply_env_file(name, effective, confined);
        return std::make_unique<transport::TransportChannel>(plugin, services->table(), effective, listener);
    };
}

std::vector<UnapprovedChange> Host::Impl::unapproved_changes(const std::string& name, const detail::SessionCore& core) const {
    std::optional<config::Pins> server_pins;
    {
        std::lock_guard lock(mutex);
        if (auto it = pins.find(name); it != pins.end()) server_pins = it->second;
    }
    std::vector<UnapprovedChange> out;
    if (!server_pins) return out;
    for (const auto& c : governance::review_pinned_items(server_pins->prompts, server_pins->resources, server_pins->instructions,
                                                         core.cached_prompts(), core.cached_resources(), core.facts()->instructions))
        out.push_back({std::string(governance::kind_name(c.kind)), c.name, c.is_new ? "new since approval" : "changed since approval"});
    return out;
}

config::Pins Host::Impl::pins_of(const detail::SessionCore& core) {
    config::Pins out;
    out.tools = governance::pin_tools(core.cached_tools());
    out.prompts = governance::pin_prompts(core.cached_prompts());
    out.resources = governance::pin_resources(core.cached_resources());
    out.instructions = governance::instructions_pin_hash(core.facts()->instructions);
    return out;
}

// Nothing is pinned here: a pin set is only ever recorded by Host::approve, with the user (a
// server approved while unreachable has an empty set, so what it lists later is held back).
void Host::Impl::on_state_change(const std::string& name, const ConnectionState& state) {
    review_generation->fetch_add(1, std::memory_order_acq_rel);  // a server went live or stopped being so
    if (options.on_state_change) options.on_state_change(name, state);
}

// ---- the public API -----------------------------------------------------------------------------

Host::Host(HostOptions options) : impl_(std::make_unique<Impl>(std::move(options))) { impl_->load_servers(); }
Host::~Host() = default;

const std::vector<PluginInfo>& Host::plugins() const { return impl_->registry.infos(); }

namespace {

// A problem reported for this document (a missing ${VAR}, say) is the caller's error.
void throw_problems_of(const ConfigReport& report, const std::string& origin) {
    for (const auto& p : report.problems)
        if (p.origin == origin) throw Error(ErrorKind::Usage, p.reason);
}

}  // namespace

void Host::add_config_json(std::string_view json_text) { add_config_json(json_text, "api"); }

void Host::add_config_json(std::string_view json_text, const std::string& origin) { add_config_json(json_text, origin, {}); }

void Host::add_config_json(std::string_view json_text, const std::string& origin, const std::filesystem::path& file) {
    config::parse_mcp_config(json_text, origin);  // validation errors throw here, naming the server
    // Resolved now, against the working directory the caller named the file in.
    std::string place = file.empty() ? std::string() : config::canonical_input_place(file);
    {
        std::lock_guard lock(impl_->mutex);
        impl_->dynamic.push_back({origin, std::string(json_text), std::move(place)});
    }
    impl_->load_servers();
    throw_problems_of(config_report(), origin);
}

void Host::add_server(const std::string& name, const JsonValue& config) {
    config::parse_server_config(name, config);
    Json doc(rapidjson::kObjectType);
    JsonValue servers(rapidjson::kObjectType);
    servers.AddMember(json::string_value(name, doc.GetAllocator()), JsonValue(config, doc.GetAllocator()), doc.GetAllocator());
    doc.AddMember("mcpServers", servers, doc.GetAllocator());
    add_config_json(to_json(doc), "api");
}

void Host::register_sdk_server(const std::string& name, std::shared_ptr<InProcessServer> server) {
    if (!server) throw Error(ErrorKind::Usage, "register_sdk_server: null server for '" + name + "'");
    bool known = false;
    {
        std::lock_guard lock(impl_->mutex);
        impl_->sdk_servers[name] = std::move(server);
        known = impl_->every_server.count(name) > 0;
    }
    if (known) return;
    Json entry = parse_json(R"({"type":"sdk"})");
    add_server(name, entry);
}

std::vector<std::string> Host::server_names() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->order;
}

std::shared_ptr<ClientSession> Host::session(const std::string& name) const {
    std::shared_ptr<connection::ServerConnection> connection;
    {
        std::lock_guard lock(impl_->mutex);
        auto it = impl_->connections.find(name);
        if (it == impl_->connections.end()) return nullptr;
        connection = it->second;
    }
    auto core = connection->live_core();
    return core ? mcph::detail::make_client_session(core) : nullptr;
}

std::vector<Tool> Host::tools() const { return impl_->tool_review()->mapped; }

std::vector<Tool> Host::tool_definitions(const std::string& server) const {
    const auto review = impl_->tool_review();
    auto it = review->servers.find(server);
    if (it == review->servers.end()) return {};
    std::vector<Tool> out = it->second.scanned;
    for (Tool& tool : out) tool.mapped_name = tools::map_tool_name(tool.server, tool.name);
    return out;
}

namespace {

std::string withheld_message(const std::string& server, const WithheldTool& w) {
    const std::string who = "tool '" + w.name + "' of server '" + server + "' is withheld: ";
    switch (w.why) {
        case WithheldTool::Why::Flagged:
            return who + "the tool scanner flagged its definition (" + std::to_string(w.findings.size()) +
                   " finding(s); `mcph tools` lists them) and the withholdFlaggedTools policy is on";
        case WithheldTool::Why::New:
            return who + "its definition is new since you approved the server; review it and run `mcph approve " + server + "`";
        case WithheldTool::Why::Changed: break;
    }
    return who + "its definition changed since you approved the server; review it and run `mcph approve " + server + "`";
}

// Resolves a mapped name (or "server/tool") among the allowed tools; {server, original name}.
std::pair<std::string, std::string> resolve_tool(const ToolReviewSnapshot& review, const std::string& mapped_name) {
    if (auto it = review.by_mapped.find(mapped_name); it != review.by_mapped.end()) return it->second;
    if (auto slash = mapped_name.find('/'); slash != std::string::npos)
        return {mapped_name.substr(0, slash), mapped_name.substr(slash + 1)};  // "server/tool"
    return {};
}

}  // namespace

// The connected server holding back a tool of this mapped name (withheld tools are not in tools(),
// yet a call to one should say why it is refused, not "no such tool"). Empty when none.
std::string Host::Impl::withheld_owner(const std::string& mapped_name) const {
    const auto review = tool_review();
    auto it = review->withheld_by_mapped.find(mapped_name);
    return it == review->withheld_by_mapped.end() ? std::string() : it->second;
}

CallToolResult Host::call_tool(const std::string& mapped_name, const JsonValue& arguments, const RequestOptions& options) {
    auto [server, original] = resolve_tool(*impl_->tool_review(), mapped_name);
    if (server.empty()) server = impl_->withheld_owner(mapped_name);
    if (server.empty()) server = impl_->disconnected_owner(mapped_name);
    if (server.empty()) throw Error(ErrorKind::NotFound, "no tool named '" + mapped_name + "' on any connected server");
    auto s = session(server);
    if (!s) {
        std::string why;
        {
            std::lock_guard lock(impl_->mutex);
            if (auto it = impl_->connections.find(server); it != impl_->connections.end()) {
                auto state = it->second->state();
                if (auto* f = std::get_if<state::Failed>(&state)) why = f->error;
                if (auto* p = std::get_if<state::Pending>(&state)) why = p->last_error;
            }
        }
        throw Error(ErrorKind::Connection, "server '" + server + "' is not connected" + (why.empty() ? "" : ": " + why));
    }
    // The rug-pull guard: a withheld tool cannot be called through the host, even by its raw name.
    // The review is taken again now that the session is in hand (checked current, not rebuilt,
    // when nothing changed), so a list that changed since the name was resolved is the one judged.
    const auto review = impl_->tool_review();
    auto reviewed = review->servers.find(server);
    if (reviewed == review->servers.end())  // the session went away meanwhile: nothing reviewed, nothing called
        throw Error(ErrorKind::Connection, "server '" + server + "' is not connected");
    const ServerToolReview& judged = reviewed->second;
    if (original.empty()) {  // a withheld tool's mapped name (not resolvable): which one, and why
        for (const auto& w : judged.withheld)
            if (tools::map_tool_name(server, w.name) == mapped_name) throw Error(ErrorKind::Usage, withheld_message(server, w));
        throw Error(ErrorKind::NotFound, "no tool named '" + mapped_name + "' on server '" + server + "'");
    }
    if (const WithheldTool* w = judged.withheld_tool(original)) throw Error(ErrorKind::Usage, withheld_message(server, *w));
    // Only a tool the server listed and the review let through is called: a "server/tool" name the
    // listing never showed (a hidden tool, or one added without list_changed) was never reviewed.
    if (!judged.allows(original))
        throw Error(ErrorKind::NotFound, "server '" + server + "' did not list a tool named '" + original +
                                             "' (only listed, reviewed tools are called; if it was added since, the "
                                             "server must send notifications/tools/list_changed or be reconnected)");
    return s->call_tool(original, arguments, options);
}

void Host::login(const std::string& name) {
    // The same gate as connecting, before the backend is even created: a server the policy denies,
    // a project server not (or no longer) approved, or a suppressed duplicate is not in the
    // connection table, and gets no registration, no browser and no stored tokens.
    std::shared_ptr<connection::ServerConnection> connection;
    try {
        connection = impl_->connection_of(name);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound || !impl_->every_server_has(name)) throw;
        throw Error(ErrorKind::Usage, std::string("cannot sign in: ") + e.what() + "; nothing was sent to its servers");
    }
    auto auth = impl_->auth_for(connection->server().config);
    if (!auth) throw Error(ErrorKind::Usage, "server '" + name + "' has no auth configured (add \"oauth\": {} to its config)");
    auth->login();
    reconnect(name);
}

void Host::logout(const std::string& name) {
    auto auth = impl_->auth_for(impl_->configured(name).config);
    if (!auth) throw Error(ErrorKind::Usage, "server '" + name + "' has no auth configured");
    auth->logout();
    disconnect(name);
}

void Host::close() { impl_->shutdown(); }

}  // namespace mcph
