// `mcph subscribe <server> <uri>`: subscribes to a resource (resources/subscribe, or the 2026 era's
// listen stream), prints each notifications/resources/updated as it arrives, and unsubscribes when
// the watch ends: after --count updates, after --for, or on Ctrl-C (one-shot and in the shell).
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>

#include <string>

namespace mcph::cli {

int cmd_subscribe(Host& host, const Options& o);

// The Host's on_resource_updated callback (set by make_host): hands updates to a running watch.
// Updates arriving while no watch runs are dropped: nothing is kept for later.
void note_resource_updated(const std::string& server, const std::string& uri);

}  // namespace mcph::cli
