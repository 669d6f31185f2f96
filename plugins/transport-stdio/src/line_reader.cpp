#include "line_reader.hpp"

#include <algorithm>

namespace mcph::stdio {

LineReader::Room LineReader::room() {
    if (capacity_ - end_ < kReadBytes && begin_ > 0) {  // move the unfinished line to the front, once
        std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
        scanned_ -= begin_;
        end_ -= begin_;
        begin_ = 0;
    }
    if (capacity_ - end_ < kReadBytes) {
        // Doubling keeps a long line's copying O(n); the cap is what the limit can ever need (an
        // unfinished line of max_line + 1 bytes, a '\r' to strip, and one read's room).
        const size_t need = end_ + kReadBytes;
        const size_t most = max_line_ + 2 + kReadBytes;
        reallocate(std::max(need, std::min(std::max(need, 2 * capacity_), most)));
    }
    return {buffer_.get() + end_, capacity_ - end_};
}

bool LineReader::pending_fits() const noexcept {
    // +1 leaves room for a '\r' that will be stripped when the line completes.
    return end_ - begin_ <= max_line_ + 1;
}

// Every byte read so far made whole lines: start at the front again, and give a large buffer back
// when it is too large to keep or the large lines have stopped.
void LineReader::after_lines() noexcept {
    begin_ = scanned_ = end_ = 0;
    if (capacity_ > kRetainBytes || (capacity_ > kReadBytes && small_lines_ >= kShrinkAfterLines)) {
        buffer_.reset();
        capacity_ = 0;
    }
}

void LineReader::discard() noexcept {
    begin_ = scanned_ = end_ = 0;
    buffer_.reset();
    capacity_ = 0;
}

void LineReader::reallocate(size_t capacity) {
    std::unique_ptr<char[]> bigger(new char[capacity]);
    if (end_ > begin_) std::memcpy(bigger.get() + begin_, buffer_.get() + begin_, end_ - begin_);
    buffer_ = std::move(bigger);
    capacity_ = capacity;
}

}  // namespace mcph::stdio
