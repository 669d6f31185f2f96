// Newline framing for the child's stdout: bytes in, complete messages out.
//
// MCP stdio frames each JSON-RPC message as one line. The reader owns one buffer and the pipe is
// read straight into it (room() / commit()): a line is handed out as a view into that buffer, so
// no byte is copied between the read(2) and the host, however many reads a line straddles. Only
// the unfinished tail of a read is moved to the front, once, when the buffer runs out of room.
//
// Memory: the buffer grows geometrically while a line does not fit, and never past what the limit
// needs (max_line + the read size): the limit is checked as bytes arrive, so a peer that never ends
// its line costs at most that. A large buffer is kept while large lines keep coming (a fresh
// megabyte per message costs 256 page faults, more than the read itself on a VM; issue #16), and
// given back once kShrinkAfterLines small lines in a row show the large ones stopped, or at once
// when it is above kRetainBytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace mcph::stdio {

class LineReader {
public:
    static constexpr size_t kReadBytes = size_t{64} << 10;     // the room offered per read (a pipe's default size)
    static constexpr size_t kRetainBytes = size_t{4} << 20;    // above this the buffer is given back when empty
    static constexpr unsigned kShrinkAfterLines = 16;          // small lines in a row before a big buffer goes

    explicit LineReader(size_t max_line) : max_line_(max_line) {}

    struct Room {
        char* data;
        size_t size;
    };
    // Where the next read(2) should put its bytes: at least kReadBytes.
    // Throws std::bad_alloc when the buffer cannot grow.
    Room room();
    // `n` bytes were written at room().data: calls on_line(std::string_view) for every complete,
    // non-empty line, with a trailing '\r' stripped. Returns false as soon as a line exceeds
    // max_line (the stream is then unusable: the caller must stop feeding).
    template <class OnLine>
    bool commit(size_t n, OnLine&& on_line);

    // Copies `size` bytes in and commits them (for callers that already hold the bytes, and tests).
    template <class OnLine>
    bool feed(const char* data, size_t size, OnLine&& on_line);

    // Drops what is buffered and gives the memory back (after a framing error: what follows is
    // drained, never delivered).
    void discard() noexcept;

    size_t max_line() const noexcept { return max_line_; }
    size_t pending_size() const noexcept { return end_ - begin_; }
    size_t capacity() const noexcept { return capacity_; }

private:
    template <class OnLine>
    bool emit(std::string_view line, OnLine& on_line);
    bool pending_fits() const noexcept;
    void after_lines() noexcept;
    void reallocate(size_t capacity);

    size_t max_line_;
    std::unique_ptr<char[]> buffer_;
    size_t capacity_ = 0;
    size_t begin_ = 0;    // first byte of the unfinished line
    size_t scanned_ = 0;  // bytes before this hold no newline after begin_
    size_t end_ = 0;      // one past the last byte read
    unsigned small_lines_ = 0;  // lines in a row that would have fitted the default buffer
};

template <class OnLine>
bool LineReader::commit(size_t n, OnLine&& on_line) {
    end_ += n;
    char* base = buffer_.get();
    while (scanned_ < end_) {
        const char* nl = static_cast<const char*>(std::memchr(base + scanned_, '\n', end_ - scanned_));
        if (!nl) {
            scanned_ = end_;
            break;
        }
        const size_t at = static_cast<size_t>(nl - base);
        if (!emit(std::string_view(base + begin_, at - begin_), on_line)) return false;
        begin_ = scanned_ = at + 1;
    }
    if (!pending_fits()) return false;
    if (begin_ == end_) after_lines();
    return true;
}

template <class OnLine>
bool LineReader::feed(const char* data, size_t size, OnLine&& on_line) {
    while (size > 0) {
        Room r = room();
        const size_t n = size < r.size ? size : r.size;
        std::memcpy(r.data, data, n);
        if (!commit(n, on_line)) return false;
        data += n;
        size -= n;
    }
    return true;
}

template <class OnLine>
bool LineReader::emit(std::string_view line, OnLine& on_line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > max_line_) return false;
    small_lines_ = line.size() <= kReadBytes / 2 ? small_lines_ + 1 : 0;
    if (!line.empty()) on_line(line);  // blank lines are keep-alive noise, not messages
    return true;
}

}  // namespace mcph::stdio
