// The stdio plugin's idle watch: io-common's IdleWatch (plugins/io-common/src/idle_watch.hpp), its
// thread named for this plugin. A retired reader hands it the server's stdout and stderr pipes.
#pragma once

#include "idle_watch.hpp"
#include "thread_names.hpp"

namespace mcph::stdio {

inline io::IdleWatch& idle_watch() { return io::IdleWatch::instance(kIdleWatchThreadName); }

}  // namespace mcph::stdio
