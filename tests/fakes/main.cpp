// fake-mcp-server — a tiny scripted MCP server on stdio that misbehaves on purpose, for mcph's
// integration tests. Usage: see kUsage below and README.md.
#include "modes.hpp"
#include "options.hpp"
#include "wire.hpp"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

namespace {

constexpr const char* kUsage =
    "usage: fake-mcp-server [--mode MODE] [--log FILE] [--tools-file FILE] [--init-delay-ms N]\n"
    "                       [--trace FILE] [--exit-after-init-ms N] [--instructions TEXT]\n"
    "                       [--text-file FILE]\n"
    "                       [--instructions-file FILE] [--prompts-file FILE] [--skills-file FILE]\n"
    "                       [--elicit-file FILE] [--elicit-delay-ms N] [--updates N]\n";

// A non-negative whole number of up to nine digits (milliseconds, or a count of updates), or nullopt.
std::optional<int> parse_count(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9) return std::nullopt;
    return std::stoi(text);
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode_name = "normal";
    std::string log_path;
    fake::Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if ((arg == "--mode" || arg == "--log") && has_value) {
            (arg == "--mode" ? mode_name : log_path) = argv[++i];
        } else if (arg == "--tools-file" && has_value) {
            options.tools_file = argv[++i];
        } else if (arg == "--trace" && has_value) {
            options.trace_path = argv[++i];
        } else if (arg == "--text-file" && has_value) {
            options.text_file = argv[++i];
        } else if (arg == "--instructions" && has_value) {
            options.instructions = argv[++i];
        } else if (arg == "--instructions-file" && has_value) {
            options.instructions_file = argv[++i];
        } else if (arg == "--prompts-file" && has_value) {
            options.prompts_file = argv[++i];
        } else if (arg == "--skills-file" && has_value) {
            options.skills_file = argv[++i];
        } else if (arg == "--elicit-file" && has_value) {
            options.elicit_file = argv[++i];
        } else if (arg == "--updates" && has_value) {
            const auto n = parse_count(argv[++i]);
            if (!n) {
                std::fprintf(stderr, "fake-mcp-server: --updates needs a number, not '%s'\n", argv[i]);
                return 2;
            }
            options.flood_updates = *n;
        } else if ((arg == "--init-delay-ms" || arg == "--exit-after-init-ms" || arg == "--elicit-delay-ms") && has_value) {
            const auto ms = parse_count(argv[++i]);
            if (!ms) {
                std::fprintf(stderr, "fake-mcp-server: %s needs a number of milliseconds, not '%s'\n", arg.c_str(), argv[i]);
                return 2;
            }
            if (arg == "--init-delay-ms")
                options.init_delay_ms = *ms;
            else if (arg == "--elicit-delay-ms")
                options.elicit_delay_ms = *ms;
            else
                options.exit_after_init_ms = *ms;
        } else if (arg == "--help") {
            std::printf("%smodes: %s\n", kUsage, fake::mode_names());
            return 0;
        } else {
            std::fprintf(stderr, "fake-mcp-server: unknown argument '%s'\n%s", arg.c_str(), kUsage);
            return 2;
        }
    }
    const auto mode = fake::parse_mode(mode_name);
    if (!mode) {
        std::fprintf(stderr, "fake-mcp-server: unknown mode '%s' (modes: %s)\n", mode_name.c_str(), fake::mode_names());
        return 2;
    }

    fake::Trace trace(options.trace_path);
    trace.event("start");

    std::ios::sync_with_stdio(false);
    fake::Wire wire(log_path);
    fake::FakeServer server(*mode, wire, options, trace);
    server.on_start();
    std::string line;
    fake::Json message;
    while (wire.read_line(line)) {
        wire.log_received(line);
        if (line.empty()) continue;
        if (!fake::parse(line, message)) continue;  // a client sending garbage is not under test
        server.handle(message);
    }
    return 0;  // stdin closed: the client wants us gone
}
