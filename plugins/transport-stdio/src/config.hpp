// The stdio server config object, parsed and validated once in create().
#pragma once

#include "environment.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::stdio {

struct StdioConfig {
    std::string name;                            // server name, for messages and logs
    std::string command;                         // required
    std::vector<std::string> args;
    std::map<std::string, std::string> env;      // added to the inherited parent variables
    InheritEnv inherit_env;                      // "inheritEnv": which parent variables (environment.hpp)
    std::string cwd;                             // empty: inherit the host's working directory
    size_t max_message_bytes = size_t{128} << 20;
    std::chrono::milliseconds shutdown_grace{2000};
    size_t stderr_cap_bytes = size_t{64} << 20;  // "stderrCapBytes": newest stderr kept for diagnostics
    // "writeStallTimeoutMs": how long bytes may wait for a server that accepts none before the
    // transport gives up on it (it stopped reading its stdin).
    std::chrono::milliseconds write_stall_timeout{30000};
    // "readerIdleMs": how long the reader thread waits with nothing to read before it hands the
    // server's pipes to the process's idle watch and ends (idle_watch.hpp); 0: it never does.
    std::chrono::milliseconds reader_idle{2000};
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) naming the bad field.
StdioConfig parse_config(std::string_view json);

}  // namespace mcph::stdio
