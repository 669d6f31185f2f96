#include "json/message_parse.hpp"

#include "json/sse2_reader.hpp"

namespace mcph::json {
namespace {

// The bounded handler chain behind the SSE2 reader's virtual calls.
template <class Handler>
class SinkFor final : public sse2::SaxSink {
public:
    explicit SinkFor(Handler& h) : h_(h) {}
    bool Null() override { return h_.Null(); }
    bool Bool(bool b) override { return h_.Bool(b); }
    bool Int(int i) override { return h_.Int(i); }
    bool Uint(unsigned u) override { return h_.Uint(u); }
    bool Int64(std::int64_t i) override { return h_.Int64(i); }
    bool Uint64(std::uint64_t u) override { return h_.Uint64(u); }
    bool Double(double d) override { return h_.Double(d); }
    bool RawNumber(const char* s, unsigned n, bool copy) override { return h_.RawNumber(s, n, copy); }
    bool String(const char* s, unsigned n, bool copy) override { return h_.String(s, n, copy); }
    bool StartObject() override { return h_.StartObject(); }
    bool Key(const char* s, unsigned n, bool copy) override { return h_.Key(s, n, copy); }
    bool EndObject(unsigned n) override { return h_.EndObject(n); }
    bool StartArray() override { return h_.StartArray(); }
    bool EndArray(unsigned n) override { return h_.EndArray(n); }

private:
    Handler& h_;
};

}  // namespace

json_bounds::ParseOutcome parse_message(rapidjson::Document& doc, std::string_view text, unsigned max_depth,
                                        std::size_t scan_from) {
    if (text.size() < scan_from || !sse2::available() || sse2::has_blind_bytes(text))
        return json_bounds::parse(doc, text, max_depth);
    return json_bounds::parse_with(doc, text, max_depth, [](char* data, auto& handler) {
        SinkFor<std::remove_reference_t<decltype(handler)>> sink(handler);
        const sse2::Result r = sse2::parse_insitu(data, sink);
        return rapidjson::ParseResult(static_cast<rapidjson::ParseErrorCode>(r.code), r.offset);
    });
}

}  // namespace mcph::json
