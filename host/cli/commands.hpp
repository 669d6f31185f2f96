// The CLI's commands. Each returns the process exit code (0 ok, 1 tool isError) and throws
// mcph::Error for usage (2) and connection/protocol (3) failures; main() maps those.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <memory>

namespace mcph::cli {

// Builds the Host from the options (plugins, configs, timeouts, terminal callbacks).
std::unique_ptr<Host> make_host(const Options& options, const std::string& extra_config_json = {});

int run_command(const Options& options);
int run_demo(const Options& options);

}  // namespace mcph::cli
