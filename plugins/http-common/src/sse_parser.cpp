#include "sse_parser.hpp"

#include <cstring>

namespace mcph::http {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr uint64_t kMaxRetryMs = uint64_t{24} * 3600 * 1000;  // clamp absurd values instead of overflowing

bool parse_digits(std::string_view s, uint64_t& out) {
    if (s.empty()) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        if (v < kMaxRetryMs) v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    out = v < kMaxRetryMs ? v : kMaxRetryMs;
    return true;
}

// The first '\r' or '\n' at or after `from`, or npos. Two memchr passes instead of
// find_first_of("\r\n"), which tests each byte against the set one at a time: a 1 MiB data line
// cost milliseconds that way (issue #16).
size_t find_line_end(std::string_view chunk, size_t from) {
    const char* begin = chunk.data() + from;
    const size_t left = chunk.size() - from;
    const void* lf = std::memchr(begin, '\n', left);
    const size_t scan = lf ? static_cast<size_t>(static_cast<const char*>(lf) - begin) : left;
    const void* cr = std::memchr(begin, '\r', scan);
    if (cr) return from + static_cast<size_t>(static_cast<const char*>(cr) - begin);
    return lf ? from + scan : std::string_view::npos;
}

}  // namespace

SseParser::Status SseParser::feed(std::string_view chunk, Sink& sink) {
    size_t i = 0;
    if (skip_lf_ && !chunk.empty()) {
        skip_lf_ = false;
        if (chunk[0] == '\n') i = 1;
    }
    while (i < chunk.size()) {
        if (streaming_data_ && skip_space_) {  // the one space after "data:" came in this chunk
            skip_space_ = false;
            if (chunk[i] == ' ') ++i;
            continue;
        }
        size_t end = find_line_end(chunk, i);
        size_t stop = end == std::string_view::npos ? chunk.size() : end;
        Status st = Status::Ok;
        if (streaming_data_) {
            // A long data line: its value goes straight into data_, never through line_.
            if (over_limit(stop - i + 1)) return Status::TooLarge;
            append(data_, chunk.substr(i, stop - i));
            if (end == std::string_view::npos) return Status::Ok;
            streaming_data_ = false;
            data_.push_back('\n');
            pending_ = true;
        } else if (end == std::string_view::npos) {
            if (over_limit(chunk.size() - i)) return Status::TooLarge;
            line_.append(chunk.substr(i));
            start_streaming_data();
            return Status::Ok;
        } else if (line_.empty()) {
            st = take_line(chunk.substr(i, end - i), sink);  // common case: no copy
        } else {
            if (over_limit(end - i)) return Status::TooLarge;
            line_.append(chunk.substr(i, end - i));
            std::string line = std::move(line_);
            line_.clear();
            st = take_line(line, sink);
        }
        if (st != Status::Ok) return st;
        if (chunk[end] == '\r') {
            if (end + 1 == chunk.size()) skip_lf_ = true;
            else if (chunk[end + 1] == '\n') ++end;
        }
        i = end + 1;
    }
    return Status::Ok;
}

// An unterminated line that turns out to be a `data:` field switches to streaming: the value
// is moved into data_ now and the rest of the line appended there as it arrives. Without this a
// long data line was held twice — in line_, then copied into data_ — peaking near 3× its size.
void SseParser::start_streaming_data() {
    std::string_view v = line_;
    if (first_line_) {
        if (v.size() < kBom.size() && kBom.substr(0, v.size()) == v) return;  // maybe a BOM, not yet known
        if (v.substr(0, kBom.size()) == kBom) v.remove_prefix(kBom.size());
    }
    size_t colon = v.find(':');
    if (colon == std::string_view::npos || v.substr(0, colon) != "data") return;
    std::string_view value = v.substr(colon + 1);
    first_line_ = false;
    skip_space_ = value.empty();
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    append(data_, value);
    line_.clear();
    if (line_.capacity() > kKeepCapacity) std::string().swap(line_);
    streaming_data_ = true;
}

// Grows `s` for `more` bytes. Past kKeepCapacity it reserves the whole bound at once: address
// space only (pages are touched as bytes arrive), so a large event costs about its size instead
// of a doubling string's transient 1.5–2×.
void SseParser::append(std::string& s, std::string_view more) {
    if (s.size() + more.size() > s.capacity() && s.size() + more.size() > kKeepCapacity) s.reserve(max_);
    s.append(more);
}

SseParser::Status SseParser::finish(Sink& sink) {
    if (streaming_data_) {  // a clean end completes the line
        streaming_data_ = false;
        skip_space_ = false;
        data_.push_back('\n');
        pending_ = true;
    }
    if (!line_.empty()) {
        std::string line = std::move(line_);
        line_.clear();
        if (take_line(line, sink) != Status::Ok) return Status::TooLarge;
    }
    if (pending_) dispatch(sink);
    return Status::Ok;
}

SseParser::Status SseParser::take_line(std::string_view line, Sink& sink) {
    if (first_line_) {
        first_line_ = false;
        if (line.substr(0, kBom.size()) == kBom) line.remove_prefix(kBom.size());
    }
    if (line.empty()) {
        if (pending_) dispatch(sink);
        return Status::Ok;
    }
    if (line[0] == ':') return Status::Ok;  // a comment, e.g. a keep-alive
    size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    if (name == "data" && over_limit(value.size() + 1)) return Status::TooLarge;
    if ((name == "event" || name == "id") && over_limit(value.size())) return Status::TooLarge;
    field(name, value, sink);
    return Status::Ok;
}

void SseParser::field(std::string_view name, std::string_view value, Sink& sink) {
    if (name == "data") {
        append(data_, value);
        data_.push_back('\n');
    } else if (name == "event") {
        type_.assign(value);
    } else if (name == "id") {
        if (value.find('\0') != std::string_view::npos) return;  // the standard ignores such ids
        new_id_.assign(value);
        has_new_id_ = true;
    } else if (name == "retry") {
        uint64_t ms = 0;
        if (parse_digits(value, ms)) sink.on_retry(ms);
        return;  // retry alone does not make an event
    } else {
        return;  // unknown fields are ignored
    }
    pending_ = true;
}

void SseParser::dispatch(Sink& sink) {
    pending_ = false;
    if (has_new_id_) {
        last_id_.swap(new_id_);  // no copy; new_id_'s old buffer is reused by the next `id:`
        has_new_id_ = false;
        new_id_.clear();
        if (new_id_.capacity() > 4096) std::string().swap(new_id_);  // a huge old id is not kept around
    }
    std::string_view data = data_;
    if (!data.empty()) data.remove_suffix(1);  // the newline after the last data line
    Event e{type_.empty() ? std::string_view("message") : std::string_view(type_), data, last_id_};
    sink.on_event(e);
    data_.clear();
    if (data_.capacity() > kKeepCapacity) std::string().swap(data_);  // one big event does not pin its memory
    type_.clear();
}

}  // namespace mcph::http
