// `mcph add | remove | enable | disable | approve | reconnect` (see config_commands.cpp).
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

namespace mcph::cli {

int cmd_add(Host& host, const Options& o);
int cmd_remove(Host& host, const Options& o);
int cmd_enable(Host& host, const Options& o);
int cmd_disable(Host& host, const Options& o);
int cmd_approve(Host& host, const Options& o);
int cmd_reconnect(Host& host, const Options& o);

}  // namespace mcph::cli
