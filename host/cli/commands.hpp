// The CLI's commands. Each returns the process exit code (0 ok, 1 tool isError) and throws
// mcph::Error for usage (2) and connection/protocol (3) failures; main() maps those.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <functional>
#include <memory>

namespace mcph::cli {

// Builds the Host from the options (plugins, configs, timeouts, terminal callbacks, --debug's
// wire trace); `adjust`, when set, changes the HostOptions last (the shell routes live lines).
std::unique_ptr<Host> make_host(const Options& options, const std::string& extra_config_json = {},
                                const std::function<void(HostOptions&)>& adjust = {});

int run_command(const Options& options);
// Runs one parsed command on an existing Host (the shell's long-lived one): the exit code, or
// mcph::Error as run_command throws it. `demo` and `shell` are not commands of a running host.
int run_on_host(Host& host, const Options& options);
int run_demo(const Options& options);

}  // namespace mcph::cli
