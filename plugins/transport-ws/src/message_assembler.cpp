#include "message_assembler.hpp"

namespace mcph::ws {
namespace {
// Above this, a finished message's buffer is released rather than kept for the next one, so one
// 100 MB message does not pin 100 MB for the life of the connection.
constexpr size_t kKeepCapacity = size_t{1} << 20;
}  // namespace

MessageAssembler::Step MessageAssembler::feed(std::string_view piece, bool final, bool binary) {
    message_ = {};
    if (state_ == State::Idle) {
        if (binary) {
            state_ = final ? State::Idle : State::Binary;
            return final ? Step::Skipped : Step::Partial;
        }
        if (piece.size() > max_bytes_) return Step::TooLarge;
        if (final) {  // the common case: the whole message in one piece, no copy
            message_ = piece;
            return Step::Message;
        }
        state_ = State::Text;
        buffer_.clear();
    }
    if (state_ == State::Binary) {
        if (final) state_ = State::Idle;
        return final ? Step::Skipped : Step::Partial;
    }
    // Checked before appending, so at most max_bytes_ are ever held.
    if (piece.size() > max_bytes_ - buffer_.size()) {
        reset();
        return Step::TooLarge;
    }
    buffer_.append(piece);
    if (!final) return Step::Partial;
    state_ = State::Idle;
    message_ = buffer_;
    return Step::Message;
}

void MessageAssembler::reset() {
    state_ = State::Idle;
    message_ = {};
    buffer_.clear();
    if (buffer_.capacity() > kKeepCapacity) std::string().swap(buffer_);
}

}  // namespace mcph::ws
