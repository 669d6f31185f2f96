// Shared by the hostile-server attack tests (json_depth, server_flood, session_expiry, timeouts):
// the real `mcph` binary run against one server given inline, with scratch config locations so
// nothing of the machine's own configuration takes part.
#pragma once

#include "governance_support.hpp"
#include "test_support.hpp"

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace mcph::test::hostile {

// {"mcpServers":{"<name>": <entry>}} for --mcp-config.
inline std::string servers_config(const std::string& name, const std::string& entry_json) {
    return "{\"mcpServers\":{" + json_quote(name) + ":" + entry_json + "}}";
}

// The fake server in `mode` (plus `extra` arguments) as a stdio entry.
inline std::string fake_entry(const std::string& mode, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--mode", mode};
    args.insert(args.end(), extra.begin(), extra.end());
    return fake_server_config_text(args);
}

// Runs `mcph <pre...> --strict-mcp-config --plugin-dir <this build's plugins> --mcp-config <config>
// <args...>` in a scratch directory, killed after `bound`.
inline CliResult run_mcph(const std::string& config, const std::vector<std::string>& args,
                          std::chrono::milliseconds bound = std::chrono::seconds(20)) {
    TempDir scratch("mcph-hostile");
    std::filesystem::create_directories(scratch / "config");
    std::filesystem::create_directories(scratch / "managed");
    const std::map<std::string, std::string> env = {
        {"MCPH_CONFIG_HOME", (scratch / "config").string()},
        {"MCPH_MANAGED_DIR", (scratch / "managed").string()},
        {"HOME", scratch.path().string()},
    };
    std::vector<std::string> all = {"--strict-mcp-config", "--plugin-dir", plugin_dir().string(), "--mcp-config", config};
    all.insert(all.end(), args.begin(), args.end());
    return run_cli(all, env, scratch.path(), bound);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace mcph::test::hostile
