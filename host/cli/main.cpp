// mcph — the command-line MCP host. Parses options, runs one command, maps failures to exit codes.
#include "commands.hpp"
#include "fd_limit.hpp"
#include "options.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>
#include <mcph/version.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

int exit_code_for(mcph::ErrorKind kind) {
    switch (kind) {
        case mcph::ErrorKind::Usage:
        case mcph::ErrorKind::NotFound: return kExitUsage;
        default: return kExitFailure;
    }
}

const char* hint_for(mcph::ErrorKind kind) {
    switch (kind) {
        case mcph::ErrorKind::Usage: return "run `mcph --help` for usage";
        case mcph::ErrorKind::NotFound: return "list what exists with `mcph servers`, `mcph tools` or `mcph prompts`";
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
    if (level && std::strcmp(level, "debug") == 0) std::cerr << "mcph: [debug] cli: " << message << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
    // First, before any thread or descriptor: 500 stdio servers need ~2,500 descriptors.
    debug_log(mcph::cli::raise_fd_limit().describe());
    try {
        mcph::cli::Options options = mcph::cli::parse_options(argc, argv);
        if (options.version) {
            // The library's version: the CLI is a thin front end over the libmcph it runs with.
            std::cout << "mcph " << mcph::version() << " (MCP 2025-11-25; plugin ABI 1)\n";
            return 0;
        }
        if (options.help || options.command.empty()) {
            (options.help ? std::cout : std::cerr) << mcph::cli::usage_text();
            return options.help ? 0 : kExitUsage;
        }
        return mcph::cli::run_command(options);
    } catch (const mcph::Error& e) {
        // An error message carries what a server said (a JSON-RPC error, an OAuth error_description).
        std::cerr << "mcph: error: " << mcph::terminal_safe(e.what()) << "\n       (" << hint_for(e.kind()) << ")\n";
        return exit_code_for(e.kind());
    } catch (const std::exception& e) {
        std::cerr << "mcph: internal error: " << mcph::terminal_safe(e.what()) << "\n";
        return kExitFailure;
    }
}
