// Command-line options of hello-server.
#pragma once

#include <cstdint>
#include <string>

namespace hello {

struct ServerOptions {
    bool http = false;              // Streamable HTTP instead of stdio
    std::string host = "127.0.0.1"; // HTTP bind address (loopback by default)
    std::uint16_t port = 0;         // HTTP port; 0 = ephemeral
    std::string notes_path = "notes.txt";  // what notes://today reads
    bool verbose = false;           // log requests on stderr
    bool get_stream = false;        // HTTP: GET opens an SSE stream held open (nothing is sent on it)
};

}  // namespace hello
