// `mcph import <claude-desktop|claude-code|vscode|cursor|FILE>` (import_command.cpp): copies other
// clients' server definitions into one of mcph's scopes. Nothing is connected or run.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mcph::cli {

// One place servers are read from: a file's top-level servers, or (`project` set) the servers
// Claude Code keeps for one project directory inside ~/.claude.json, under
// "projects": {"<directory>": {"mcpServers": {...}}} (its "local" scope).
struct ImportSource {
    std::filesystem::path file;
    std::string project;
};

// The places a source name stands for, in the order they are read (a later entry of a name
// replaces an earlier one's: Claude Code's own precedence, user < project < local), from `home`
// and the working directory `cwd`. A name that is not a known client is a file path.
std::vector<ImportSource> import_sources(const std::string& source, const std::filesystem::path& home,
                                         const std::filesystem::path& cwd);

int cmd_import(Host& host, const Options& o);

}  // namespace mcph::cli
