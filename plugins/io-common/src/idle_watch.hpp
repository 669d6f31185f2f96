// IdleWatch: one thread per transport plugin watches the descriptors of every connection whose own
// I/O thread retired after an idle spell, so a host with hundreds of mostly quiet servers does not
// keep a thread per server. The stdio plugin hands it a server's stdout and stderr pipes
// (readerIdleMs); the Streamable HTTP, legacy SSE and WebSocket plugins a connection's sockets and
// its next timer (loopIdleMs). The first byte, hang-up or error on any descriptor of an entry revives its owner:
// `revive(owner)` runs on the watch thread, which starts a new I/O thread for that connection.
//
// Why not one shared thread that also reads and delivers: deliveries run host callbacks (a
// request_async completion, a notification handler), and the end of a stdio server waits for its
// exit status; on a thread every connection shares, one slow callback or one exiting server would
// stall all the others. The watch only waits; reading and delivering stay on the connection's own
// thread, which exists while the connection is busy.
//
// Each armed owner is one entry, disarmed by the first readiness (epoll one-shot per descriptor,
// the entry removed at once) or by its deadline (a timer its connection has pending: HTTP's
// reconnects, request deadlines, libcurl's own); the entry's id, not a pointer, travels through
// epoll, so a readiness reported for an entry that was disarmed meanwhile is dropped.
//
// A static library linked into each plugin with hidden symbols: each plugin has its own watch
// (and thread), which ends at that plugin's shutdown.
#pragma once

#include "unique_fd.hpp"
#include "wakeup.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mcph::io {

class IdleWatch {
public:
    using Revive = void (*)(void* owner);
    using Clock = std::chrono::steady_clock;

    // The plugin's watch; its thread, named `thread_name` (the first call's; at most 15 bytes),
    // starts at the first arm. Never destroyed (an I/O thread may retire while the process exits);
    // stop_if_unused() ends the thread.
    static IdleWatch& instance(const char* thread_name);

    // Watches `fds` (negative entries are skipped, duplicates watched once) for `owner` until one
    // is readable, hung up or in error, or `deadline` passes, then calls revive(owner) once, on the
    // watch thread. One entry per owner: arming again replaces the entry. Throws
    // mcph::plugin::Error(MCPH_ERR_IO) when the watch cannot be set up (descriptor or thread limit,
    // a descriptor epoll refuses): the caller then keeps its own thread.
    void arm(void* owner, std::span<const int> fds, Revive revive, Clock::time_point deadline = Clock::time_point::max());

    // A retired owner whose revive could not start a thread (EAGAIN at the thread limit) is
    // revived again `after` from now (a deadline-only entry: its descriptors would fire at once
    // again). Returns what to add to the failure's message: when it is tried again, or why it
    // cannot be.
    std::string arm_retry(void* owner, Revive revive, std::chrono::milliseconds after) noexcept;

    // After this returns, revive(owner) is not running and will not run (until armed again). Not
    // from inside revive(owner) itself (it would wait for itself).
    void disarm(void* owner) noexcept;

    // Ends the thread when nothing is armed (the plugin's shutdown: the host destroyed every
    // transport it created, and the library may be unmapped next). A later arm starts it again.
    void stop_if_unused() noexcept;

private:
    struct Entry {
        void* owner;
        std::vector<int> fds;
        Revive revive;
        Clock::time_point deadline;
    };
    explicit IdleWatch(const char* thread_name) : thread_name_(thread_name) {}
    void start_locked();
    void run() noexcept;
    int wait_ms() noexcept;         // until the earliest deadline (-1: none)
    void dispatch_due() noexcept;   // the entries whose deadline passed
    void dispatch(std::uint64_t id) noexcept;
    void remove_locked(std::unordered_map<std::uint64_t, Entry>::iterator it) noexcept;

    const char* const thread_name_;
    std::mutex lifecycle_;                   // held across starting and stopping the thread (before mutex_)
    std::mutex mutex_;                       // guards what follows
    std::condition_variable dispatched_;     // a revive() finished (disarm waits for its owner's)
    std::unordered_map<std::uint64_t, Entry> entries_;
    std::unordered_map<void*, std::uint64_t> by_owner_;
    std::uint64_t next_id_ = 1;
    void* dispatching_ = nullptr;            // the owner whose revive() runs now, unlocked
    UniqueFd epoll_;
    std::optional<Wakeup> stop_;             // stop_if_unused() signals it, for good
    std::optional<Wakeup> rearm_;            // an entry with a deadline came (cleared by the thread)
    std::thread thread_;
};

}  // namespace mcph::io
