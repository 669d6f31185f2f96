// Command-line parsing for `mcph`.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcph::cli {

struct Options {
    std::vector<std::string> mcp_configs;  // each a file path or inline JSON
    bool strict_mcp_config = false;        // only --mcp-config: no user, project, local or plugin files
    std::string scope;                     // add/remove: user, project or local
    std::vector<std::filesystem::path> plugin_dirs;
    bool json = false;
    bool full = false;  // tools: whole descriptions, schemas and every finding
    bool yes = false;  // --yes: approve a project definition although it replaces one of yours
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<std::chrono::milliseconds> connect_timeout;
    std::string command;
    std::vector<std::string> args;  // the command's positional arguments
    bool help = false;
    bool version = false;
    std::string agent;  // --agent NAME: tools/call through that sub-agent's overlay; approve its file
};

// Throws mcph::Error(Usage) with a message that says what was wrong.
Options parse_options(int argc, char** argv);

// "30s", "500ms", "2m", or a bare number of milliseconds.
std::chrono::milliseconds parse_duration(const std::string& text);

const char* usage_text();

}  // namespace mcph::cli
