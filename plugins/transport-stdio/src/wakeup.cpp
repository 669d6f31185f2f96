#include "wakeup.hpp"

#include "resource_limits.hpp"

#include <sys/eventfd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace mcph::stdio {

Wakeup::Wakeup() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!fd_) throw_system_error(errno, "eventfd");
}

void Wakeup::signal() noexcept {
    // Nobody ever reads the counter, so the descriptor stays readable for every later poll().
    uint64_t one = 1;
    ssize_t n;
    do {
        n = ::write(fd_.get(), &one, sizeof one);
    } while (n < 0 && errno == EINTR);
}

}  // namespace mcph::stdio
