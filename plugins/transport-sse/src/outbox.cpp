#include "outbox.hpp"

namespace mcph::sse {

bool Outbox::push(Outgoing message) {
    std::lock_guard lock(mutex_);
    // An empty box always takes one message, so a single message up to maxMessageBytes fits
    // even when that is larger than the byte bound.
    if (messages_ > 0 && (messages_ + 1 > max_messages_ || bytes_ + message.payload.size() > max_bytes_)) return false;
    ++messages_;
    bytes_ += message.payload.size();
    queue_.push_back(std::move(message));
    return true;
}

void Outbox::push_handshake_end() {
    std::lock_guard lock(mutex_);
    Outgoing marker;
    marker.handshake_end = true;
    queue_.push_back(std::move(marker));
}

std::vector<Outgoing> Outbox::take_all() {
    std::lock_guard lock(mutex_);
    std::vector<Outgoing> out;
    out.swap(queue_);
    return out;
}

bool Outbox::empty() {
    std::lock_guard lock(mutex_);
    return queue_.empty();
}

void Outbox::done(size_t payload_bytes) {
    std::lock_guard lock(mutex_);
    if (messages_ > 0) --messages_;
    bytes_ = payload_bytes <= bytes_ ? bytes_ - payload_bytes : 0;
}

}  // namespace mcph::sse
