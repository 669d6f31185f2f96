// Starting and naming the plugins' threads.
#pragma once

#include "limit_hint.hpp"

#include <mcph/plugin_helper.hpp>

#include <pthread.h>

#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace mcph::io {

// Names the calling thread (at most 15 bytes: the kernel's limit), so `top -H`, `ps -L`, a
// debugger and the tests (/proc/self/task/*/comm) tell the plugins' threads apart.
inline void name_this_thread(const char* name) noexcept { ::pthread_setname_np(::pthread_self(), name); }

// std::thread(body), except that a thread that cannot start (EAGAIN at the thread limit) throws
// mcph::plugin::Error(MCPH_ERR_IO) "cannot start <what>: <strerror>; <the limit and how to raise
// it>" rather than a std::system_error, which the plugin helper would report as an internal error.
template <class Body>
std::thread start_thread(const char* what, Body&& body, const ConnectionCost& cost = {}) {
    try {
        return std::thread(std::forward<Body>(body));
    } catch (const std::system_error& e) {
        throw mcph::plugin::Error(MCPH_ERR_IO,
                                  std::string("cannot start ") + what + ": " + e.what() + limit_hint(e.code().value(), cost));
    }
}

// Joins `thread` (a predecessor that ended, or is ending, on its own) and starts `body` in its
// place, as start_thread does. For a connection whose I/O thread retires and is started again.
template <class Body>
void replace_thread(std::thread& thread, const char* what, Body&& body, const ConnectionCost& cost = {}) {
    if (thread.joinable()) thread.join();
    thread = start_thread(what, std::forward<Body>(body), cost);
}

}  // namespace mcph::io
