// `mcph inputs list|forget` (inputs_command.cpp): the answers to config files' inputs (VS Code
// "inputs", ${input:id}) that the library keeps in the secret store, listed without their values
// and forgotten so that the next command asks again.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

namespace mcph::cli {

// On any host (the shell's too): only the host's secret store is used.
int cmd_inputs(Host& host, const Options& o);
// As a command of its own: over a host that reads no config file and loads no plugin, so listing
// or forgetting answers never asks one.
int run_inputs(const Options& o);

}  // namespace mcph::cli
