// The bytes that the server's stdin pipe has not accepted yet, in order.
//
// Filled by send() when the pipe is full, drained by the writer thread. Not thread-safe: the
// transport guards it with its write mutex. Whole lines go in (the message plus its "\n", or the
// unwritten rest of one), so the order of messages is the order of push() calls, and a partial
// write only ever shortens the front.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace mcph::stdio {

class OutgoingQueue {
public:
    bool empty() const noexcept { return lines_.empty(); }
    size_t bytes() const noexcept { return bytes_; }          // unwritten bytes
    size_t messages() const noexcept { return lines_.size(); }

    // Appends `head` + `tail` as one entry (one allocation).
    void push(std::string_view head, std::string_view tail);

    // Fills up to `max` iovecs with the front of the queue; returns how many.
    int gather(iovec* iov, int max) const noexcept;

    // Drops the first `written` bytes (as reported by writev).
    void consume(size_t written) noexcept;

    void clear() noexcept;

private:
    std::deque<std::string> lines_;
    size_t front_offset_ = 0;  // bytes of lines_.front() already written
    size_t bytes_ = 0;
};

}  // namespace mcph::stdio
