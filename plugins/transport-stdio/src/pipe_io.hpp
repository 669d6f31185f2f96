// Blocking pipe I/O that a Wakeup can interrupt.
//
// Both functions wait in poll() on the pipe *and* a wake-up descriptor, so close() never depends
// on the child (or whoever else holds the other end) to unblock our threads.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string_view>

namespace mcph::stdio {

enum class WriteResult {
    ok,
    closed,  // the reader went away (EPIPE) or the wake-up fired
    error,   // any other errno, left in `error_code`
};

// Writes `head` then `tail` completely (one writev when the pipe has room). `fd` must be
// non-blocking; on EAGAIN we wait for POLLOUT or the wake-up. Handles partial writes and EINTR.
WriteResult write_all(int fd, std::string_view head, std::string_view tail, int wake_fd, int& error_code);

// Waits until `fd` is readable (or at EOF) or the wake-up fired, then reads once.
// Returns > 0 bytes read, 0 at EOF, -1 when woken, -2 on error (errno preserved).
ssize_t read_or_wake(int fd, char* buffer, size_t size, int wake_fd);

}  // namespace mcph::stdio
