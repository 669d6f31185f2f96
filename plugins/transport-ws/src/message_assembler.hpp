// Reassembles incoming WebSocket text messages from the pieces libwebsockets hands us.
//
// libwebsockets delivers a message as a series of RECEIVE callbacks: one per frame, and a frame
// larger than the receive buffer is itself split. lws_is_final_fragment() is true only on the
// very last piece of the last frame, so "append until final" is all the framing we need.
// A message that arrives in one piece is passed through as a view (no copy, the common case).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcph::ws {

class MessageAssembler {
public:
    enum class Step {
        Partial,   // more pieces to come
        Message,   // message() holds one complete text message
        Skipped,   // a whole binary message went by (ignored, nothing buffered)
        TooLarge,  // the message would exceed the limit: the connection must be failed
    };

    explicit MessageAssembler(size_t max_bytes) : max_bytes_(max_bytes) {}

    // `binary` is read only on the first piece of a message (continuations inherit it).
    Step feed(std::string_view piece, bool final, bool binary);
    // Valid after feed() returned Message, until the next feed() or reset().
    std::string_view message() const { return message_; }
    bool skipping_binary() const { return state_ == State::Binary; }
    void reset();

private:
    enum class State { Idle, Text, Binary };
    size_t max_bytes_;
    State state_ = State::Idle;
    std::string buffer_;
    std::string_view message_;
};

}  // namespace mcph::ws
