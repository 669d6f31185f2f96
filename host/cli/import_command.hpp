// `mcph import <claude-desktop|claude-code|vscode|cursor|FILE>` (import_command.cpp): copies other
// clients' server definitions into one of mcph's scopes. Nothing is connected or run.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mcph::cli {

// The files a source name stands for, in the order they are read (a later file's entry of a name
// replaces an earlier one's), from `home` and the working directory `cwd`. A name that is not a
// known client is a file path. Exposed for the tests.
std::vector<std::filesystem::path> import_source_files(const std::string& source, const std::filesystem::path& home,
                                                       const std::filesystem::path& cwd);

int cmd_import(Host& host, const Options& o);

}  // namespace mcph::cli
