// The two transports. Each returns the process exit code.
#pragma once

#include "options.hpp"

namespace hello {

// Newline-delimited JSON-RPC on stdin/stdout; returns 0 on stdin EOF.
int run_stdio_server(const ServerOptions& options);
// Streamable HTTP on /mcp (Boost.Beast, one thread); returns 0 on SIGINT/SIGTERM.
int run_http_server(const ServerOptions& options);

}  // namespace hello
