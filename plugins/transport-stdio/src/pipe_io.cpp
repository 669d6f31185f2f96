#include "pipe_io.hpp"

#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace mcph::stdio {
namespace {

enum class Ready { fd, wake, timeout, error };

// Waits for `events` on `fd` or for the wake-up, at most `timeout_ms` (-1: forever). Readiness of
// the wake-up wins: once it fired the caller is shutting down and must not block again.
// (EINTR restarts the full timeout; callers with a deadline recompute it and wait again.)
Ready wait_for(int fd, short events, int wake_fd, int timeout_ms = -1) {
    for (;;) {
        pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
        int n = ::poll(fds, 2, timeout_ms);
        if (n < 0) {
            if (errno == EINTR) continue;
            return Ready::error;
        }
        if (n == 0) return Ready::timeout;
        if (fds[1].revents) return Ready::wake;
        if (fds[0].revents) return Ready::fd;  // includes POLLHUP/POLLERR: the next call reports it
    }
}

void advance(iovec*& iov, int& count, size_t written) {
    while (count > 0 && written >= iov->iov_len) {
        written -= iov->iov_len;
        ++iov;
        --count;
    }
    if (count > 0) {
        iov->iov_base = static_cast<char*>(iov->iov_base) + written;
        iov->iov_len -= written;
    }
}

}  // namespace

WriteResult write_some(int fd, iovec* iov, int count, size_t& written, int& error_code) {
    advance(iov, count, 0);  // skips empty parts
    while (count > 0) {
        ssize_t n = ::writev(fd, iov, count);
        if (n >= 0) {
            written += static_cast<size_t>(n);
            advance(iov, count, static_cast<size_t>(n));
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return WriteResult::would_block;
        if (errno == EPIPE) return WriteResult::closed;
        error_code = errno;
        return WriteResult::error;
    }
    return WriteResult::ok;
}

WaitResult wait_writable(int fd, int wake_fd, int timeout_ms) {
    switch (wait_for(fd, POLLOUT, wake_fd, timeout_ms)) {
        case Ready::fd: return WaitResult::ready;
        case Ready::wake: return WaitResult::woken;
        case Ready::timeout: return WaitResult::timed_out;
        case Ready::error: break;
    }
    return WaitResult::error;
}

ssize_t read_or_wake(int fd, char* buffer, size_t size, int wake_fd) {
    for (;;) {
        Ready r = wait_for(fd, POLLIN, wake_fd);
        if (r == Ready::wake) return -1;
        if (r == Ready::error) return -2;
        ssize_t n = ::read(fd, buffer, size);
        if (n >= 0) return n;
        if (errno == EINTR || errno == EAGAIN) continue;
        return -2;
    }
}

}  // namespace mcph::stdio
