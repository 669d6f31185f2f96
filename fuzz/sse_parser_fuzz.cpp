// The text/event-stream parser (plugins/http-common/src/sse_parser.*), fed a server's response
// body in arbitrary read sizes. Checked: no event's data exceeds the bound; splitting the stream
// differently never changes an event: both runs deliver the same events, or, when one trips the
// bound, the events it delivered first are a prefix of the other's.
#include "fuzz_support.hpp"
#include "sse_parser.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

struct Recorded {
    std::string type, data, id;
    uint64_t retry = 0;
    bool is_retry = false;
    bool operator==(const Recorded&) const = default;
};

class Recorder : public mcph::http::SseParser::Sink {
public:
    explicit Recorder(size_t max) : max_(max) {}
    void on_event(const mcph::http::SseParser::Event& e) override {
        MCPH_FUZZ_CHECK(e.data.size() <= max_);
        MCPH_FUZZ_CHECK(!e.type.empty());
        out.push_back({std::string(e.type), std::string(e.data), std::string(e.last_event_id), 0, false});
    }
    void on_retry(uint64_t ms) override { out.push_back({{}, {}, {}, ms, true}); }
    std::vector<Recorded> out;

private:
    size_t max_;
};

using Status = mcph::http::SseParser::Status;

Status run(const std::vector<std::string_view>& pieces, size_t max, Recorder& sink) {
    mcph::http::SseParser parser(max);
    for (std::string_view piece : pieces) {
        Status st = parser.feed(piece, sink);
        if (st != Status::Ok) return st;  // the transport abandons the stream
    }
    return parser.finish(sink);
}

bool is_prefix(const std::vector<Recorded>& a, const std::vector<Recorded>& b) {
    return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = mcph::fuzz::as_text(data, size);
    const uint8_t seed = size ? data[0] : 0;
    const size_t max = (seed & 1) ? 1 + seed % 128 : size_t{1} << 16;

    Recorder whole(max), split(max);
    const Status whole_status = run({text}, max, whole);
    const Status split_status = run(mcph::fuzz::chunks(text, seed), max, split);

    // Both ended cleanly: the same events. Either tripped the bound: what it delivered before is a
    // prefix of what the other delivered (where exactly the bound trips may differ by a field name's
    // few bytes between a line read whole and a data line streamed across reads).
    if (whole_status == Status::Ok && split_status == Status::Ok) {
        MCPH_FUZZ_CHECK(split.out == whole.out);
    } else if (whole_status == Status::Ok) {
        MCPH_FUZZ_CHECK(is_prefix(split.out, whole.out));
    } else if (split_status == Status::Ok) {
        MCPH_FUZZ_CHECK(is_prefix(whole.out, split.out));
    } else {
        MCPH_FUZZ_CHECK(is_prefix(split.out, whole.out) || is_prefix(whole.out, split.out));
    }
    return 0;
}
