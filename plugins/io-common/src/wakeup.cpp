#include "wakeup.hpp"

#include "limit_hint.hpp"

#include <sys/eventfd.h>

#include <cerrno>
#include <cstdint>

namespace mcph::io {

Wakeup::Wakeup(const char* what) : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!fd_) throw_system_error(errno, what);
}

// Neither call can fail for want of room: the counter stays far below its limit (one signal adds
// 1; a cleared counter is 0), so only EINTR is retried.
void Wakeup::signal() noexcept {
    const std::uint64_t one = 1;
    ssize_t n;
    do {
        n = ::write(fd_.get(), &one, sizeof one);
    } while (n < 0 && errno == EINTR);
}

void Wakeup::clear() noexcept {
    std::uint64_t count = 0;
    ssize_t n;
    do {
        n = ::read(fd_.get(), &count, sizeof count);  // EAGAIN: already clear
    } while (n < 0 && errno == EINTR);
}

}  // namespace mcph::io
