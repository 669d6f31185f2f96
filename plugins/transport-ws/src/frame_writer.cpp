#include "frame_writer.hpp"

#include <libwebsockets.h>

#include <algorithm>

namespace mcph::ws {

void FrameWriter::begin(std::unique_ptr<OutgoingMessage> message) {
    message_ = std::move(message);
    offset_ = 0;
}

FrameChunk FrameWriter::next() const {
    size_t total = message_->payload_size();
    size_t n = std::min(kChunkBytes, total - offset_);
    bool first = offset_ == 0;
    bool last = offset_ + n == total;
    return FrameChunk{message_->payload() + offset_, n, lws_write_ws_flags(LWS_WRITE_TEXT, first, last), last};
}

size_t FrameWriter::advance(size_t written) {
    offset_ += written;
    if (offset_ < message_->payload_size()) return 0;
    size_t total = message_->payload_size();
    message_.reset();
    offset_ = 0;
    return total;
}

size_t FrameWriter::abandon() {
    size_t total = message_ ? message_->payload_size() : 0;
    message_.reset();
    offset_ = 0;
    return total;
}

}  // namespace mcph::ws
