#include "options.hpp"

#include <mcph/error.hpp>

#include "command_table.hpp"
#include "did_you_mean.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace mcph::cli {

const char* usage_text() {
    return R"(usage: mcph [options] <command> [args]

Commands (`mcph help <command>` or `mcph <command> --help`: its options and examples):
  demo                      run the built-in demo against the bundled hello-server (no config needed)
  servers                   list configured servers
  tools [server]            connect and list tools (mapped names: mcp__{server}__{tool}) with
                            the tool scanner's warnings; --full: whole descriptions and schemas
  call <tool> [json-args]   call a tool by mapped name (or server/tool); args as a JSON object;
                            -o DIR saves image, audio and blob content there
  list                      health check: connect every server (5s each) and print ✔/✗ with the
                            reason; exit 0 only when all connected (3 failed, 4 needs auth only)
  resources [server]        list resources (each server asked on its own: a failing one is a line)
  templates [server]        list resource templates
  read <uri> [server] [-o FILE|DIR] [--force]
                            read a resource; -o writes its content (a blob decoded) to FILE
  skills [server]           list skills (io.modelcontextprotocol/skills): name, uri, file count;
                            nothing of a skill is fetched
  skills load <server> <skill>
                            load a skill (name or uri) and print its SKILL.md, verified against the
                            list entry (size, sha256 digest, frontmatter)
  prompts [server]          list prompts
  complete <server> (--prompt NAME | --resource-template URI) <argument> [value]
                            completion values for a prompt argument or template variable
  log-level <server> <level>
                            set a server's logging level (debug ... emergency, RFC 5424)
  subscribe <server> <uri> [--count N] [--for D] [--read]
                            watch a resource: print each update until N updates, D or Ctrl-C
  prompt <name> [json-args] render a prompt (name or server/name)
  status                    connect everything and show the status view (the "/mcp" view)
  add [-s scope] [--transport t] [-e K=V]... [-H 'Name: value']... <name> <command-or-url> [args...]
  add <name> -- <command> [args...]
                            save a server definition (scope local|project|user; default local)
  add-json <name> '<json>'  save a server definition given as a JSON entry
  get <name>                show a server's definition: scope, origin, type, command or URL
                            (secret values masked)
  import <claude-desktop|claude-code|vscode|cursor|FILE> [-s scope] [--dry-run] [--force] [names...]
                            copy other clients' server definitions into a scope (nothing is run)
  remove [-s scope] <name>  delete a saved definition (from the scope, else the file defining it)
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
  shell                     an interactive session over one long-lived host: servers stay connected
                            (state kept between calls), history, completion, live server events
  completion bash|zsh|fish  print a shell completion script (commands, options, server names)
  man                       print the manual page (roff): `mcph man | man -l -`

Global options (before the command; a command's own options follow its name):
  --mcp-config <file|json>  server config {"mcpServers":{...}}; repeatable, later wins
  --strict-mcp-config       use only --mcp-config (ignore user, project, local and plugin configs)
  --plugin-dir <dir>        also search this directory for plugins (repeatable)
  --root <dir>              offer this directory to every server as a root (repeatable); replaces
                            the "roots" of the config (default: the working directory)
  --json                    machine-readable output
  --agent <name>            tools / call through a sub-agent: its referenced servers (the parent's
                            connections) plus its inline servers, started for the command only
  --full                    tools: print whole descriptions and input schemas
  -y, --yes                 approve: accept a project definition that replaces one of yours
  --timeout <duration>      request timeout, e.g. 30s, 500ms, 2m (default 60s; a bare number is seconds); also the most a tool call
                            may take in total, progress or not (without it, progress extends a call
                            to ten request timeouts at most: 10 minutes by default)
  --connect-timeout <dur>   the most a server may take to connect and initialize, transport start
                            and handshake together (default 30s)
  -h, --help                this text
  --version                 print the version
  --debug                   every JSON-RPC message in and out, per server, on stderr, secrets
                            redacted and long messages cut; and the debug log (= MCPH_LOG_LEVEL=trace)

Exit codes: 0 ok; 1 the tool or the server reported an error (a result with isError, or a JSON-RPC
            error: unknown tool, unknown resource, bad prompt argument); 2 usage (bad arguments,
            unknown command, server, tool or option); 3 connection or protocol failure (also
            `status` when a server failed); 4 a server needs authentication (`mcph login <server>`).
            tools/resources/prompts/templates exit 0 when at least one server answered (each failure
            a line "server X: <reason>", --json "errors"); with one server named, its error's code.
--json: every command prints one JSON document on stdout with "schemaVersion": 1; an error is
        {"schemaVersion":1,"error":{"kind":..,"message":..,"exitCode":..}} (docs/cli-json.schema.json).
Config: /etc/mcph/managed-mcp.json (enterprise, exclusive), /etc/mcph/managed-settings.json,
        ~/.config/mcph/settings.json, .mcp.json (project, up to the repository root),
        local settings (~/.config/mcph/projects/<project>-<hash>/settings.local.json),
        <plugin dir>/*.mcp.json, then --mcp-config.
Agents: <plugin dir>/agents/<plugin>/*.md, ~/.config/mcph/agents/*.md, .claude/agents/*.md and
        .mcph/agents/*.md (project, up to the repository root; need `mcph approve --agent`),
        /etc/mcph/agents/*.md (policy). Files of other users, or writable by others, are
        refused; the project walk stops at a folder or .git owned by another user.
Environment: MCPH_PLUGIN_PATH (plugin dirs, ':'-separated), MCPH_LOG_LEVEL (trace|debug|info|warn|error),
             MCPH_SHELL_PREFIX (wraps stdio server commands, e.g. "docker exec -i box"),
             MCPH_CONFIG_HOME, MCPH_MANAGED_DIR (config locations), MCPH_LOCAL_CONNECT_BATCH,
             MCPH_REMOTE_CONNECT_BATCH, MCPH_RECONNECT_ATTEMPTS / _INITIAL_MS / _MAX_MS.
)";
}

std::chrono::milliseconds parse_duration(const std::string& text, bool* bare) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw Error(ErrorKind::Usage, "invalid duration '" + text + "' (try 30s, 500ms or 2m)");
    }
    const std::string unit = text.substr(used);
    double ms = 0;
    if (unit.empty()) ms = value * 1000;  // like `timeout 5` and Claude Code's seconds
    else if (unit == "ms") ms = value;
    else if (unit == "s") ms = value * 1000;
    else if (unit == "m") ms = value * 60000;
    else throw Error(ErrorKind::Usage, "invalid duration unit in '" + text + "' (use ms, s or m)");
    if (!(ms >= 1) || ms > 7.0 * 24 * 3600 * 1000)  // NaN too; below 1 ms would truncate to 0
        throw Error(ErrorKind::Usage, "duration must be positive and at most 7 days: '" + text + "'");
    if (bare) *bare = unit.empty();
    return std::chrono::milliseconds(static_cast<long long>(ms));
}

namespace {

struct OptionSpec {
    const char* long_name;
    const char* short_name;  // or nullptr
    const char* value_name;  // nullptr: a switch
    bool global;             // also accepted before the command
    const char* help;
    std::function<void(Options&, const std::string&)> apply;
};

void set_duration(std::optional<std::chrono::milliseconds>& target, Options& o, const std::string& flag,
                  const std::string& value) {
    bool bare = false;
    target = parse_duration(value, &bare);
    if (bare) o.warnings.push_back(flag + " " + value + " has no unit: read as " + value + "s (write 500ms, 30s or 2m)");
}

// --root DIR: realpath, so a server compares the root with the paths it sees (server-filesystem
// resolves symlinks too); a typo is a usage error now rather than a root the server skips.
std::filesystem::path root_directory(const std::string& value) {
    std::error_code ec;
    if (value.empty()) throw Error(ErrorKind::Usage, "--root needs a directory");
    const std::filesystem::path real = std::filesystem::canonical(value, ec);
    if (ec) throw Error(ErrorKind::Usage, "--root " + value + ": " + ec.message());
    if (!std::filesystem::is_directory(real, ec)) throw Error(ErrorKind::Usage, "--root " + value + ": not a directory");
    return real;
}

const std::vector<OptionSpec>& option_table() {
    static const std::vector<OptionSpec> table = {
        {"--mcp-config", nullptr, "<file|json>", true, "server config {\"mcpServers\":{...}}; repeatable, later wins",
         [](Options& o, const std::string& v) { o.mcp_configs.push_back(v); }},
        {"--strict-mcp-config", nullptr, nullptr, true, "use only --mcp-config",
         [](Options& o, const std::string&) { o.strict_mcp_config = true; }},
        {"--plugin-dir", nullptr, "<dir>", true, "also search this directory for plugins (repeatable)",
         [](Options& o, const std::string& v) { o.plugin_dirs.emplace_back(v); }},
        {"--root", nullptr, "<dir>", true,
         "offer this directory to every server as a root (repeatable; replaces the configured roots)",
         [](Options& o, const std::string& v) { o.roots.push_back(root_directory(v)); }},
        {"--json", nullptr, nullptr, true, "one JSON document on stdout (\"schemaVersion\": 1), errors included",
         [](Options& o, const std::string&) { o.json = true; }},
        {"--full", nullptr, nullptr, true, "whole descriptions, input schemas and every finding",
         [](Options& o, const std::string&) { o.full = true; }},
        {"--brief", nullptr, nullptr, true, "one line per tool (its description's first line)",
         [](Options& o, const std::string&) { o.brief = true; }},
        {"--yes", "-y", nullptr, true, "accept a project definition that replaces one of yours",
         [](Options& o, const std::string&) { o.yes = true; }},
        {"--scope", "-s", "<scope>", true, "local (default), project or user",
         [](Options& o, const std::string& v) {
             if (v != "local" && v != "project" && v != "user")
                 throw Error(ErrorKind::Usage, "invalid scope '" + v + "' (use local, project or user)" +
                                                   did_you_mean(v, {"local", "project", "user"}));
             o.scope = v;
         }},
        {"--transport", "-t", "<type>", false, "stdio (default for a command), http (default for a URL), sse or ws",
         [](Options& o, const std::string& v) {
             if (v != "stdio" && v != "http" && v != "sse" && v != "ws")
                 throw Error(ErrorKind::Usage, "invalid transport '" + v + "' (use stdio, http, sse or ws)" +
                                                   did_you_mean(v, {"stdio", "http", "sse", "ws"}));
             o.transport = v;
         }},
        {"--env", "-e", "<K=V>", false, "an environment variable of a stdio server (repeatable)",
         [](Options& o, const std::string& v) { o.env.push_back(v); }},
        {"--inherit-env", nullptr, "<true|false|NAMES>", false,
         "which of your variables a stdio server gets: true (all), false (the allow-list) or NAME,PREFIX_*,...",
         [](Options& o, const std::string& v) { o.inherit_env = v; }},
        {"--header", "-H", "<'Name: value'>", false, "an HTTP header of a remote server (repeatable)",
         [](Options& o, const std::string& v) { o.headers.push_back(v); }},
        {"--timeout", nullptr, "<duration>", true,
         "request timeout, e.g. 30s, 500ms, 2m (default 60s; a bare number is seconds); also the most a "
         "tool call may take in total",
         [](Options& o, const std::string& v) { set_duration(o.timeout, o, "--timeout", v); }},
        {"--connect-timeout", nullptr, "<duration>", true, "the most a server may take to connect and initialize (default 30s)",
         [](Options& o, const std::string& v) { set_duration(o.connect_timeout, o, "--connect-timeout", v); }},
        {"--agent", nullptr, "<name>", true, "through a sub-agent (tools, call) or approve its file (approve)",
         [](Options& o, const std::string& v) { o.agent = v; }},
        {"--output", "-o", "<path>", false, "read: a file (or a directory for several contents); call: a directory for images, audio and blobs",
         [](Options& o, const std::string& v) { o.output = v; }},
        {"--force", "-f", nullptr, false, "replace what exists: a file (read/call -o), a server of the same name in the scope (import)", [](Options& o, const std::string&) { o.force = true; }},
        {"--prompt", nullptr, "<name>", false, "complete an argument of this prompt",
         [](Options& o, const std::string& v) { o.complete_prompt = v; }},
        {"--resource-template", nullptr, "<uri-template>", false, "complete a variable of this resource template",
         [](Options& o, const std::string& v) { o.complete_template = v; }},
        {"--debug", nullptr, nullptr, true,
         "every JSON-RPC message in and out, per server, on stderr (secrets redacted), and the debug log",
         [](Options& o, const std::string&) { o.debug = true; }},
        {"--dry-run", nullptr, nullptr, false, "show what would be written; write nothing",
         [](Options& o, const std::string&) { o.dry_run = true; }},
        {"--count", nullptr, "<n>", false, "subscribe: end the watch after this many updates",
         [](Options& o, const std::string& v) { o.subscribe_count = v; }},
        {"--for", nullptr, "<duration>", false, "subscribe: end the watch after this long, e.g. 30s or 5m",
         [](Options& o, const std::string& v) { set_duration(o.subscribe_for, o, "--for", v); }},
        {"--read", nullptr, nullptr, false, "subscribe: read and print each updated resource",
         [](Options& o, const std::string&) { o.subscribe_read = true; }},
        {"--file", nullptr, "<path>", false, "inputs forget: only the answers kept for this config file (any spelling of its path)",
         [](Options& o, const std::string& v) { o.file = v; }},
        {"--all", nullptr, nullptr, false, "inputs forget: every kept answer (of every file, or of --file's)",
         [](Options& o, const std::string&) { o.all = true; }},
        {"--help", "-h", nullptr, true, "this command's help", [](Options& o, const std::string&) { o.help = true; }},
        {"--version", nullptr, nullptr, true, "print the version", [](Options& o, const std::string&) { o.version = true; }},
    };
    return table;
}

const OptionSpec* find_option(const std::string& name) {
    for (const auto& spec : option_table())
        if (name == spec.long_name || (spec.short_name && name == spec.short_name)) return &spec;
    return nullptr;
}

bool is_option_word(const std::string& a) { return a.size() > 1 && a[0] == '-'; }

std::vector<std::string> long_names(bool global_only, const CommandSpec* command) {
    std::vector<std::string> out;
    for (const auto& spec : option_table())
        if (global_only ? spec.global : (command && std::count(command->options.begin(), command->options.end(),
                                                                spec.long_name)))
            out.emplace_back(spec.long_name);
    return out;
}

// Applies option `a` (argv[i]) if `allowed` says so; "--name=value" and "--name value" both work.
void apply_option(Options& o, int argc, char** argv, int& i, const std::vector<std::string>& allowed,
                  const std::string& where) {
    std::string a = argv[i];
    std::optional<std::string> inline_value;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
        inline_value = a.substr(eq + 1);
        a = a.substr(0, eq);
    }
    const OptionSpec* spec = find_option(a);
    if (!spec || !std::count(allowed.begin(), allowed.end(), spec->long_name))
        throw Error(ErrorKind::Usage, "unknown option " + a + " " + where + did_you_mean(a, allowed));
    std::string value;
    if (spec->value_name) {
        if (inline_value) value = *inline_value;
        else if (i + 1 < argc) value = argv[++i];
        else throw Error(ErrorKind::Usage, a + " needs a value " + spec->value_name);
    } else if (inline_value) {
        throw Error(ErrorKind::Usage, a + " takes no value");
    }
    spec->apply(o, value);
}

// The command's own options and arguments: its options anywhere until `--` (or, for `add`, until
// the server's command line starts); unknown ones are errors that name the command's help.
void parse_command_arguments(Options& o, int argc, char** argv, int i) {
    const CommandSpec* command = find_command(o.command);
    std::vector<std::string> allowed = long_names(false, command);
    allowed.emplace_back("--help");
    const std::string where = "for `mcph " + o.command + "` (see `mcph " + o.command + " --help`)";
    bool options_done = false;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (!options_done && a == "--") {
            options_done = true;
            o.dash_dash = true;
            continue;
        }
        if (!options_done && is_option_word(a)) {
            apply_option(o, argc, argv, i, allowed, where);
            continue;
        }
        o.args.push_back(a);
        if (command && command->positionals_then_rest && o.args.size() >= command->positionals_then_rest) options_done = true;
    }
}

}  // namespace

std::string option_help(const std::string& long_name) {
    const OptionSpec* spec = find_option(long_name);
    if (!spec) return {};
    std::string names = spec->short_name ? std::string(spec->short_name) + ", " + spec->long_name : "    " + std::string(spec->long_name);
    if (spec->value_name) names += std::string(" ") + spec->value_name;
    if (names.size() < 28) names.resize(28, ' ');
    else names += "  ";
    return "  " + names + spec->help + "\n";
}

Options parse_options(int argc, char** argv) {
    Options o;
    const std::vector<std::string> global = long_names(true, nullptr);
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {  // nothing after it is an mcph option: the next word is the command
            ++i;
            break;
        }
        if (!is_option_word(a)) break;
        apply_option(o, argc, argv, i, global, "(global options go before the command; see `mcph --help`)");
    }
    if (i >= argc) return o;
    o.command = argv[i++];
    if (o.command == "help") {  // `mcph help <command>` is `mcph <command> --help`
        o.help = true;
        if (i < argc) o.command = argv[i++];
        else o.command.clear();
        if (i < argc) throw Error(ErrorKind::Usage, "usage: mcph help [command]");
        if (!o.command.empty() && !find_command(o.command))
            throw Error(ErrorKind::Usage, "unknown command '" + o.command + "'" + did_you_mean(o.command, command_names()) +
                                              " (see mcph --help)");
        return o;
    }
    if (!find_command(o.command))
        throw Error(ErrorKind::Usage, "unknown command '" + o.command + "'" + did_you_mean(o.command, command_names()) +
                                          " (see mcph --help)");
    parse_command_arguments(o, argc, argv, i);
    return o;
}

}  // namespace mcph::cli

namespace mcph::cli {
std::vector<OptionInfo> option_infos() {
    std::vector<OptionInfo> out;
    for (const auto& spec : option_table())
        out.push_back({spec.long_name, spec.short_name ? spec.short_name : "", spec.value_name ? spec.value_name : "",
                       spec.global, spec.help});
    return out;
}
}  // namespace mcph::cli
