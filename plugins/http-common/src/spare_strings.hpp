// A few large strings kept for reuse, process-wide: the request bodies and response bodies of
// large messages.
//
// Why: a large message's body is a fresh allocation on the way out (the copy the transfer keeps
// while libcurl sends it) and on the way in (the response gathered for the host). glibc hands a
// freed megabyte back to the kernel, so every such body is new memory: 256 page faults per MiB,
// ~10 µs each on a VM — far more than the copying itself (issue #16: a 1 MiB HTTP echo cost ~18x
// the floor's CPU). Reusing the capacity of the last few bodies keeps their pages warm.
//
// Bounded: at most kKeep strings, each of capacity at most kMaxBytes, in the whole process
// (however many servers), so what a burst of large messages leaves behind is a few MiB.
// Thread-safe: a body is taken on a sending thread and given back on whichever thread finishes
// its transfer.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::http {

class SpareStrings {
public:
    static constexpr size_t kKeep = 2;
    static constexpr size_t kMaxBytes = size_t{4} << 20;
    static constexpr size_t kMinBytes = size_t{64} << 10;  // smaller ones are cheap: not worth a lock

    SpareStrings() { kept_.reserve(kKeep); }

    // The process's stash.
    static SpareStrings& shared();

    // An empty string with capacity for at least `bytes` when a kept one has it (the smallest that
    // does), else an empty string (only its small-string capacity: less than kMinBytes). Never allocates.
    std::string take(size_t bytes);
    // Keeps `s` (cleared) when its capacity is within the bounds and there is room; frees it otherwise.
    void give(std::string&& s) noexcept;

private:
    std::mutex mutex_;
    std::vector<std::string> kept_;  // reserved to kKeep up front: give() never allocates
};

}  // namespace mcph::http
