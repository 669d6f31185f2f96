// `mcph completion bash|zsh|fish`: a shell completion script generated from the command table and
// the option table (so it completes exactly what the parser accepts), and `mcph completion
// servers`, the cheap lookup the scripts call to complete server names.
//
// Server names are completed dynamically by running `mcph [the global options typed] completion
// servers`: it reads the config files and connects nothing (like `mcph servers`), never asks on the
// terminal (stdin is /dev/null there), and prints only names made of [A-Za-z0-9._-] — a name from
// a repository's .mcp.json is inserted into the person's command line, so nothing a shell would
// read as syntax. Tool names are NOT completed: listing them means starting every server (running
// their commands) on each Tab; `call` completes the `server/` prefix instead.
#pragma once

#include "options.hpp"

#include <string>

namespace mcph::cli {

// The script for `shell` ("bash", "zsh" or "fish"); throws mcph::Error(Usage) for another.
std::string completion_script(const std::string& shell);

// The commands whose first argument is a server name (`call`: a server/ prefix), for the scripts;
// each is a name in the command table (checked by a test).
const std::vector<std::string>& commands_taking_a_server();

// `mcph completion <bash|zsh|fish|servers>`.
int run_completion(const Options& options);

}  // namespace mcph::cli
