// mcph::Host — the embedding API: loads plugins, holds server configs, connects, maps tool names.
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/error.hpp>
#include <mcph/in_process_server.hpp>
#include <mcph/json.hpp>
#include <mcph/session.hpp>
#include <mcph/types.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcph {

enum class LogLevel { Debug = 0, Info = 1, Warn = 2, Error = 3 };

struct PluginInfo {
    std::filesystem::path path;
    bool loaded = false;
    std::string error;  // why it was skipped, when !loaded
    std::string name;
    std::string version;
    std::string description;
    unsigned abi_major = 0, abi_minor = 0;
    std::vector<std::string> interfaces;    // e.g. "mcph.transport/1"
    std::vector<std::string> config_types;  // transport types served, e.g. "stdio"
    std::string auth_backend;               // auth backend name, if an auth plugin
};

struct HostOptions {
    // Plugin search order: $MCPH_PLUGIN_PATH (':'-separated), these dirs, then the default
    // directory next to the running binary (../lib/mcph/plugins).
    std::vector<std::filesystem::path> plugin_dirs;
    bool use_env_plugin_path = true;
    bool use_default_plugin_dir = true;

    Implementation client_info{"mcph", "0.1.0", "mcph MCP host"};
    std::chrono::milliseconds request_timeout{60000};
    std::chrono::milliseconds connect_timeout{30000};
    ClientCallbacks callbacks;

    // Where auth plugins keep tokens. File: credentials_file (default: $MCPH_CONFIG_HOME, else
    // $XDG_CONFIG_HOME/mcph, else ~/.config/mcph — /credentials.json), mode 0600, shared safely
    // by concurrent processes. Memory: for the process's lifetime only (tests, one-shot clients).
    enum class SecretStorage { File, Memory };
    SecretStorage secret_storage = SecretStorage::File;
    std::filesystem::path credentials_file;

    // Where log lines go. Unset: stderr for Warn and above.
    std::function<void(LogLevel, std::string_view source, std::string_view message)> logger;
    // Interactive auth: open a URL for the user. Unset: refused.
    std::function<bool(const std::string& url)> open_url;
};

struct ServerStatus {
    std::string name;
    std::string type;   // transport type
    std::string state;  // "connected" | "failed" | "pending" | "disabled" | "needs-auth"
    std::string error;  // last error, when failed
};

class Host {
public:
    explicit Host(HostOptions options = {});
    ~Host();
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    // Every plugin file considered, loaded or skipped (with the reason).
    const std::vector<PluginInfo>& plugins() const;

    // Adds servers from a {"mcpServers":{...}} (or {"servers":{...}}) document. Throws Error(Usage)
    // naming the server and field on a bad entry. A later definition of a name replaces an earlier one.
    void add_config_json(std::string_view json_text);
    // Adds one server: `config` is its config object ({"command":...} or {"type":"http","url":...}).
    void add_server(const std::string& name, const JsonValue& config);
    // Registers an MCP server implemented inside this application (config type "sdk"), reached
    // without I/O. Adds a {"type":"sdk"} config entry under `name` unless one exists.
    void register_sdk_server(const std::string& name, std::shared_ptr<InProcessServer> server);
    std::vector<std::string> server_names() const;

    // Connects (or returns the live session). Throws Error(Connection/Protocol/Plugin/NotFound).
    std::shared_ptr<ClientSession> connect(const std::string& name);
    // Connects every configured server; failures are recorded in status(), not thrown.
    void connect_all();
    std::shared_ptr<ClientSession> session(const std::string& name) const;  // null if not connected

    // Tools of every connected server under their mapped names (mcp__{server}__{tool}).
    std::vector<Tool> tools() const;
    // Resolves a mapped name (or "server/tool") and calls the tool with its original name.
    CallToolResult call_tool(const std::string& mapped_name, const JsonValue& arguments,
                             const RequestOptions& options = {});

    std::vector<ServerStatus> status() const;
    // The full status view as JSON (servers, tools with original names, plugins).
    Json status_json() const;

    // Runs the server's auth backend interactively (through HostOptions::open_url), then connects.
    void login(const std::string& name);
    // Forgets the server's stored credentials and disconnects it.
    void logout(const std::string& name);

    void disconnect(const std::string& name);
    void close();  // disconnects everything; also done by the destructor

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace mcph
