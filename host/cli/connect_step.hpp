// A command's connect step — connect_all(), one server's connect() or reconnect() — run the way
// the command's caller wants: at once, or (in the shell) so that Ctrl-C stops waiting for it
// (shell_connects.hpp). The step may outlive the command's frame when the wait is stopped, so it
// captures the host by reference and everything else by value, and returns nothing: the command
// reads the outcome from the host afterwards.
#pragma once

#include "options.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mcph::cli {

// `servers`: those the step connects (named while the shell waits); empty: every server.
inline void connect_step(const Options& o, std::function<void()> step, const std::vector<std::string>& servers = {}) {
    if (o.run_connect) o.run_connect(std::move(step), servers);
    else step();
}

}  // namespace mcph::cli
