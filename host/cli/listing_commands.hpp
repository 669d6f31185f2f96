// The listing commands (tools, resources, prompts, templates), the `list` health check, and the
// small per-server requests (complete, log-level). Each is `int cmd_x(Host&, const Options&)` and
// keeps no state of its own, so `mcph shell` can run them on its long-lived Host.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <memory>
#include <string>

namespace mcph::cli {

int cmd_list(Host& host, const Options& o);
int cmd_tools(Host& host, const Options& o);
int cmd_resources(Host& host, const Options& o);
int cmd_prompts(Host& host, const Options& o);
int cmd_templates(Host& host, const Options& o);
int cmd_complete(Host& host, const Options& o);
int cmd_log_level(Host& host, const Options& o);

// Shared with commands.cpp: Error(Usage) when nothing is configured; host.connect with "did you
// mean" when there is no server of that name.
void require_servers(Host& host);
std::shared_ptr<ClientSession> connect_named(Host& host, const Options& o, const std::string& name);

}  // namespace mcph::cli
