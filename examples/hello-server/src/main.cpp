// hello-server — a small, fast MCP server: tool `add` (plus `echo` and `countdown`), resource
// notes://today, prompt review-code. stdio by default; Streamable HTTP with --http.
#include "options.hpp"
#include "servers.hpp"

#include <malloc.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace {

constexpr const char* kUsage =
    "usage: hello-server [--notes PATH] [--verbose]\n"
    "       hello-server --http [--host ADDR] [--port N] [--get-stream] [--notes PATH] [--verbose]\n"
    "\n"
    "An example MCP server (protocol 2025-11-25, also 2025-06-18 and 2025-03-26).\n"
    "  tools:     add(a, b), echo(text), countdown(steps=3, delayMs=200)\n"
    "  resource:  notes://today  (the file given by --notes, default ./notes.txt)\n"
    "  prompt:    review-code(code)\n"
    "\n"
    "  --http         serve Streamable HTTP on http://HOST:PORT/mcp instead of stdio; prints\n"
    "                 'listening on http://HOST:PORT/mcp' on stdout once ready\n"
    "  --host ADDR    address to bind (default 127.0.0.1)\n"
    "  --port N       port (default 0 = ephemeral)\n"
    "  --get-stream   answer a session's GET with an SSE stream that stays open, silent, until the\n"
    "                 client closes it (default: 405, no server-initiated stream)\n"
    "  --notes PATH   notes file for notes://today (default notes.txt)\n"
    "  --verbose      log each request on stderr\n"
    "  --version      print the version\n"
    "  --help         this text\n";

int usage_error(const std::string& message) {
    std::fprintf(stderr, "hello-server: %s\n%s", message.c_str(), kUsage);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    hello::ServerOptions options;
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= argc) return false;
            out = argv[++i];
            return true;
        };
        std::string v;
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (arg == "--version") {
            std::printf("hello-server %s\n", HELLO_SERVER_VERSION);
            return 0;
        } else if (arg == "--http") {
            options.http = true;
        } else if (arg == "--get-stream") {
            options.get_stream = true;
        } else if (arg == "--verbose" || arg == "-v") {
            options.verbose = true;
        } else if (arg == "--host") {
            if (!value(options.host)) return usage_error("--host needs a value");
        } else if (arg == "--notes") {
            if (!value(options.notes_path)) return usage_error("--notes needs a value");
        } else if (arg == "--port") {
            if (!value(v)) return usage_error("--port needs a value");
            unsigned port = 0;
            auto r = std::from_chars(v.data(), v.data() + v.size(), port);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || port > 65535)
                return usage_error("bad --port '" + v + "'");
            options.port = static_cast<std::uint16_t>(port);
        } else {
            return usage_error("unknown argument '" + std::string(arg) + "'");
        }
    }
    // Large messages (1 MB echo payloads) would otherwise be mmap'd and unmapped on every request,
    // paying page faults each time; keep such blocks in the heap for reuse instead.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    return options.http ? hello::run_http_server(options) : hello::run_stdio_server(options);
}
