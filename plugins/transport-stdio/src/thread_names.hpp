// The names of the stdio plugin's threads (io-common's threads.hpp names the calling thread).
#pragma once

#include "threads.hpp"  // plugins/io-common

namespace mcph::stdio {

inline constexpr const char* kReaderThreadName = "mcph-stdio-out";  // reads a server's stdout and stderr
inline constexpr const char* kWriterThreadName = "mcph-stdio-in";   // drains the queue to a full stdin
inline constexpr const char* kIdleWatchThreadName = "mcph-stdio-idle";  // idle_watch.hpp

using io::name_this_thread;

}  // namespace mcph::stdio
