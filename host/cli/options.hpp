// Command-line parsing for `mcph`: global options before the command, then the command's own
// options and arguments (command_table.hpp says which options each command takes).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcph::cli {

struct Options {
    std::vector<std::string> mcp_configs;  // each a file path or inline JSON
    bool strict_mcp_config = false;        // only --mcp-config: no user, project, local or plugin files
    std::string scope;                     // add/remove/get: user, project or local
    std::vector<std::filesystem::path> plugin_dirs;
    // --root DIR (repeatable): the roots every server is offered instead of the configured ones;
    // each already made absolute and canonical, and checked to be a directory, when parsed.
    std::vector<std::filesystem::path> roots;
    bool json = false;
    bool full = false;   // tools: whole descriptions, schemas and every finding
    bool brief = false;  // tools: one line per tool
    bool yes = false;    // --yes: approve a project definition although it replaces one of yours
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<std::chrono::milliseconds> connect_timeout;
    std::string command;
    std::vector<std::string> args;  // the command's positional arguments
    bool help = false;              // --help: of the command when there is one
    bool version = false;
    std::string agent;  // --agent NAME: tools/call through that sub-agent's overlay; approve its file
    // add: the entry's transport, environment ("K=V") and headers ("Name: value"), as typed.
    std::string transport;
    std::vector<std::string> env;
    std::vector<std::string> headers;
    std::string inherit_env;  // add --inherit-env: "true", "false" or NAME,NAME,...; empty: not given
    bool dash_dash = false;  // add: `--` was given (what follows is the server's command line)
    // The shell: polled while a tool call runs; true cancels it (Ctrl-C). Unset outside the shell.
    std::function<bool()> is_cancelled;
    // The shell: runs a command's connect step (connect_all, one server's connect or reconnect)
    // so that Ctrl-C stops waiting for it (connect_step.hpp); the names are the servers the step
    // connects (empty: all). Unset outside the shell: the step runs at once.
    std::function<void(std::function<void()>, const std::vector<std::string>&)> run_connect;
    bool debug = false;  // --debug: the wire trace and the debug log on stderr (MCPH_LOG_LEVEL=trace)
    bool dry_run = false;  // import: show what would be written, write nothing
    std::vector<std::string> warnings;  // said on stderr before the command runs (e.g. a bare duration)
    // read -o FILE|DIR, call -o DIR: where content is saved; --force: an existing file is replaced.
    std::string output;
    bool force = false;
    // complete: what the argument belongs to (exactly one of them).
    std::string complete_prompt;
    std::string complete_template;
    // subscribe: end the watch after this many updates (as typed; checked by the command), after
    // this long; --read shows each updated resource's contents.
    std::string subscribe_count;
    std::optional<std::chrono::milliseconds> subscribe_for;
    bool subscribe_read = false;
    // inputs forget: only the answers kept for this config file (--file); every answer (--all).
    std::string file;
    bool all = false;
};

// Throws mcph::Error(Usage) with a message that names the option or argument and the help to read.
Options parse_options(int argc, char** argv);

// "30s", "500ms", "2m"; a bare number means seconds (then `bare` is set, for a warning). Zero or
// negative is refused.
std::chrono::milliseconds parse_duration(const std::string& text, bool* bare = nullptr);

const char* usage_text();

}  // namespace mcph::cli

namespace mcph::cli {
// "  -s, --scope <scope>   add/remove/get: ..." for a command's help; empty for an unknown name.
std::string option_help(const std::string& long_name);
}  // namespace mcph::cli

namespace mcph::cli {
// The option table as data, for the generated shell completion scripts and man page.
struct OptionInfo {
    std::string long_name;   // "--scope"
    std::string short_name;  // "-s", or empty
    std::string value_name;  // "<scope>", or empty for a switch
    bool global = false;     // also accepted before the command
    std::string help;
};
std::vector<OptionInfo> option_infos();
}  // namespace mcph::cli
