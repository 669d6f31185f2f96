#include "command_table.hpp"

#include "options.hpp"

namespace mcph::cli {
namespace {

// Options of every command that connects to servers.
#define MCPH_CONNECTING "--json", "--timeout", "--connect-timeout"

const std::vector<CommandSpec>& table() {
    static const std::vector<CommandSpec> commands = {
        {"demo", "mcph demo", "Runs the built-in demo against the bundled hello-server (no config needed).", "  mcph demo\n",
         {}},
        {"servers", "mcph servers [--json]",
         "Lists the configured servers (name, transport, scope, state, origin) and the ones left out, with why.\n"
         "Nothing is connected.",
         "  mcph servers\n  mcph servers --json\n", {"--json"}},
        {"tools", "mcph tools [--brief|--full] [--json] [server]",
         "Connects and lists tools (mapped names: mcp__{server}__{tool}) with their whole descriptions, wrapped\n"
         "to the terminal, and their parameters (name, type, required, description), with the tool scanner's\n"
         "warnings. --brief: one line per tool. --full: also the input schemas and every finding.",
         "  mcph tools\n  mcph tools github --brief\n  mcph tools --json\n",
         {MCPH_CONNECTING, "--full", "--brief", "--agent"}},
        {"call", "mcph call <tool> [json-args]",
         "Calls a tool by mapped name (mcp__server__tool) or server/tool; arguments as a JSON object.\n"
         "Exit 1 when the tool reports an error (isError) or the server answers with a JSON-RPC error.",
         "  mcph call mcp__h__add '{\"a\":2,\"b\":3}'\n  mcph call h/add '{\"a\":2,\"b\":3}' --timeout 30s\n",
         {MCPH_CONNECTING, "--agent"}},
        {"resources", "mcph resources [--json]", "Lists the resources of every server.", "  mcph resources\n",
         {MCPH_CONNECTING}},
        {"read", "mcph read <uri> [server]", "Reads a resource (from the server named, else the first that has it).",
         "  mcph read notes://today\n  mcph read file:///tmp/x fs --json\n", {MCPH_CONNECTING}},
        {"skills", "mcph skills [server] | mcph skills load <server> <skill>",
         "Lists skills (io.modelcontextprotocol/skills): name, uri, file count; nothing of a skill is fetched.\n"
         "`skills load` loads one and prints its SKILL.md, verified against the list entry.",
         "  mcph skills\n  mcph skills load docs release-notes\n", {MCPH_CONNECTING}},
        {"prompts", "mcph prompts [--json]", "Lists the prompts of every server.", "  mcph prompts\n", {MCPH_CONNECTING}},
        {"prompt", "mcph prompt <name|server/name> [json-args]", "Renders a prompt.",
         "  mcph prompt review-code '{\"code\":\"x = 1\"}'\n", {MCPH_CONNECTING}},
        {"status", "mcph status [--json]",
         "Connects everything and shows the status view (the \"/mcp\" view). Exits 3 when a server failed,\n"
         "4 when one needs authentication (and none failed): usable as a health check.",
         "  mcph status\n  mcph status --json | jq '.servers[].state'\n", {MCPH_CONNECTING}},
        {"add",
         "mcph add [-s|--scope user|project|local] [-t|--transport stdio|http|sse|ws] [-e|--env K=V]...\n"
         "         [-H|--header 'Name: value']... <name> <command-or-url> [args...]\n"
         "       mcph add [options] <name> -- <command> [args...]",
         "Saves a server definition (default scope: local). Everything after the command (or after `--`) is\n"
         "the server's own command line, options included. Checked before anything is saved: the name, each\n"
         "K=V and header, a URL for stdio or a command for http/sse/ws are refused (exit 2, nothing saved).",
         "  mcph add memory -- npx -y @modelcontextprotocol/server-memory\n"
         "  mcph add -e API_KEY=xyz -s user weather node weather.js --verbose\n"
         "  mcph add --transport http -H 'Authorization: Bearer ${TOKEN}' api https://api.example.com/mcp\n",
         {"--scope", "--transport", "--env", "--header", "--json"}, 2},
        {"add-json", "mcph add-json [-s scope] <name> '<json>'",
         "Saves a server definition given as the JSON of an mcpServers entry (validated as one).",
         "  mcph add-json time '{\"command\":\"uvx\",\"args\":[\"mcp-server-time\"]}'\n", {"--scope", "--json"}},
        {"get", "mcph get <name> [--json]",
         "Shows a server's definition: scope, origin, type, command/args/env or URL/headers. Values of env\n"
         "entries and headers are masked (${VAR} references are shown, they are not secrets).",
         "  mcph get github\n  mcph get github --json\n", {"--json"}},
        {"remove", "mcph remove [-s scope] <name>", "Deletes a saved definition (from the scope, else the file defining it).",
         "  mcph remove memory\n  mcph remove -s user memory\n", {"--scope", "--json"}},
        {"enable", "mcph enable <name>", "Switches a server on for this project (your local settings).", "", {"--json"}},
        {"disable", "mcph disable <name>", "Switches a server off for this project (your local settings).", "", {"--json"}},
        {"approve", "mcph approve [-y] <name> | mcph approve --agent <name>",
         "Approves a server's definition and pins its tools, prompts, resources and instructions, shown in\n"
         "full with the scanner's findings (--yes: even when a project definition replaces yours); or a\n"
         "project agent file as it is now.",
         "  mcph approve github\n", {"--yes", "--agent", "--json", "--timeout", "--connect-timeout"}},
        {"migrate-local", "mcph migrate-local",
         "Moves <project>/.mcph/settings.local.json to your local settings in the config home.", "", {"--json"}},
        {"reconnect", "mcph reconnect <name>", "Reconnects now, with a fresh attempt budget.", "", {MCPH_CONNECTING}},
        {"plugins", "mcph plugins [--json]", "Lists plugins found, loaded or refused (with the reason).", "", {"--json"}},
        {"agents", "mcph agents [--json]",
         "Lists sub-agents with their servers, whether a project agent is approved, and files not used.", "", {"--json"}},
        {"login", "mcph login <server>", "Signs in to a server that needs auth (opens the browser).", "",
         {MCPH_CONNECTING}},
        {"logout", "mcph logout <server>", "Forgets a server's stored credentials.", "", {"--json"}},
        {"import", "mcph import <claude-desktop|claude-code|vscode|cursor|FILE> [-s scope] [--dry-run] [--force] [names...]",
         "Copies other clients' server definitions into a scope (default local); nothing is connected or run.\n"
         "claude-desktop: ~/.config/Claude/claude_desktop_config.json; claude-code: ~/.claude.json and ./.mcp.json;\n"
         "vscode: ~/.config/Code/User/settings.json (mcp.servers) and ./.vscode/mcp.json; cursor: ~/.cursor/mcp.json\n"
         "and ./.cursor/mcp.json; or any FILE with mcpServers/servers. Each entry is checked like `mcph add`; a\n"
         "bad one is refused (named, with why) and the rest imported. A name already in the scope is skipped\n"
         "unless --force. Entries using VS Code ${input:...} are refused (inputs do not travel). Exit 0 when all\n"
         "were imported, 1 when some were skipped or refused, 2 for a bad source or a malformed file (nothing\n"
         "written).",
         "  mcph import claude-desktop --dry-run\n  mcph import cursor -s user github\n  mcph import ./mcp.json --force\n",
         {"--scope", "--dry-run", "--force", "--json"}},
    };
    return commands;
}

}  // namespace

const CommandSpec* find_command(const std::string& name) {
    for (const auto& c : table())
        if (name == c.name) return &c;
    return nullptr;
}

std::vector<std::string> command_names() {
    std::vector<std::string> out;
    for (const auto& c : table()) out.emplace_back(c.name);
    return out;
}

std::string command_help(const CommandSpec& spec) {
    std::string out = std::string("usage: ") + spec.synopsis + "\n\n" + spec.description + "\n";
    out += "\nOptions:\n";
    for (const auto& name : spec.options) out += option_help(name);
    out += option_help("--help");
    if (*spec.examples) out += std::string("\nExamples:\n") + spec.examples;
    out += "\nExit codes: 0 ok, 1 the tool or server reported an error, 2 usage, 3 connection or protocol\n"
           "failure, 4 authentication needed. Global options (--mcp-config, --plugin-dir, ...) go before the\n"
           "command: see `mcph --help`.\n";
    return out;
}

}  // namespace mcph::cli
