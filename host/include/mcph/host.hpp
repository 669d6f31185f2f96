// mcph::Host — the embedding API: loads plugins, holds server configs, connects, maps tool names.
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/connection_state.hpp>
#include <mcph/error.hpp>
#include <mcph/export.hpp>
#include <mcph/in_process_server.hpp>
#include <mcph/json.hpp>
#include <mcph/session.hpp>
#include <mcph/types.hpp>
#include <mcph/version.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
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

// A value a configuration file asks the user for (VS Code's "inputs", referenced as ${input:id}).
struct InputRequest {
    std::string origin;       // the file defining the input
    std::string server;       // the first server that needs it
    std::string id;
    std::string description;  // the file's prompt text
    bool password = false;    // ask without echo
    std::string default_value;
    std::vector<std::string> options;  // "pickString": the choices
};

// An answer to a configuration's input that the host keeps in the secret store (HostOptions::
// ask_input): where and what was asked, never the value.
struct KeptInput {
    std::string file;    // the defining file's canonical path; empty for a document that is not a file
    std::string origin;  // where the document came from, as the status view names it
    std::string id;
    std::string description;  // the file's description when it was asked (cut at 512 bytes)
    bool password = false;
};

// Which way a JSON-RPC message went on the wire (HostOptions::wire_trace).
enum class WireDirection { Out, In };

struct HostOptions {
    // Plugin search order: $MCPH_PLUGIN_PATH (':'-separated), these dirs, then the defaults:
    // <libmcph's own directory>/mcph/plugins (relocatable), the install directory compiled into the
    // library (<libdir>/mcph/plugins), and ../lib/mcph/plugins next to the running binary (the build
    // tree). Each directory is searched once, however it is spelled.
    std::vector<std::filesystem::path> plugin_dirs;
    bool use_env_plugin_path = true;
    bool use_default_plugin_dir = true;

    // What the host tells servers it is (clientInfo); by default the version of the libmcph that
    // runs, mcph::version() (not the headers' MCPH_VERSION_STRING).
    Implementation client_info{"mcph", mcph::version(), "mcph MCP host"};
    std::chrono::milliseconds request_timeout{60000};
    std::chrono::milliseconds connect_timeout{30000};
    ClientCallbacks callbacks;

    // Where auth plugins keep tokens. Keyring: the system's Secret Service (gnome-keyring…) over
    // D-Bus. File: credentials_file (default: $MCPH_CONFIG_HOME, else $XDG_CONFIG_HOME/mcph, else
    // ~/.config/mcph with ~ from $HOME or the password database, never /tmp — /credentials.json),
    // mode 0600, owned by the user, shared safely by concurrent processes. Auto: the keyring when a
    // session bus offers an unlocked default collection, else the file (the reason is logged and
    // shown in status); $MCPH_SECRET_STORE=auto|file|keyring overrides Auto. Memory: for the
    // process's lifetime only (tests, one-shot clients).
    enum class SecretStorage { Auto, File, Keyring, Memory };
    SecretStorage secret_storage = SecretStorage::Auto;
    std::filesystem::path credentials_file;

    // Where log lines go. Unset: stderr for Warn and above.
    std::function<void(LogLevel, std::string_view source, std::string_view message)> logger;
    // Interactive auth: open a URL for the user. Unset: refused.
    std::function<bool(const std::string& url)> open_url;
    // Answers a configuration's ${input:id} (the CLI asks on a terminal, masked when `password`):
    // the answer, or nullopt when the user declines or nobody can be asked. Asked once per file and
    // input: the answer is kept in the secret store under the file's path and the id. Unset, or no
    // answer: the servers using that input are config problems naming it; the others load.
    std::function<std::optional<std::string>(const InputRequest&)> ask_input;

    // Layered configuration (seed 000 §18.6): enterprise ($MCPH_MANAGED_DIR/managed-mcp.json,
    // exclusive), managed (managed-settings.json), user ($MCPH_CONFIG_HOME/settings.json), project
    // (.mcp.json files from the repository root down to `cwd`), local ($MCPH_CONFIG_HOME/projects/
    // <project>/settings.local.json) and plugin-contributed servers (*.mcp.json beside the plugins).
    // Files of other users or writable by others are refused; an in-repository
    // .mcph/settings.local.json has project trust only (docs/governance.md, "Trust by location").
    // Off: only what the application adds (dynamic scope) is used — no file is read.
    bool load_layered_config = false;
    std::filesystem::path cwd;  // default: the process's working directory

    // Reconnection of lost connections (defaults: 5 attempts, 1 s doubling to 30 s; overridable by
    // MCPH_RECONNECT_ATTEMPTS / _INITIAL_MS / _MAX_MS / _STABLE_MS). max_attempts 0 turns it off.
    struct Reconnect {
        int max_attempts = 5;
        std::chrono::milliseconds initial_backoff{1000};
        std::chrono::milliseconds max_backoff{30000};
        // A connection must stay up this long before its attempt counter resets: a server that
        // dies right after each connect ends in "failed" instead of looping forever.
        std::chrono::milliseconds stable_after{30000};
    };
    std::optional<Reconnect> reconnect;  // unset: defaults + environment
    // connect_all batch sizes (defaults 3 local, 20 remote; MCPH_LOCAL_CONNECT_BATCH /
    // MCPH_REMOTE_CONNECT_BATCH). Batches run one after another, members in parallel.
    std::optional<std::size_t> local_connect_batch;
    std::optional<std::size_t> remote_connect_batch;
    // HTTP-family servers: name the failed step (DNS, TCP) of an unreachable one (docs/host-core.md).
    bool reachability_check = true;

    // Withhold every tool the tool scanner flags (Tool::findings not empty), as the rug-pull guard
    // withholds a changed one: not listed, not callable. Also turned on by "withholdFlaggedTools":
    // true in the managed, user or local settings.
    bool withhold_flagged_tools = false;

    // Called on every state change of every server, on a host thread; must be quick.
    std::function<void(const std::string& server, const ConnectionState& state)> on_state_change;

    // The wire trace: every JSON-RPC message written to or read from every server, as the text
    // on the wire (a whole message or batch), on the thread that writes or reads it; must be
    // quick. The text is the server's and the host's as they are: secrets (tokens in arguments,
    // results) and terminal control characters included — the receiver redacts and escapes (the
    // CLI's --debug does). Unset: one branch per message, nothing copied.
    std::function<void(const std::string& server, WireDirection direction, std::string_view message)> wire_trace;
};

// A tool the host holds back. The rug-pull guard: its definition changed since the user approved
// the server (or it appeared after), until `Host::approve` pins it again. The scanner policy
// (withhold_flagged_tools): the scanner flagged it, for as long as its definition is flagged.
struct WithheldTool {
    std::string name;    // the server's original tool name
    std::string reason;  // "changed since approval" | "new since approval" | "flagged by the tool scanner"
    enum class Why { Changed, New, Flagged };
    Why why = Why::Changed;
    std::vector<Finding> findings;  // what the scanner found in it (any reason)
};

// Something besides a tool that differs from what the user saw when approving the server: its
// instructions, a prompt or a resource (the rug-pull guard pins them too). Changed instructions are
// held back from the status view until the server is approved again.
struct UnapprovedChange {
    std::string kind;    // "instructions" | "prompt" | "resource"
    std::string name;    // prompt name or resource URI; empty for the instructions
    std::string reason;  // "changed since approval" | "new since approval"
};

struct ServerStatus {
    std::string name;
    std::string type;   // transport type
    std::string state;  // state_name(connection)
    std::string error;  // last error (failed, needs-auth, or why a pending connection was lost)
    std::string scope;  // "enterprise" | "managed" | "user" | "project" | "local" | "dynamic" | "webapp" | "plugin"
    std::string origin;         // the file (or "api", "--mcp-config <file>") that defined it
    std::string plugin_source;  // plugin scope: the plugin that contributed it
    ConnectionState connection;
    std::vector<std::string> stderr_tail;  // the last lines the server wrote to stderr (stdio)
    std::vector<WithheldTool> withheld_tools;
    std::vector<UnapprovedChange> unapproved_changes;
};

// A configured server that will not be connected, and why.
struct ExcludedServer {
    std::string name;
    std::string scope;
    std::string origin;
    std::string plugin_source;
    std::string reason;
    // A config problem of one server's entry: the entry as written in its file (compact JSON,
    // ${VAR} unexpanded, secrets not redacted: redact before showing it, as `mcph get` does).
    // Empty for every other exclusion, and for a problem of a whole file or list.
    std::string written_json = {};
};

// A definition that another scope's definition of the same name replaced (whole-entry replacement).
// A project file taking the place of the user's server is how a repository hijacks a name the
// user trusts; `mcph servers` and `mcph approve` say so.
struct ShadowedServer {
    std::string name;
    std::string scope;      // the replaced definition's scope and file
    std::string origin;
    std::string by_scope;   // the definition in effect
    std::string by_origin;
    std::string reason;     // for people
};

struct ConfigReport {
    std::vector<ExcludedServer> suppressed_duplicates;  // plugin servers duplicating another
    std::vector<ExcludedServer> denied;                 // refused by allow/deny policy (reason = rule)
    std::vector<ExcludedServer> unapproved;             // project servers awaiting `mcph approve`
    std::vector<ExcludedServer> problems;               // files or entries that could not be used
    std::vector<ShadowedServer> shadowed;               // definitions replaced by another scope's
    bool enterprise_exclusive = false;                  // managed-mcp.json replaced every other source
    // <project root>/.mcph/settings.local.json when it exists: read with project trust only, until
    // the user moves it with migrate_local_settings (`mcph migrate-local`).
    std::string legacy_local_settings;
    std::string local_settings;  // where the user's local settings for this project live
    // Webapp connectors (the "connectors" setting, docs/governance.md): the service's URL
    // (credentials redacted; empty when none is configured), whether the connectors in use are the
    // cached list because the fetch failed, and why it failed.
    std::string webapp_endpoint;
    bool webapp_stale = false;
    std::string webapp_error;
    // Managed settings fetched from <managed_dir>/managed-settings-endpoint.json's URL (redacted;
    // empty when none is configured), whether its cached copy stands in (useCachedOnFailure), and
    // why the fetch failed.
    std::string managed_endpoint;
    bool managed_from_cache = false;
    std::string managed_error;
};

// A configured server's definition as written in its file: what `mcph approve` shows before the
// user approves it.
struct ServerDefinition {
    std::string name;
    std::string scope;
    std::string origin;
    std::string definition_json;         // the entry as written (${VAR} unexpanded), pretty-printed
    std::vector<std::string> variables;  // environment variables it reads (command, args, env, url, headers)
    // stdio: which of the host's variables the server starts with ("inheritEnv"), as compact JSON —
    // "false" (the allow-list), "true" (all) or ["NAME", "PREFIX_*"] — and where that came from:
    // "definition", the settings file whose default applied, or "default". Empty for other transports.
    std::string inherit_env_json;
    std::string inherit_env_from;
};

// Who defined a sub-agent: decides whether it may bring inline servers under a plugin-only policy.
enum class AgentSource { BuiltIn, Plugin, Policy, User, Project };
// "built-in" | "plugin" | "policy" | "user" | "project": as in the status view and `mcph agents`.
MCPH_API const char* agent_source_name(AgentSource source);

// A sub-agent's MCP servers (seed 000 §18.11): a reference reuses the parent's connection (shared,
// never closed by the overlay); an inline definition opens a connection that the overlay owns.
struct OverlayServer {
    std::string reference;    // non-empty: the name of a server of the host
    std::string name;         // inline: the server's name inside the overlay
    std::string config_json;  // inline: its config object, as in mcpServers
};

struct OverlaySpec {
    std::string agent;  // for messages
    AgentSource source = AgentSource::User;
    std::vector<OverlayServer> servers;
    std::string origin;  // the agent file (or "api"), for messages; may be empty
};

// A sub-agent definition (docs/agents.md): from an agent file — Markdown with YAML frontmatter, as
// Claude Code's .claude/agents/*.md — or registered by the embedder (Host::register_agent).
struct AgentDefinition {
    std::string name;
    std::string description;
    std::vector<std::string> tools;  // the frontmatter's tool list, as written (not enforced here)
    std::vector<OverlayServer> servers;
    std::string prompt;  // the Markdown body after the frontmatter
    AgentSource source = AgentSource::BuiltIn;
    std::string origin;         // the file, or "api" for a registered agent
    std::string plugin_source;  // Plugin: the plugin that contributed it
    // Project agent files need the user's approval of their content (`mcph approve --agent NAME`);
    // false with the reason until approved, and again after any change of the file.
    bool approved = true;
    std::string unapproved_reason;
    std::vector<std::string> shadows;  // origins of lower definitions of this name it replaced
};

// An agent file that could not be used (the other agents still load).
struct AgentProblem {
    std::string origin;  // the file or folder
    int line = 0;        // 1-based line in the file; 0 when the problem is not at one line
    std::string message;
};

struct AgentCatalog {
    std::vector<AgentDefinition> agents;  // one per name, the definition in effect
    std::vector<AgentProblem> problems;
};

class Overlay;

class MCPH_API Host {
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
    // The same, naming where the document came from in messages and in the status view.
    void add_config_json(std::string_view json_text, const std::string& origin);
    // The same for a document read from `file`: answers to its inputs are kept under the file's
    // canonical path, so a file named two ways (./a.json, /home/u/a.json) is asked once.
    void add_config_json(std::string_view json_text, const std::string& origin, const std::filesystem::path& file);
    // Adds one server: `config` is its config object ({"command":...} or {"type":"http","url":...}).
    void add_server(const std::string& name, const JsonValue& config);
    // Registers an MCP server implemented inside this application (config type "sdk"), reached
    // without I/O. Adds a {"type":"sdk"} config entry under `name` unless one exists.
    void register_sdk_server(const std::string& name, std::shared_ptr<InProcessServer> server);
    std::vector<std::string> server_names() const;

    // Connects (or returns the live session). Throws Error(Connection/Protocol/Plugin/NotFound).
    std::shared_ptr<ClientSession> connect(const std::string& name);
    // Connects every eligible server in batches (local 3, remote 20 at a time; the two kinds in
    // parallel); failures are recorded in status(), not thrown.
    void connect_all();
    std::shared_ptr<ClientSession> session(const std::string& name) const;  // null if not connected

    // Tools of every connected server under their mapped names (mcp__{server}__{tool}).
    std::vector<Tool> tools() const;
    // Every tool `server` lists, withheld or not, with its mapped name and the scanner's findings:
    // the full definitions a person reviews before `approve` pins them. Empty when not connected.
    std::vector<Tool> tool_definitions(const std::string& server) const;
    // Resolves a mapped name (or "server/tool") and calls the tool with its original name.
    CallToolResult call_tool(const std::string& mapped_name, const JsonValue& arguments,
                             const RequestOptions& options = {});

    std::vector<ServerStatus> status() const;
    ConnectionState state(const std::string& name) const;
    // Servers left out of the connection set (duplicates, policy, approval, bad config).
    ConfigReport config_report() const;
    // The full status view as JSON ("/mcp"): servers with scope, state, attempt n/max, last error,
    // stderr tail, serverInfo, capabilities, instructions, tools (mapped and original names),
    // withheld tools, resources, prompts; suppressed duplicates; denials; unapproved servers;
    // config problems; plugins loaded and refused.
    Json status_json() const;

    // Re-reads every config layer (servers whose definition is unchanged keep their connection).
    void reload_config();
    // Manual reconnect: from any state but disabled, with a fresh attempt budget. Throws like connect.
    std::shared_ptr<ClientSession> reconnect(const std::string& name);
    // Disable / enable a server now, and (layered config) remember it in the local settings (in the
    // config home, keyed by project: ConfigReport::local_settings).
    void disable(const std::string& name);
    void enable(const std::string& name);
    // Approves the server's definition as written, in its scope, file and project (required for
    // project-scope servers), and pins what it shows — tools, prompts, resources, instructions: a
    // later change withholds the tool (flags the rest) until approved again. Connects to read them;
    // when it cannot, the approval is recorded with nothing pinned (so everything it lists later is
    // held back) and the connection error is thrown.
    void approve(const std::string& name);
    // Moves <project root>/.mcph/settings.local.json to the local settings in the config home and
    // reloads. Returns the new file. Throws NotFound when there is nothing to move, Usage when the
    // file is not the user's own or the new file exists already (merge by hand).
    std::filesystem::path migrate_local_settings();
    // The definition of a configured server (approved or not) as written. Throws NotFound.
    ServerDefinition definition(const std::string& name) const;
    // Config writes ("mcph add/remove"): scope "user", "project" or "local" — atomic, mode kept.
    void save_server(const std::string& scope, const std::string& name, const JsonValue& config, bool replace = false);
    // Removes the definition from `scope`, or (empty) from the file that defines it. False if none.
    bool remove_saved_server(const std::string& name, const std::string& scope = "");

    // Opens a sub-agent overlay; throws Error(Usage) when policy forbids its inline servers.
    std::unique_ptr<Overlay> open_overlay(const OverlaySpec& spec);
    // Opens the overlay of a defined agent (agents()). Throws NotFound for an unknown name, Usage
    // for an unapproved project agent (naming its file) or when policy forbids its inline servers
    // (naming the agent, its file and the policy).
    std::unique_ptr<Overlay> open_overlay(const std::string& agent_name);
    // Every agent: built-in (register_agent), plugin (<plugin dir>/agents/<plugin>/*.md), policy
    // (<managed dir>/agents/*.md), user (<config home>/agents/*.md) and project (.mcph/agents/*.md
    // and .claude/agents/*.md from the repository root down to cwd) — the files only with layered
    // config. Later sources replace earlier ones of the same name. Files are read afresh each call.
    AgentCatalog agents() const;
    // Adds (or replaces) an agent of the embedder's built-in set (AgentSource::BuiltIn, origin "api").
    void register_agent(AgentDefinition agent);
    // Approves the content of a project agent file as it is now; a later change needs approval
    // again. Throws NotFound for an unknown agent, Usage when it is not a project agent.
    void approve_agent(const std::string& agent_name);

    // The input answers kept in the secret store (every file's, not only this host's config), in
    // the order they were kept. Throws Error(Usage) when the store's index of them is unreadable.
    std::vector<KeptInput> kept_inputs() const;
    // Forgets kept answers, so the next load (reload_config, the next process) asks again: those
    // of input `id` (every input when empty) of `file`, however it is spelled (every file when
    // empty). Both empty: every kept answer, and an unreadable index of them is reset. Returns
    // what was forgotten (empty: nothing matched).
    std::vector<KeptInput> forget_inputs(const std::string& id, const std::filesystem::path& file = {});

    // Runs the server's auth backend interactively (through HostOptions::open_url), then connects.
    void login(const std::string& name);
    // Forgets the server's stored credentials and disconnects it.
    void logout(const std::string& name);

    void disconnect(const std::string& name);
    void close();  // disconnects everything; also done by the destructor

private:
    friend class Overlay;  // an overlay reads the host's servers and tools through Impl
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The servers a sub-agent sees: its referenced parent servers plus its own inline ones.
// Made by Host::open_overlay.
class MCPH_API Overlay {
public:
    ~Overlay();  // closes the inline connections; referenced ones stay with the parent
    Overlay(const Overlay&) = delete;
    Overlay& operator=(const Overlay&) = delete;

    std::vector<std::string> server_names() const;
    std::shared_ptr<ClientSession> session(const std::string& name) const;
    std::vector<Tool> tools() const;
    CallToolResult call_tool(const std::string& mapped_name, const JsonValue& arguments, const RequestOptions& options = {});
    // Names of inline servers the overlay opened (and will close).
    std::vector<std::string> owned_servers() const;

private:
    friend class Host;  // Host::open_overlay
    struct Impl;
    MCPH_LOCAL explicit Overlay(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace mcph
