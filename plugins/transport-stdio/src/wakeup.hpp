// A one-shot, level-triggered wake-up that a thread blocked in poll() can watch.
//
// Used so that close() can interrupt a reader blocked on a pipe nobody will close (a process
// outside our group still holds it) and a sender blocked on a full stdin pipe. Once signalled it
// stays readable, so every waiter sees it, however late it looks.
#pragma once

#include "unique_fd.hpp"

namespace mcph::stdio {

using UniqueFd = io::UniqueFd;  // plugins/io-common

class Wakeup {
public:
    Wakeup();  // throws mcph::plugin::Error(MCPH_ERR_IO) naming the limit if no descriptor is available
    int fd() const noexcept { return fd_.get(); }
    void signal() noexcept;

private:
    UniqueFd fd_;
};

}  // namespace mcph::stdio
