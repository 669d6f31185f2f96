// The asynchronous auth answers one transport is waiting for (ABI v1.2 mcph_auth_completion).
// Shared with the auth worker's jobs, so a job that finishes after the transport closed finds its
// entry gone and drops its answer instead of calling into a plugin that no longer expects it.
#pragma once

#include "transport/transport.hpp"

#include <mcph/plugin_api.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mcph::transport {

class AuthCompletions {
public:
    // [thread-safe] Keeps `done` (copied: the struct is borrowed for the hook call). 0 once closed:
    // the caller answers MCPH_ERR_CANCELLED at once instead.
    std::uint64_t add(const mcph_auth_completion& done);
    // [thread-safe] Still waiting (not completed, not cancelled by close)?
    bool waiting(std::uint64_t id);
    // [thread-safe] Completes `id` if it is still waiting; otherwise does nothing.
    void complete(std::uint64_t id, mcph_status status, const HeaderList& headers, const std::string& reason);
    // [thread-safe] Forgets `id` without completing it (the hook call itself failed).
    void forget(std::uint64_t id);
    // [host-thread] Completes every waiting answer with MCPH_ERR_CANCELLED, waits for completions
    // already running on other threads, and refuses new ones. Returns how many it cancelled.
    std::size_t close();

private:
    void call(const mcph_auth_completion& done, mcph_status status, const HeaderList& headers,
              const std::string& reason) noexcept;

    std::mutex mutex_;
    std::condition_variable idle_;
    bool closed_ = false;
    std::uint64_t next_ = 1;
    std::size_t calling_ = 0;  // completions running outside the lock
    std::unordered_map<std::uint64_t, mcph_auth_completion> waiting_;
};

}  // namespace mcph::transport
