#include "options.hpp"

#include <mcph/error.hpp>

#include <cctype>

namespace mcph::cli {

const char* usage_text() {
    return R"(usage: mcph [options] <command> [args]

Commands:
  demo                      run the built-in demo against the bundled hello-server (no config needed)
  servers                   list configured servers
  tools [server]            connect and list tools (mapped names: mcp__{server}__{tool}) with
                            the tool scanner's warnings; --full: whole descriptions and schemas
  call <tool> [json-args]   call a tool by mapped name (or server/tool); args as a JSON object
  resources                 list resources of every server
  read <uri> [server]       read a resource
  skills [server]           list skills (io.modelcontextprotocol/skills): name, uri, file count;
                            nothing of a skill is fetched
  skills load <server> <skill>
                            load a skill (name or uri) and print its SKILL.md, verified against the
                            list entry (size, sha256 digest, frontmatter)
  prompts                   list prompts
  prompt <name> [json-args] render a prompt (name or server/name)
  status                    connect everything and show the status view (the "/mcp" view)
  add <name> <command> [args...] | <name> <url> | <name> '<json>'
                            save a server definition (--scope local|project|user; default local)
  remove <name>             delete a saved definition (from --scope, else the file defining it)
  enable <name> / disable <name>
                            switch a server on or off for this project (your local settings)
  approve <name>            approve a server's definition and pin its tools, prompts, resources and
                            instructions, shown in full with the scanner's findings (--yes: even
                            when a project definition replaces yours)
  migrate-local             move <project>/.mcph/settings.local.json (inside the repository, so only
                            trusted as a project file) to your local settings in the config home
  reconnect <name>          reconnect now, with a fresh attempt budget (e.g. after "failed")
  plugins                   list plugins found, loaded or refused (with the reason)
  agents                    list sub-agents (agent files and built-ins) with their servers, whether
                            a project agent is approved, and files that could not be used
  approve --agent <name>    approve a project agent file as it is now (again after any change)
  login <server>            sign in to a server that needs auth (opens the browser)
  logout <server>           forget a server's stored credentials

Options:
  --mcp-config <file|json>  server config {"mcpServers":{...}}; repeatable, later wins
  --strict-mcp-config       use only --mcp-config (ignore user, project, local and plugin configs)
  --plugin-dir <dir>        also search this directory for plugins (repeatable)
  --json                    machine-readable output
  --agent <name>            tools / call through a sub-agent: its referenced servers (the parent's
                            connections) plus its inline servers, started for the command only
  --full                    tools: print whole descriptions and input schemas
  -y, --yes                 approve: accept a project definition that replaces one of yours
  --timeout <duration>      request timeout, e.g. 30s, 500ms (default 60s); also the most a tool call
                            may take in total, progress or not (without it, progress extends a call
                            to ten request timeouts at most: 10 minutes by default)
  --connect-timeout <dur>   the most a server may take to connect and initialize, transport start
                            and handshake together (default 30s)
  -h, --help                this text
  --version                 print the version

Exit codes: 0 ok, 1 the tool reported an error, 2 usage error, 3 connection or protocol failure.
Config: /etc/mcph/managed-mcp.json (enterprise, exclusive), /etc/mcph/managed-settings.json,
        ~/.config/mcph/settings.json, .mcp.json (project, up to the repository root),
        local settings (~/.config/mcph/projects/<project>-<hash>/settings.local.json),
        <plugin dir>/*.mcp.json, then --mcp-config.
Agents: <plugin dir>/agents/<plugin>/*.md, ~/.config/mcph/agents/*.md, .claude/agents/*.md and
        .mcph/agents/*.md (project, up to the repository root; need `mcph approve --agent`),
        /etc/mcph/agents/*.md (policy). Files of other users, or writable by others, are
        refused; the project walk stops at a folder or .git owned by another user.
Environment: MCPH_PLUGIN_PATH (plugin dirs, ':'-separated), MCPH_LOG_LEVEL (debug|info|warn|error),
             MCPH_SHELL_PREFIX (wraps stdio server commands, e.g. "docker exec -i box"),
             MCPH_CONFIG_HOME, MCPH_MANAGED_DIR (config locations), MCPH_LOCAL_CONNECT_BATCH,
             MCPH_REMOTE_CONNECT_BATCH, MCPH_RECONNECT_ATTEMPTS / _INITIAL_MS / _MAX_MS.
)";
}

std::chrono::milliseconds parse_duration(const std::string& text) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw Error(ErrorKind::Usage, "invalid duration '" + text + "' (try 30s or 500ms)");
    }
    const std::string unit = text.substr(used);
    double ms = 0;
    if (unit.empty() || unit == "ms") ms = value;
    else if (unit == "s") ms = value * 1000;
    else if (unit == "m") ms = value * 60000;
    else throw Error(ErrorKind::Usage, "invalid duration unit in '" + text + "' (use ms, s or m)");
    if (ms <= 0) throw Error(ErrorKind::Usage, "duration must be positive: '" + text + "'");
    return std::chrono::milliseconds(static_cast<long long>(ms));
}

Options parse_options(int argc, char** argv) {
    Options o;
    auto value_of = [&](int& i, const std::string& flag) -> std::string {
        if (i + 1 >= argc) throw Error(ErrorKind::Usage, flag + " needs a value");
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--mcp-config") o.mcp_configs.push_back(value_of(i, a));
        else if (a.rfind("--mcp-config=", 0) == 0) o.mcp_configs.push_back(a.substr(13));
        else if (a == "--plugin-dir") o.plugin_dirs.emplace_back(value_of(i, a));
        else if (a.rfind("--plugin-dir=", 0) == 0) o.plugin_dirs.emplace_back(a.substr(13));
        else if (a == "--json") o.json = true;
        else if (a == "--full") o.full = true;
        else if (a == "--yes" || a == "-y") o.yes = true;
        else if (a == "--strict-mcp-config") o.strict_mcp_config = true;
        else if (a == "--scope") o.scope = value_of(i, a);
        else if (a.rfind("--scope=", 0) == 0) o.scope = a.substr(8);
        else if (a == "--timeout") o.timeout = parse_duration(value_of(i, a));
        else if (a.rfind("--timeout=", 0) == 0) o.timeout = parse_duration(a.substr(10));
        else if (a == "--connect-timeout") o.connect_timeout = parse_duration(value_of(i, a));
        else if (a.rfind("--connect-timeout=", 0) == 0) o.connect_timeout = parse_duration(a.substr(18));
        else if (a == "--agent") o.agent = value_of(i, a);
        else if (a.rfind("--agent=", 0) == 0) o.agent = a.substr(8);
        else if (a == "-h" || a == "--help") o.help = true;
        else if (a == "--version") o.version = true;
        else if (a.size() > 1 && a[0] == '-' && o.command.empty()) throw Error(ErrorKind::Usage, "unknown option " + a);
        else if (o.command.empty()) o.command = a;
        else o.args.push_back(a);
    }
    return o;
}

}  // namespace mcph::cli
