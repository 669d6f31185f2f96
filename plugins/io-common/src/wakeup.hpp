// A level-triggered wake-up that a thread blocked in poll() or epoll_wait() can watch: an eventfd.
//
// The stdio plugin uses it so that close() can interrupt a reader blocked on a pipe nobody will
// close (a process outside our group still holds it) and a sender blocked on a full stdin pipe:
// signalled once and never cleared, it stays readable, so every waiter sees it, however late it
// looks. The idle watch uses two, one of them cleared by its thread after each wake-up.
#pragma once

#include "unique_fd.hpp"

namespace mcph::io {

class Wakeup {
public:
    // Throws mcph::plugin::Error(MCPH_ERR_IO) "<what>: <strerror>" naming the limit
    // (limit_hint.hpp) if no descriptor is available.
    explicit Wakeup(const char* what = "eventfd");
    int fd() const noexcept { return fd_.get(); }
    void signal() noexcept;  // readable from now on, until clear()
    void clear() noexcept;   // not readable any more (until the next signal)

private:
    UniqueFd fd_;
};

}  // namespace mcph::io
