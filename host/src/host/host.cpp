#include "config/headers_helper.hpp"
#include "host/host_impl.hpp"
#include "secrets/file_secret_store.hpp"
#include "transport/in_process_transport.hpp"
#include "json/json_access.hpp"
#include "tools/name_mapping.hpp"

#include <mcph/host.hpp>

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
        if (v == "debug") threshold = LogLevel::Debug;
        else if (v == "info") threshold = LogLevel::Info;
        else if (v == "error") threshold = LogLevel::Error;
    }
    auto mutex = std::make_shared<std::mutex>();
    return [threshold, mutex](LogLevel level, std::string_view source, std::string_view message) {
        if (level < threshold) return;
        std::lock_guard lock(*mutex);
        std::cerr << "mcph: [" << level_name(level) << "] " << source << ": " << message << std::endl;
    };
}

}  // namespace

Host::Impl::Impl(HostOptions opts) : options(std::move(opts)) {
    if (!options.logger) options.logger = default_logger();
    if (options.secret_storage == HostOptions::SecretStorage::Memory)
        secrets = std::make_shared<plugins::MemorySecretStore>();
    else
        secrets = std::make_shared<::mcph::secrets::FileSecretStore>(
            options.credentials_file.empty() ? ::mcph::secrets::default_credentials_path() : options.credentials_file);
    plugins::HostServiceBindings bindings;
    bindings.log = options.logger;
    bindings.open_url = options.open_url;
    bindings.post = [rt = std::weak_ptr<runtime::Runtime>(runtime)](std::function<void()> fn) {
        if (auto r = rt.lock()) r->post(std::move(fn));
    };
    bindings.secrets = secrets;
    services = std::make_shared<plugins::HostServices>(std::move(bindings));
    registry.discover(plugins::plugin_search_path(options), services->table());
}


void Host::Impl::shutdown() {
    std::map<std::string, std::shared_ptr<detail::SessionCore>> closing;
    {
        std::lock_guard lock(mutex);
        closing.swap(sessions);
    }
    for (auto& [name, core] : closing) core->close();
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

void Host::Impl::set_status(const std::string& name, const std::string& state, const std::string& error) {
    std::lock_guard lock(mutex);
    auto& s = statuses[name];
    s.name = name;
    if (s.type.empty())
        if (auto it = configs.find(name); it != configs.end()) s.type = it->second.type;
    s.state = state;
    s.error = error;
}

config::ServerConfig Host::Impl::config_of(const std::string& name) const {
    std::lock_guard lock(mutex);
    auto it = configs.find(name);
    if (it == configs.end()) throw Error(ErrorKind::NotFound, "no server named '" + name + "' is configured");
    return it->second;
}

std::shared_ptr<plugins::LoadedPlugin> Host::Impl::plugin_for(const config::ServerConfig& config) const {
    auto plugin = registry.transport_for(config.type);
    if (plugin) return plugin;
    std::string known;
    for (const auto& type : registry.transport_types()) known += (known.empty() ? "" : ", ") + type;
    throw Error(ErrorKind::Plugin, "server '" + config.name + "': no loaded plugin serves transport type '" +
                                       config.type + "' (available: " + (known.empty() ? "none" : known) +
                                       "); check --plugin-dir / MCPH_PLUGIN_PATH and run `mcph plugins`");
}

std::shared_ptr<detail::SessionCore> Host::Impl::make_session(const config::ServerConfig& config) {
    detail::SessionSettings settings;
    settings.server_name = config.name;
    settings.transport_type = config.type;
    settings.config_json = config.config_json;
    settings.request_timeout = config.request_timeout.value_or(options.request_timeout);
    settings.connect_timeout = options.connect_timeout;
    settings.client_info = options.client_info;
    settings.callbacks = options.callbacks;
    settings.log = options.logger;
    settings.auth = auth_for(config);
    const std::string name = config.name;
    settings.on_disconnected = [this, name](const std::string& reason) { set_status(name, "failed", reason); };
    return std::make_shared<detail::SessionCore>(std::move(settings), transport_factory(config), services, runtime);
}

// The configured but disconnected server a mapped tool name points at, so a call to a dead server
// says so instead of "no such tool". Empty when none fits.
std::string Host::Impl::disconnected_owner(const std::string& mapped_name) const {
    std::lock_guard lock(mutex);
    for (const auto& name : order) {
        auto it = sessions.find(name);
        if (it != sessions.end() && it->second->connected()) continue;
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
    auto session = std::make_shared<auth::AuthSession>(plugin, services->table(), config.name, config.url,
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
    // The helper runs at every connect and reconnect, so each attempt gets fresh headers.
    return [plugin, services = services, name = config.name, json = config.config_json](
               transport::TransportListener* listener) -> std::unique_ptr<transport::Transport> {
        return std::make_unique<transport::TransportChannel>(plugin, services->table(),
                                                             config::apply_headers_helper(name, json), listener);
    };
}


Host::Host(HostOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Host::~Host() = default;

const std::vector<PluginInfo>& Host::plugins() const { return impl_->registry.infos(); }

void Host::add_config_json(std::string_view json_text) {
    for (auto& config : config::parse_mcp_config(json_text, "MCP config")) {
        std::lock_guard lock(impl_->mutex);
        if (!impl_->configs.count(config.name)) impl_->order.push_back(config.name);
        const std::string name = config.name;
        impl_->statuses[name] = ServerStatus{name, config.type, config.disabled ? "disabled" : "pending", ""};
        impl_->configs[name] = std::move(config);
    }
}

void Host::add_server(const std::string& name, const JsonValue& config) {
    auto parsed = config::parse_server_config(name, config);
    std::lock_guard lock(impl_->mutex);
    if (!impl_->configs.count(name)) impl_->order.push_back(name);
    impl_->statuses[name] = ServerStatus{name, parsed.type, parsed.disabled ? "disabled" : "pending", ""};
    impl_->configs[name] = std::move(parsed);
}

void Host::register_sdk_server(const std::string& name, std::shared_ptr<InProcessServer> server) {
    if (!server) throw Error(ErrorKind::Usage, "register_sdk_server: null server for '" + name + "'");
    std::lock_guard lock(impl_->mutex);
    impl_->sdk_servers[name] = std::move(server);
    if (impl_->configs.count(name)) return;
    Json entry = parse_json(R"({"type":"sdk"})");
    impl_->order.push_back(name);
    impl_->configs[name] = config::parse_server_config(name, entry);
    impl_->statuses[name] = ServerStatus{name, "sdk", "pending", ""};
}

std::vector<std::string> Host::server_names() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->order;
}

namespace {

// Did initialize fail the way a legacy (2024-11-05) server answers a POST: HTTP 400, 404 or 405?
bool looks_like_legacy_server(const Error& e) {
    if (e.kind() != ErrorKind::Remote || e.data_json().empty()) return false;
    Json data;
    data.Parse(e.data_json().c_str());
    if (!data.IsObject() || !data.HasMember("httpStatus") || !data["httpStatus"].IsInt()) return false;
    const int status = data["httpStatus"].GetInt();
    return status == 400 || status == 404 || status == 405;
}

}  // namespace

std::shared_ptr<ClientSession> Host::connect(const std::string& name) {
    if (auto existing = session(name)) return existing;
    config::ServerConfig config = impl_->config_of(name);
    if (config.disabled)
        throw Error(ErrorKind::Usage, "server '" + name + "' is disabled in its config (\"disabled\": true)");
    std::shared_ptr<detail::SessionCore> core;
    try {
        try {
            core = impl_->make_session(config);
            core->connect();
        } catch (const Error& e) {
            if (!config.auto_fallback_to_sse || !looks_like_legacy_server(e)) throw;
            impl_->options.logger(LogLevel::Info, name, "Streamable HTTP refused; falling back to the legacy SSE transport");
            config = config::as_legacy_sse(config);
            core = impl_->make_session(config);
            core->connect();
        }
    } catch (const Error& e) {
        impl_->set_status(name, core && core->needs_auth() ? "needs-auth" : "failed", e.what());
        throw;
    }
    {
        std::lock_guard lock(impl_->mutex);
        impl_->sessions[name] = core;
        impl_->statuses[name].type = config.type;  // "sse" after an auto fallback
    }
    impl_->set_status(name, "connected", "");
    return std::make_shared<ClientSession>(core);
}

void Host::connect_all() {
    for (const auto& name : server_names()) {
        if (impl_->config_of(name).disabled) continue;
        try {
            connect(name);
        } catch (const Error&) {
            // recorded in status()
        }
    }
}

std::shared_ptr<ClientSession> Host::session(const std::string& name) const {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->sessions.find(name);
    if (it == impl_->sessions.end() || !it->second->connected()) return nullptr;
    return std::make_shared<ClientSession>(it->second);
}

std::vector<Tool> Host::tools() const {
    std::vector<std::shared_ptr<detail::SessionCore>> live;
    {
        std::lock_guard lock(impl_->mutex);
        for (const auto& name : impl_->order)
            if (auto it = impl_->sessions.find(name); it != impl_->sessions.end() && it->second->connected())
                live.push_back(it->second);
    }
    std::vector<Tool> out;
    std::map<std::string, std::string> owner;  // mapped name -> server/tool, to refuse any collision
    for (const auto& core : live) {
        for (Tool tool : core->cached_tools()) {
            tool.mapped_name = tools::map_tool_name(tool.server, tool.name);
            auto [it, fresh] = owner.emplace(tool.mapped_name, tool.server + "/" + tool.name);
            if (!fresh) {
                impl_->options.logger(LogLevel::Error, tool.server,
                                      "tool '" + tool.name + "' maps to '" + tool.mapped_name + "', already used by " +
                                          it->second + "; it is withheld");
                continue;
            }
            out.push_back(std::move(tool));
        }
    }
    return out;
}

CallToolResult Host::call_tool(const std::string& mapped_name, const JsonValue& arguments, const RequestOptions& options) {
    std::string server;
    std::string original;
    for (const Tool& tool : tools()) {
        if (tool.mapped_name == mapped_name) {
            server = tool.server;
            original = tool.name;
            break;
        }
    }
    if (auto slash = mapped_name.find('/'); server.empty() && slash != std::string::npos) {
        server = mapped_name.substr(0, slash);  // "server/tool" addresses a tool by its original name
        original = mapped_name.substr(slash + 1);
    }
    if (server.empty()) server = impl_->disconnected_owner(mapped_name);
    if (server.empty()) throw Error(ErrorKind::NotFound, "no tool named '" + mapped_name + "' on any connected server");
    auto s = session(server);
    if (!s) {
        std::string why;
        {
            std::lock_guard lock(impl_->mutex);
            if (auto it = impl_->statuses.find(server); it != impl_->statuses.end()) why = it->second.error;
        }
        throw Error(ErrorKind::Connection, "server '" + server + "' is not connected" + (why.empty() ? "" : ": " + why));
    }
    return s->call_tool(original, arguments, options);
}

std::vector<ServerStatus> Host::status() const {
    std::lock_guard lock(impl_->mutex);
    std::vector<ServerStatus> out;
    for (const auto& name : impl_->order) out.push_back(impl_->statuses.at(name));
    return out;
}

void Host::disconnect(const std::string& name) {
    std::shared_ptr<detail::SessionCore> core;
    {
        std::lock_guard lock(impl_->mutex);
        auto it = impl_->sessions.find(name);
        if (it == impl_->sessions.end()) return;
        core = it->second;
        impl_->sessions.erase(it);
    }
    core->close();
    impl_->set_status(name, "pending", "");
}

void Host::login(const std::string& name) {
    auto auth = impl_->auth_for(impl_->config_of(name));
    if (!auth) throw Error(ErrorKind::Usage, "server '" + name + "' has no auth configured (add \"oauth\": {} to its config)");
    auth->login();
    disconnect(name);
    connect(name);
}

void Host::logout(const std::string& name) {
    auto auth = impl_->auth_for(impl_->config_of(name));
    if (!auth) throw Error(ErrorKind::Usage, "server '" + name + "' has no auth configured");
    auth->logout();
    disconnect(name);
    impl_->set_status(name, "needs-auth", "logged out");
}

void Host::close() { impl_->shutdown(); }

}  // namespace mcph
