// Pipe I/O that never blocks past a Wakeup (or a deadline).
//
// The waits are in in poll() on the pipe *and* a wake-up descriptor, so close() never depends
// on the child (or whoever else holds the other end) to unblock our threads.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <string_view>

namespace mcph::stdio {

enum class WriteResult {
    ok,           // everything was written
    would_block,  // the pipe is full (EAGAIN); `written` says how much went before
    closed,       // the reader went away (EPIPE)
    error,        // any other errno, left in `error_code`
};

// Writes the `count` parts of `iov` on a non-blocking `fd` until done or the pipe is full; never
// waits. Handles partial writes and EINTR; advances `iov` in place and adds to `written`.
WriteResult write_some(int fd, iovec* iov, int count, size_t& written, int& error_code);

enum class WaitResult { ready, woken, timed_out, error };

// Waits up to `timeout_ms` (-1: forever) until `fd` accepts bytes (or is broken: the next write
// says how) or the wake-up fired.
WaitResult wait_writable(int fd, int wake_fd, int timeout_ms);

// Waits until `fd` is readable (or at EOF) or the wake-up fired, then reads once.
// Returns > 0 bytes read, 0 at EOF, -1 when woken, -2 on error (errno preserved).
ssize_t read_or_wake(int fd, char* buffer, size_t size, int wake_fd);

}  // namespace mcph::stdio
