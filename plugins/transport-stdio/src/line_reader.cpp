#include "line_reader.hpp"

namespace mcph::stdio {

namespace {
// Above this the pending buffer is given back after each line, so one huge message does not pin
// its peak memory for the lifetime of the transport.
constexpr size_t kKeepCapacity = size_t{1} << 20;
}  // namespace

bool LineReader::fits_pending(size_t extra) const noexcept {
    // +1 leaves room for a '\r' that will be stripped when the line completes.
    size_t limit = max_line_ + 1;
    return pending_.size() <= limit && extra <= limit - pending_.size();
}

void LineReader::release_pending() noexcept {
    if (pending_.capacity() > kKeepCapacity)
        std::string().swap(pending_);
    else
        pending_.clear();
}

}  // namespace mcph::stdio
