// The CLI's exit codes (documented in `mcph --help`) and the one failure the library has no
// ErrorKind for: a server that needs the user to sign in.
#pragma once

#include <mcph/error.hpp>

#include <string>

namespace mcph::cli {

constexpr int kExitOk = 0;
constexpr int kExitReported = 1;    // the tool (isError) or the server (a JSON-RPC error) said no
constexpr int kExitUsage = 2;       // bad arguments; unknown command, option, server or tool
constexpr int kExitFailure = 3;     // connection or protocol failure
constexpr int kExitAuthNeeded = 4;  // a server needs authentication: `mcph login <server>`

// Thrown by a command when what failed was a server in the needs-auth state; a connection error
// for everything that catches mcph::Error, exit 4 for main().
class AuthNeeded : public Error {
public:
    AuthNeeded(const std::string& server, const std::string& message)
        : Error(ErrorKind::Connection, message), server_(server) {}
    const std::string& server() const { return server_; }

private:
    std::string server_;
};

int exit_code_for(ErrorKind kind);

}  // namespace mcph::cli
