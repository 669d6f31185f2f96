// Newline framing for the child's stdout: bytes in, complete messages out.
//
// MCP stdio frames each JSON-RPC message as one line. A line that fits inside the chunk just
// read is handed out as a view into that chunk (zero copies: this is the hot path). Only a line
// that straddles reads is accumulated in `pending_`, which grows geometrically, so even a 50 MB
// line costs O(n) copying. The limit is checked *before* appending, so memory stays bounded by
// max_line however long the line the peer sends.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace mcph::stdio {

class LineReader {
public:
    explicit LineReader(size_t max_line) : max_line_(max_line) {}

    // Feeds one chunk; calls on_line(std::string_view) for every complete, non-empty line, with
    // a trailing '\r' stripped. Returns false as soon as a line exceeds max_line (the stream is
    // then unusable: the caller must stop feeding).
    template <class OnLine>
    bool feed(const char* data, size_t size, OnLine&& on_line);

    size_t max_line() const noexcept { return max_line_; }
    size_t pending_size() const noexcept { return pending_.size(); }

private:
    template <class OnLine>
    bool emit(std::string_view line, OnLine& on_line) const;
    bool fits_pending(size_t extra) const noexcept;
    void release_pending() noexcept;

    size_t max_line_;
    std::string pending_;  // the start of a line that straddles reads
};

template <class OnLine>
bool LineReader::feed(const char* data, size_t size, OnLine&& on_line) {
    const char* end = data + size;
    while (data < end) {
        const char* nl = static_cast<const char*>(std::memchr(data, '\n', static_cast<size_t>(end - data)));
        size_t length = static_cast<size_t>((nl ? nl : end) - data);
        if (!nl) {  // an unfinished line: keep it for the next chunk
            if (!fits_pending(length)) return false;
            pending_.append(data, length);
            return true;
        }
        if (pending_.empty()) {
            if (!emit(std::string_view(data, length), on_line)) return false;
        } else {
            if (!fits_pending(length)) return false;
            pending_.append(data, length);
            bool ok = emit(pending_, on_line);
            release_pending();
            if (!ok) return false;
        }
        data = nl + 1;
    }
    return true;
}

template <class OnLine>
bool LineReader::emit(std::string_view line, OnLine& on_line) const {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > max_line_) return false;
    if (!line.empty()) on_line(line);  // blank lines are keep-alive noise, not messages
    return true;
}

}  // namespace mcph::stdio
