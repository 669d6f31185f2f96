// fake-mcp-server — a tiny scripted MCP server on stdio that misbehaves on purpose, for mcph's
// integration tests. Usage: fake-mcp-server --mode MODE [--log FILE]. See README.md.
#include "modes.hpp"
#include "wire.hpp"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    std::string mode_name = "normal";
    std::string log_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--mode" || arg == "--log") && i + 1 < argc) {
            (arg == "--mode" ? mode_name : log_path) = argv[++i];
        } else if (arg == "--help") {
            std::printf("usage: fake-mcp-server --mode MODE [--log FILE]\nmodes: %s\n", fake::mode_names());
            return 0;
        } else {
            std::fprintf(stderr, "fake-mcp-server: unknown argument '%s'\n", arg.c_str());
            return 2;
        }
    }
    const auto mode = fake::parse_mode(mode_name);
    if (!mode) {
        std::fprintf(stderr, "fake-mcp-server: unknown mode '%s' (modes: %s)\n", mode_name.c_str(), fake::mode_names());
        return 2;
    }

    std::ios::sync_with_stdio(false);
    fake::Wire wire(log_path);
    fake::FakeServer server(*mode, wire);
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
