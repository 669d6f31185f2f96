// The child's stderr, kept in memory with a hard cap.
//
// stderr is only ever shown when something went wrong, and then the *end* is what matters, so
// when the cap is reached the oldest bytes are dropped. Storage is a queue of fixed-size blocks
// (no O(n) memmove per append, as erasing the front of one big string would cost); a block that
// falls off the front is recycled for the next append, so a flood does not churn the allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace mcph::stdio {

class StderrBuffer {
public:
    static constexpr size_t kDefaultCapacity = size_t{64} << 20;  // 64 MiB
    static constexpr size_t kDefaultBlock = size_t{64} << 10;     // 64 KiB

    explicit StderrBuffer(size_t capacity = kDefaultCapacity, size_t block = kDefaultBlock);

    // [thread-safe] Appends bytes, dropping the oldest ones beyond the capacity.
    void append(const char* data, size_t size);

    // [thread-safe] The last `max_bytes` at most, starting at a line boundary when the cut fell
    // inside a line (unless that would leave nothing), without trailing newlines.
    std::string tail(size_t max_bytes) const;

    size_t size() const;          // bytes currently held
    uint64_t dropped() const;     // bytes discarded so far because of the cap

private:
    using Block = std::unique_ptr<char[]>;

    void append_locked(const char* data, size_t size);
    void trim_locked();
    size_t front_bytes_locked() const;
    char at_locked(size_t index) const;  // logical index into the held bytes

    const size_t capacity_;
    const size_t block_size_;
    mutable std::mutex mutex_;
    std::deque<Block> blocks_;
    Block spare_;           // one recycled block
    size_t head_ = 0;       // offset of the first held byte in blocks_.front()
    size_t back_fill_ = 0;  // bytes used in blocks_.back()
    size_t size_ = 0;
    uint64_t dropped_ = 0;
};

}  // namespace mcph::stdio
