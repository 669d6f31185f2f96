#include "outgoing_queue.hpp"

namespace mcph::stdio {

void OutgoingQueue::push(std::string_view head, std::string_view tail) {
    std::string line;
    line.reserve(head.size() + tail.size());
    line.append(head).append(tail);
    if (line.empty()) return;
    bytes_ += line.size();
    lines_.push_back(std::move(line));
}

int OutgoingQueue::gather(iovec* iov, int max) const noexcept {
    int count = 0;
    size_t offset = front_offset_;
    for (auto it = lines_.begin(); it != lines_.end() && count < max; ++it, offset = 0) {
        iov[count].iov_base = const_cast<char*>(it->data() + offset);
        iov[count].iov_len = it->size() - offset;
        ++count;
    }
    return count;
}

void OutgoingQueue::consume(size_t written) noexcept {
    bytes_ -= written;
    while (written > 0 && !lines_.empty()) {
        size_t left = lines_.front().size() - front_offset_;
        if (written < left) {
            front_offset_ += written;
            return;
        }
        written -= left;
        lines_.pop_front();
        front_offset_ = 0;
    }
}

void OutgoingQueue::clear() noexcept {
    lines_.clear();
    front_offset_ = 0;
    bytes_ = 0;
}

}  // namespace mcph::stdio
