#include "send_queue.hpp"

#include <libwebsockets.h>

#include <algorithm>
#include <cstring>

namespace mcph::ws {

size_t OutgoingMessage::payload_size() const { return storage.size() - LWS_PRE; }
unsigned char* OutgoingMessage::payload() { return reinterpret_cast<unsigned char*>(storage.data()) + LWS_PRE; }

std::unique_ptr<OutgoingMessage> make_outgoing(std::string_view payload) {
    auto m = std::make_unique<OutgoingMessage>();
    m->storage.resize(LWS_PRE + payload.size());
    std::memcpy(m->storage.data() + LWS_PRE, payload.data(), payload.size());
    return m;
}

bool SendQueue::has_room_for(size_t payload_bytes) const {
    return pending_ == 0 || payload_bytes <= capacity_ - std::min(capacity_, pending_);
}

bool SendQueue::push(std::unique_ptr<OutgoingMessage>& message) {
    size_t n = message->payload_size();
    if (!has_room_for(n)) return false;
    pending_ += n;
    queue_.push_back(std::move(message));
    return true;
}

std::unique_ptr<OutgoingMessage> SendQueue::pop() {
    if (queue_.empty()) return nullptr;
    auto m = std::move(queue_.front());
    queue_.pop_front();
    return m;
}

void SendQueue::done(size_t payload_bytes) { pending_ -= std::min(pending_, payload_bytes); }

void SendQueue::clear() {
    queue_.clear();
    pending_ = 0;
}

}  // namespace mcph::ws
