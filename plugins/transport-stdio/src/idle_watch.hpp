// IdleWatch: one thread per process watches the output pipes of every stdio server whose reader
// thread retired after an idle spell (readerIdleMs), so a host with hundreds of mostly quiet servers
// does not keep a thread per server. The first byte (or EOF) on either pipe of a server revives it:
// `revive(owner)` runs on the watch thread, which starts a new reader thread for that server.
//
// Why not one shared thread that also reads and delivers: deliveries run host callbacks (a
// request_async completion, a notification handler) and the reader's end-of-stream handling waits
// for the exit status; on a thread every server shares, one slow callback or one exiting server
// would stall all the others. The watch only waits; reading and delivering stay on the server's own
// thread, which exists while the server is busy.
//
// Each armed server is one entry, disarmed by the first readiness (epoll one-shot); the entry's id,
// not a pointer, travels through epoll, so a readiness reported for an entry that was disarmed
// meanwhile is dropped.
#pragma once

#include "unique_fd.hpp"
#include "wakeup.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace mcph::stdio {

class IdleWatch {
public:
    using Revive = void (*)(void* owner);

    // The process's watch: its thread starts at the first arm. Never destroyed (a reader thread
    // may retire while the process exits); stop_if_unused() ends the thread.
    static IdleWatch& instance();

    // Watches `stdout_fd` and `stderr_fd` (-1: none) for `owner` until either is readable or hung
    // up, then calls revive(owner) once, on the watch thread. One entry per owner: arming again
    // replaces the entry. Throws mcph::plugin::Error(MCPH_ERR_IO) when the watch cannot be set up
    // (descriptor or thread limit): the caller then keeps reading itself.
    void arm(void* owner, int stdout_fd, int stderr_fd, Revive revive);

    // After this returns, revive(owner) is not running and will not run (until armed again).
    void disarm(void* owner) noexcept;

    // Ends the thread when nothing is armed (the plugin's shutdown: the host destroyed every
    // transport it created, and the library may be unmapped next). A later arm starts it again.
    void stop_if_unused() noexcept;

private:
    struct Entry {
        void* owner;
        int fds[2];
        Revive revive;
    };
    IdleWatch();
    void start_locked();
    void run() noexcept;
    void dispatch(std::uint64_t id) noexcept;
    void remove_locked(std::unordered_map<std::uint64_t, Entry>::iterator it) noexcept;

    std::mutex lifecycle_;                   // held across starting and stopping the thread (before mutex_)
    std::mutex mutex_;                       // guards what follows
    std::condition_variable dispatched_;     // a revive() finished (disarm waits for its owner's)
    std::unordered_map<std::uint64_t, Entry> entries_;
    std::unordered_map<void*, std::uint64_t> by_owner_;
    std::uint64_t next_id_ = 1;
    void* dispatching_ = nullptr;            // the owner whose revive() runs now, unlocked
    UniqueFd epoll_;
    std::optional<Wakeup> stop_;             // stop_if_unused() ends the thread (made with epoll_: it stays readable)
    std::thread thread_;
};

}  // namespace mcph::stdio
