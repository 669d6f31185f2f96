// Names the calling thread (at most 15 bytes: the kernel's limit), so `top -H`, `ps -L`, a
// debugger and the tests (/proc/self/task/*/comm) tell the plugin's threads apart.
#pragma once

#include <pthread.h>

namespace mcph::stdio {

inline constexpr const char* kReaderThreadName = "mcph-stdio-out";  // reads a server's stdout and stderr
inline constexpr const char* kWriterThreadName = "mcph-stdio-in";   // drains the queue to a full stdin
inline constexpr const char* kIdleWatchThreadName = "mcph-stdio-idle";  // idle_watch.hpp

inline void name_this_thread(const char* name) noexcept { ::pthread_setname_np(::pthread_self(), name); }

}  // namespace mcph::stdio
