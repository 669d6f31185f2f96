// Writes one outgoing message as a sequence of WebSocket frames, one chunk per WRITEABLE callback.
//
// Why chunk rather than one lws_write() of the whole message: lws_write() never blocks; whatever
// the socket does not take it copies into its own buffer and sends later. A 50 MB message in one
// call would be copied again and would hold off our pings until it drained. Chunks of
// kChunkBytes (TEXT|NO_FIN, CONTINUATION|NO_FIN, ..., CONTINUATION) keep every write about the
// size of a socket buffer and let control frames (ping, close) go out between them, which
// RFC 6455 §5.4 allows.
#pragma once

#include "send_queue.hpp"

#include <cstddef>

namespace mcph::ws {

inline constexpr size_t kChunkBytes = size_t{64} << 10;

struct FrameChunk {
    unsigned char* data;  // inside the message's storage, with LWS_PRE writable bytes before it
    size_t size;
    int flags;            // enum lws_write_protocol bits for lws_write()
    bool last;
};

class FrameWriter {
public:
    bool busy() const { return message_ != nullptr; }
    void begin(std::unique_ptr<OutgoingMessage> message);
    FrameChunk next() const;             // the chunk to write now; requires busy()
    size_t advance(size_t written);      // after a successful lws_write; returns payload size when done, else 0
    size_t abandon();                    // drop the message; returns its payload size
private:
    std::unique_ptr<OutgoingMessage> message_;
    size_t offset_ = 0;
};

}  // namespace mcph::ws
