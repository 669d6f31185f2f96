#include "stderr_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace mcph::stdio {

StderrBuffer::StderrBuffer(size_t capacity, size_t block)
    : capacity_(capacity), block_size_(block ? block : 1) {}

void StderrBuffer::append(const char* data, size_t size) {
    std::lock_guard lock(mutex_);
    append_locked(data, size);
    trim_locked();
}

void StderrBuffer::append_locked(const char* data, size_t size) {
    while (size > 0) {
        if (blocks_.empty() || back_fill_ == block_size_) {
            blocks_.push_back(spare_ ? std::move(spare_) : std::make_unique<char[]>(block_size_));
            back_fill_ = 0;
        }
        size_t n = std::min(size, block_size_ - back_fill_);
        std::memcpy(blocks_.back().get() + back_fill_, data, n);
        back_fill_ += n;
        size_ += n;
        data += n;
        size -= n;
    }
}

size_t StderrBuffer::front_bytes_locked() const {
    return (blocks_.size() == 1 ? back_fill_ : block_size_) - head_;
}

void StderrBuffer::trim_locked() {
    while (size_ > capacity_) {
        size_t in_front = front_bytes_locked();
        size_t drop = std::min(size_ - capacity_, in_front);
        head_ += drop;
        size_ -= drop;
        dropped_ += drop;
        if (drop == in_front) {  // the front block is empty now: keep it for reuse
            spare_ = std::move(blocks_.front());
            blocks_.pop_front();
            head_ = 0;
            if (blocks_.empty()) back_fill_ = 0;
        }
    }
}

char StderrBuffer::at_locked(size_t index) const {
    size_t pos = head_ + index;
    return blocks_[pos / block_size_][pos % block_size_];
}

std::string StderrBuffer::tail(size_t max_bytes) const {
    std::lock_guard lock(mutex_);
    size_t count = std::min(max_bytes, size_);
    size_t start = size_ - count;
    std::string out;
    out.reserve(count);
    for (size_t i = start; i < size_; ++i) out.push_back(at_locked(i));

    bool cut_mid_line = start > 0 && at_locked(start - 1) != '\n';
    if (cut_mid_line) {
        size_t nl = out.find('\n');
        if (nl != std::string::npos && nl + 1 < out.size()) {
            out.erase(0, nl + 1);  // start at the next whole line
        } else {
            // One long line: keep it, but never start inside a UTF-8 sequence.
            size_t skip = 0;
            while (skip < out.size() && (static_cast<unsigned char>(out[skip]) & 0xC0) == 0x80) ++skip;
            out.erase(0, skip);
        }
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

size_t StderrBuffer::size() const {
    std::lock_guard lock(mutex_);
    return size_;
}

uint64_t StderrBuffer::dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

}  // namespace mcph::stdio
