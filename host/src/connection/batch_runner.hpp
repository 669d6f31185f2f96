// Connecting many servers without overloading the machine (seed 000 §18.10): local (stdio) servers
// are child processes — fork, exec, a runtime starting up — so only a few start at once; remote
// servers cost a socket and wait on the network, so many go in parallel. Batches run one after
// another; the members of a batch run in parallel.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace mcph::connection {

struct BatchSizes {
    std::size_t local = 3;    // stdio servers started at once
    std::size_t remote = 20;  // http / sse / ws servers connected at once

    // The defaults, overridden by MCPH_LOCAL_CONNECT_BATCH and MCPH_REMOTE_CONNECT_BATCH (1..1000).
    // An empty variable counts as unset; 0 or anything but a whole number throws
    // mcph::Error(Usage) naming the variable.
    static BatchSizes from_environment();
};

// Runs `tasks` in order, `batch_size` at a time, each on its own thread; a batch is joined before the
// next one starts, so a slow member holds up the next batch (the seed's behaviour, kept on purpose:
// it bounds how many processes start at once, not merely how many run).
// Tasks are expected to report their own failures (a server that cannot connect is a status, not an
// exception). Should one throw anyway, the others and every later batch still run, and the first
// exception is rethrown once all have finished. Blocks the calling thread until then.
// Throws mcph::Error(Usage) if batch_size is 0 (before running anything).
void run_in_batches(std::vector<std::function<void()>> tasks, std::size_t batch_size);

}  // namespace mcph::connection
