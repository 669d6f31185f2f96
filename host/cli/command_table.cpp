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
         "warnings. --brief: one line per tool. --full: also the input schemas and every finding.\n"
         "Each server is asked on its own: one that fails is a line \"server X: <reason>\" (--json: \"errors\") and\n"
         "the others are shown. Exit 0 when at least one server answered; a single named server that failed\n"
         "exits with its error's code (3 connection, 4 auth needed); an unknown name exits 2.",
         "  mcph tools\n  mcph tools github --brief\n  mcph tools --json\n",
         {MCPH_CONNECTING, "--full", "--brief", "--agent"}},
        {"call", "mcph call <tool> [json-args] [-o DIR]",
         "Calls a tool by mapped name (mcp__server__tool) or server/tool; arguments as a JSON object.\n"
         "Exit 1 when the tool reports an error (isError) or the server answers with a JSON-RPC error.\n"
         "-o DIR: image, audio and blob content is saved to DIR as <n>.<ext> (n: the item's position, ext from\n"
         "its mimeType), each path printed; an existing file is kept (exit 2) unless --force. Text is printed.",
         "  mcph call mcp__h__add '{\"a\":2,\"b\":3}'\n  mcph call h/add '{\"a\":2,\"b\":3}' --timeout 30s\n"
         "  mcph call every/get-tiny-image -o ./out\n",
         {MCPH_CONNECTING, "--agent", "--output", "--force"}},
        {"resources", "mcph resources [--json] [server]",
         "Lists the resources of every server, or of the one named. Each server is asked on its own: one that\n"
         "fails is a line \"server X: <reason>\" (--json: \"errors\") and the others are shown; a server without\n"
         "the capability is \"no resources\". Exit 0 when at least one server answered; a single named server\n"
         "that failed exits with its error's code (1 a JSON-RPC error, 3 connection, 4 auth); unknown name: 2.",
         "  mcph resources\n  mcph resources git --json\n", {MCPH_CONNECTING}},
        {"read", "mcph read <uri> [server] [-o FILE|DIR] [--force]",
         "Reads a resource (from the server named, else the first that has it).\n"
         "-o FILE: its content is written to FILE (text as UTF-8, a blob base64-decoded); an existing file is\n"
         "kept (exit 2) unless --force. A resource with several contents needs -o DIR (an existing directory):\n"
         "each is written there as <n>.<ext> (n from 1, ext from its mimeType). The paths are printed.",
         "  mcph read notes://today\n  mcph read file:///tmp/x fs --json\n  mcph read demo://resource/static/document/2 every -o doc.bin\n",
         {MCPH_CONNECTING, "--output", "--force"}},
        {"skills", "mcph skills [server] | mcph skills load <server> <skill>",
         "Lists skills (io.modelcontextprotocol/skills): name, uri, file count; nothing of a skill is fetched.\n"
         "`skills load` loads one and prints its SKILL.md, verified against the list entry.",
         "  mcph skills\n  mcph skills load docs release-notes\n", {MCPH_CONNECTING}},
        {"prompts", "mcph prompts [--json] [server]",
         "Lists the prompts of every server, or of the one named; each server is asked on its own (as `resources`).",
         "  mcph prompts\n  mcph prompts every\n", {MCPH_CONNECTING}},
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
         "  mcph add --transport http -H 'Authorization: Bearer ${TOKEN}' api https://api.example.com/mcp\n"
         "  mcph add --inherit-env HTTPS_PROXY,NO_PROXY fetch -- npx -y mcp-fetch-server\n",
         {"--scope", "--transport", "--env", "--header", "--json", "--inherit-env"}, 2},
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
        {"list", "mcph list [--json] [--timeout D]",
         "Health check: connects every configured server (at most 5s each unless --timeout or --connect-timeout\n"
         "says otherwise) and prints one line per server: \"✔ name  transport  (N tools)\" or \"✗ name  transport\n"
         "reason\" (failed, needs authentication, disabled, a config problem, awaiting approval, denied by\n"
         "policy). Exit 0 when every server connected (disabled and policy-denied ones do not count), 4 when\n"
         "the only failures need authentication, else 3. Colour only on a terminal, never with NO_COLOR.",
         "  mcph list\n  mcph list --json --timeout 2s\n", {MCPH_CONNECTING}},
        {"templates", "mcph templates [--json] [server]",
         "Lists the resource templates (resources/templates/list) of every server, or of the one named; each\n"
         "server is asked on its own (as `resources`).",
         "  mcph templates\n  mcph templates every --json\n", {MCPH_CONNECTING}},
        {"complete", "mcph complete <server> (--prompt NAME | --resource-template URI) <argument> [value]",
         "Asks the server for completions (completion/complete) of a prompt's argument or a resource\n"
         "template's variable, given what is typed so far (default: empty); prints one value per line\n"
         "(--json: the values with hasMore and total).",
         "  mcph complete every --prompt complex-prompt temperature 1\n"
         "  mcph complete every --resource-template 'demo://resource/dynamic/text/{resourceId}' resourceId 1\n",
         {MCPH_CONNECTING, "--prompt", "--resource-template"}},
        {"log-level", "mcph log-level <server> <level>",
         "Sets the server's logging level (logging/setLevel): debug, info, notice, warning, error, critical,\n"
         "alert or emergency (anything else exits 2). Log lines the server sends are printed on stderr.",
         "  mcph log-level every debug\n", {MCPH_CONNECTING}},
        {"subscribe", "mcph subscribe <server> <uri> [--count N] [--for D] [--read] [--json]",
         "Subscribes to a resource (resources/subscribe; in the 2026 era the listen stream) and prints\n"
         "\"updated <uri>\" for each notifications/resources/updated the server sends (--read: and the\n"
         "resource's new contents), until --count updates arrived, --for has passed, or Ctrl-C; then it\n"
         "unsubscribes. Without --count or --for it watches until Ctrl-C. A server whose resources\n"
         "capability has no \"subscribe\": true exits 1; a server that disconnects during the watch exits 3.\n"
         "--json prints one document when the watch ends (Ctrl-C included) with the updates.",
         "  mcph subscribe every demo://resource/static/document/architecture.md --count 1\n"
         "  mcph subscribe files file:///tmp/notes.txt --for 10m --read\n",
         {MCPH_CONNECTING, "--count", "--for", "--read"}},
        {"shell", "mcph shell [--json]",
         "An interactive session over one long-lived host: servers stay connected, so the state they keep in\n"
         "memory survives between commands. Type the CLI's commands without `mcph` (help works), `exit [N]`\n"
         "or `quit`. On a terminal: history (<config home>/shell_history), Tab completes commands, servers\n"
         "and tools, server log and list-change lines appear above the prompt, Ctrl-C cancels a running\n"
         "call (the server gets notifications/cancelled) or clears the line, Ctrl-D ends. Servers connect\n"
         "before the first prompt; while one is slow to connect (then, or in a command such as `tools`,\n"
         "`call` or `reconnect`) the shell names it, and Ctrl-C stops the wait: the server goes on\n"
         "connecting and its outcome is printed above the prompt. Without a terminal it waits for every\n"
         "server, reads one command per line and exits with the last command's status (130: cancelled).\n"
         "--json: every command prints one JSON document, its failures too (as one-shot commands do).",
         "  mcph shell\n  printf 'tools\\ncall mem/recall {}\\n' | mcph shell\n  printf 'tools\\n' | mcph shell --json\n",
         {"--timeout", "--connect-timeout", "--json"}},
        {"completion", "mcph completion bash|zsh|fish",
         "Prints a shell completion script for mcph (commands, each command's options, server names).\n"
         "Server names are looked up with `mcph completion servers`, which reads the config and connects\n"
         "nothing; tool names are not completed (that would start every server), `call` completes `server/`.",
         "  mcph completion bash > ~/.local/share/bash-completion/completions/mcph\n"
         "  mcph completion zsh > \"${fpath[1]}/_mcph\"\n"
         "  mcph completion fish > ~/.config/fish/completions/mcph.fish\n",
         {}},
        {"man", "mcph man", "Prints mcph's manual page (roff), generated from this help.",
         "  mcph man | man -l -\n  mcph man > mcph.1\n", {}},
        {"import", "mcph import <claude-desktop|claude-code|vscode|cursor|FILE> [-s scope] [--dry-run] [--force] [names...]",
         "Copies other clients' server definitions into a scope (default local); nothing is connected or run.\n"
         "claude-desktop: ~/.config/Claude/claude_desktop_config.json; claude-code: ~/.claude.json (its servers, then\n"
         "those it keeps for this directory under projects) and ./.mcp.json, this directory's winning;\n"
         "vscode: ~/.config/Code/User/settings.json (mcp.servers) and ./.vscode/mcp.json; cursor: ~/.cursor/mcp.json\n"
         "and ./.cursor/mcp.json; or any FILE with mcpServers/servers. Each entry is checked like `mcph add`; a\n"
         "bad one is refused (named, with why) and the rest imported. A name already in the scope is skipped\n"
         "unless --force. Entries using VS Code ${input:...} are refused (inputs do not travel). Exit 0 when all\n"
         "were imported, 1 when some were skipped or refused, 2 for a bad source or a malformed file (nothing\n"
         "written).",
         "  mcph import claude-desktop --dry-run\n  mcph import cursor -s user github\n  mcph import ./mcp.json --force\n",
         {"--scope", "--dry-run", "--force", "--json"}},
        {"inputs", "mcph inputs list [--json] | mcph inputs forget <id> [--file PATH] | mcph inputs forget --all [--file PATH]",
         "The answers to config files' inputs (VS Code \"inputs\", ${input:id}) that mcph keeps in the secret store:\n"
         "asked once on a terminal, then used by every command. `list` shows each one's input id, whether it\n"
         "is a password, its file (the canonical path: ./a.json and $PWD/a.json are one file) and the file's\n"
         "description — never the value. `forget <id>` removes that input's answer (of every file, or of\n"
         "--file's), `forget --all` every answer: the next command asks again, and without a terminal the\n"
         "server needing it is a config problem naming the input. No config is read and nothing connects.\n"
         "An id that has no kept answer exits 2 (with \"did you mean\").",
         "  mcph inputs list\n  mcph inputs forget api-key\n  mcph inputs forget api-key --file .vscode/mcp.json\n"
         "  mcph inputs forget --all\n",
         {"--file", "--all", "--json"}},
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
