// mcph — the command-line MCP host. Parses options, runs one command, maps failures to exit codes.
#include "command_table.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "fd_limit.hpp"
#include "json_output.hpp"
#include "options.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>
#include <mcph/version.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace mcph::cli {

int exit_code_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::Usage:
        case ErrorKind::NotFound: return kExitUsage;
        case ErrorKind::Remote: return kExitReported;  // the server answered, with a JSON-RPC error
        default: return kExitFailure;
    }
}

}  // namespace mcph::cli

namespace {

using namespace mcph::cli;

const char* hint_for(mcph::ErrorKind kind, bool auth, const std::string& command) {
    if (auth) return "sign in with `mcph login <server>`";
    // What `inputs` looks for are kept answers, not servers, tools or prompts.
    if (kind == mcph::ErrorKind::NotFound && command == "inputs") return "list the kept answers with `mcph inputs list`";
    switch (kind) {
        case mcph::ErrorKind::Usage: return "run `mcph --help`, or `mcph help <command>`, for usage";
        case mcph::ErrorKind::NotFound: return "list what exists with `mcph servers`, `mcph tools` or `mcph prompts`";
        case mcph::ErrorKind::Remote: return "the server refused the request; its message is above";
        case mcph::ErrorKind::Plugin: return "run `mcph plugins` to see which plugins loaded and why others were refused";
        case mcph::ErrorKind::Timeout: return "the server is slow or stuck: raise --timeout, or check the server";
        case mcph::ErrorKind::Connection:
            return "check the server's command/url; `mcph status` shows each server's state and last error";
        default: return "`mcph status` shows each server's state and last error";
    }
}

// The host's own debug lines go through its logger, which does not exist yet at start-up; this one
// line follows the same MCPH_LOG_LEVEL rule and format.
void debug_log(const std::string& message) {
    const char* level = std::getenv("MCPH_LOG_LEVEL");
    if (level && (std::strcmp(level, "debug") == 0 || std::strcmp(level, "trace") == 0)) std::cerr << "mcph: [debug] cli: " << message << std::endl;
}

// Whether --json was asked for, read before parsing so that a usage error is JSON too.
bool wants_json(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) return false;
        if (std::strcmp(argv[i], "--json") == 0) return true;
    }
    return false;
}

// Every failure is said on stderr for people; with --json it is also the one document on stdout.
int report_failure(bool json, const std::string& kind, const std::string& message, const char* hint, int code) {
    std::cerr << "mcph: error: " << mcph::terminal_safe(message) << "\n       (" << hint << ")\n";
    if (json) print_json_error(kind, message, code);
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    // First, before any thread or descriptor: 500 stdio servers need ~2,500 descriptors.
    debug_log(raise_fd_limit().describe());
    bool json = wants_json(argc, argv);
    std::string command;  // for the hint after a failure
    try {
        Options options = parse_options(argc, argv);
        json = options.json;
        command = options.command;  // parsed: `add s cmd --json` passes --json to the server, not to mcph
        for (const auto& w : options.warnings) std::cerr << "mcph: warning: " << w << "\n";
        // --debug is MCPH_LOG_LEVEL=trace: the host's debug lines and the wire trace. Set here, before
        // the host (and any thread) exists; stdio servers do not inherit it (their allow-list).
        if (options.debug) ::setenv("MCPH_LOG_LEVEL", "trace", 1);
        if (options.version) {
            // The library's version: the CLI is a thin front end over the libmcph it runs with.
            std::cout << "mcph " << mcph::version() << " (MCP 2025-11-25; plugin ABI 1)\n";
            return 0;
        }
        if (options.help && !options.command.empty()) {
            std::cout << command_help(*find_command(options.command));
            return 0;
        }
        if (options.help || options.command.empty()) {
            (options.help ? std::cout : std::cerr) << usage_text();
            if (!options.help) return report_failure(json, "usage", "no command given", "run `mcph --help` for usage", kExitUsage);
            return 0;
        }
        return run_command(options);
    } catch (const AuthNeeded& e) {
        return report_failure(json, "auth-needed", e.what(), hint_for(e.kind(), true, command), kExitAuthNeeded);
    } catch (const mcph::Error& e) {
        // An error message carries what a server said (a JSON-RPC error, an OAuth error_description).
        return report_failure(json, mcph::to_string(e.kind()), e.what(), hint_for(e.kind(), false, command), exit_code_for(e.kind()));
    } catch (const std::exception& e) {
        return report_failure(json, "internal", std::string("internal error: ") + e.what(), "a bug in mcph: please report it",
                              kExitFailure);
    }
}
