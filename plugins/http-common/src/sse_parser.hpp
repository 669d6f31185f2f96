// An incremental parser for text/event-stream (the WHATWG "server-sent events" format).
//
// Bytes arrive in arbitrary chunks; events come out as soon as their terminating blank line is
// seen, so a message can be acted on while the stream stays open. Lines end in CRLF, LF or CR
// (a CR at the end of one chunk and an LF at the start of the next are one line break). A UTF-8
// BOM at the very start is skipped. Memory is bounded: everything the parser holds — the
// unterminated line, the event's data, its type, the new and the last event id — counts against
// `max_event_bytes`; more makes feed() return TooLarge, and the stream must be abandoned. An id is
// copied once, from the input (a 100 MB `id:` used to be copied five times past every bound).
// Pure and incremental (no I/O, no clock): it is fuzzed as is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcph::http {

class SseParser {
public:
    struct Event {
        std::string_view type;           // "message" unless an `event:` field said otherwise
        std::string_view data;           // `data:` lines joined by "\n"; may be empty
        std::string_view last_event_id;  // the stream's last event id after this event
    };
    // Receives parser output; called synchronously from feed()/finish().
    class Sink {
    public:
        virtual void on_event(const Event& event) = 0;
        virtual void on_retry(uint64_t milliseconds) = 0;

    protected:
        ~Sink() = default;
    };
    enum class Status { Ok, TooLarge };

    explicit SseParser(size_t max_event_bytes) : max_(max_event_bytes) {}

    Status feed(std::string_view chunk, Sink& sink);

    // The stream ended cleanly. Unlike the browser algorithm (which drops an unterminated event),
    // a complete final line and a pending event are dispatched: servers that forget the last
    // blank line are common, and a clean end means nothing was cut. Callers skip this on errors.
    Status finish(Sink& sink);

    const std::string& last_event_id() const { return last_id_; }

private:
    static constexpr size_t kKeepCapacity = size_t{1} << 20;

    Status take_line(std::string_view line, Sink& sink);
    void start_streaming_data();
    void append(std::string& s, std::string_view more);
    void field(std::string_view name, std::string_view value, Sink& sink);
    void dispatch(Sink& sink);
    size_t held() const {
        return line_.size() + data_.size() + type_.size() + (has_new_id_ ? new_id_.size() : 0) + last_id_.size();
    }
    bool over_limit(size_t extra) const { return extra > max_ || held() > max_ - extra; }

    size_t max_;
    std::string line_;      // an unterminated line carried over from the previous chunk
    std::string data_;      // data buffer of the event being assembled
    std::string type_;      // event type buffer
    // The standard's "last event ID buffer" is new_id_ when has_new_id_, else last_id_: an `id:`
    // field since the last dispatch is kept apart and moved (not copied) into last_id_ on dispatch.
    std::string new_id_;
    bool has_new_id_ = false;
    std::string last_id_;   // last event id as of the most recent dispatch
    bool pending_ = false; // a field was seen since the last dispatch
    bool streaming_data_ = false;  // inside a long `data:` line whose value goes straight to data_
    bool skip_space_ = false;      // ... and the optional space after the colon has not come yet
    bool skip_lf_ = false; // the previous chunk ended in CR: a leading LF belongs to it
    bool first_line_ = true;
};

}  // namespace mcph::http
