// The open-file limit at start-up: each stdio server holds 4 or 5 descriptors, so ~250 servers
// overflow the common soft `ulimit -n 1024` although the hard limit is usually far higher. Like
// most servers, the CLI raises its soft limit to the hard one before doing anything else.
#pragma once

#include <string>

namespace mcph::cli {

struct FdLimitChange {
    unsigned long long before = 0;  // soft RLIMIT_NOFILE at start (RLIM_INFINITY: unlimited)
    unsigned long long after = 0;   // soft limit now
    int error = 0;                  // errno of a failed getrlimit/setrlimit, else 0
    std::string describe() const;   // one line for the debug log
};

// Raises the soft RLIMIT_NOFILE to the hard limit and leaves the original soft value in
// MCPH_CHILD_NOFILE_SOFT (read by the stdio transport plugin, plugins/transport-stdio/src/
// resource_limits.hpp), so that the servers it starts get the limit the user gave mcph: programs
// using select() break on descriptors above 1023. Call before any thread starts (it sets an
// environment variable).
FdLimitChange raise_fd_limit();

}  // namespace mcph::cli
