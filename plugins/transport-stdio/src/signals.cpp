#include "signals.hpp"

#include <signal.h>

#include <cstring>
#include <mutex>

namespace mcph::stdio {

void ignore_sigpipe_once() noexcept {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current;
        std::memset(&current, 0, sizeof current);
        if (::sigaction(SIGPIPE, nullptr, &current) != 0) return;
        bool is_default = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
        if (!is_default) return;  // the application chose a handler (or SIG_IGN) already
        struct sigaction ignore;
        std::memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, nullptr);
    });
}

}  // namespace mcph::stdio
