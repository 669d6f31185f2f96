// The outgoing message queue: filled by send() on any thread, drained by the service thread.
//
// Each message is stored once, already laid out the way lws_write() wants it: LWS_PRE spare
// bytes, then the payload. The frame writer sends it in chunks; the LWS_PRE bytes in front of a
// later chunk are payload that has already gone out, so lws may scribble its frame header there
// and no chunk is ever copied again.
//
// Memory is bounded: push() refuses (Full) once the queued payload would pass `capacity`, unless
// the queue is empty (a single message up to the size limit is always accepted).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

namespace mcph::ws {

struct OutgoingMessage {
    std::string storage;  // LWS_PRE bytes + payload; writable, since lws masks client frames in place
    size_t payload_size() const;
    unsigned char* payload();
};

std::unique_ptr<OutgoingMessage> make_outgoing(std::string_view payload);

class SendQueue {
public:
    explicit SendQueue(size_t capacity) : capacity_(capacity) {}

    // Not thread-safe on its own: the transport guards it with its mutex.
    bool push(std::unique_ptr<OutgoingMessage>& message);  // false = full, message left untouched
    std::unique_ptr<OutgoingMessage> pop();
    void done(size_t payload_bytes);  // a popped message was written (or dropped): free its budget
    bool empty() const { return queue_.empty(); }
    size_t pending_bytes() const { return pending_; }
    bool has_room_for(size_t payload_bytes) const;
    void clear();

private:
    size_t capacity_;
    size_t pending_ = 0;  // payload bytes queued or being written
    std::deque<std::unique_ptr<OutgoingMessage>> queue_;
};

}  // namespace mcph::ws
