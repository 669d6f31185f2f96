// RapidJSON's reader with RAPIDJSON_SSE2, in a namespace of its own: sse2_reader.hpp says why.
// This file must be compiled alone (never batched into a unity source with other RapidJSON users:
// host/CMakeLists.txt marks it), and must include nothing that includes RapidJSON.
#include "json/sse2_reader.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#define MCPH_JSON_SSE2 1
#define RAPIDJSON_SSE2
#endif
#define RAPIDJSON_NAMESPACE mcph_rapidjson_sse2
#include <rapidjson/reader.h>

namespace mcph::json::sse2 {
namespace {

namespace rj = mcph_rapidjson_sse2;

// RapidJSON's Handler concept over the sink.
struct Forward {
    using Ch = char;
    SaxSink& sink;
    bool Null() { return sink.Null(); }
    bool Bool(bool b) { return sink.Bool(b); }
    bool Int(int i) { return sink.Int(i); }
    bool Uint(unsigned u) { return sink.Uint(u); }
    bool Int64(int64_t i) { return sink.Int64(i); }
    bool Uint64(uint64_t u) { return sink.Uint64(u); }
    bool Double(double d) { return sink.Double(d); }
    bool RawNumber(const Ch* s, rj::SizeType n, bool copy) { return sink.RawNumber(s, n, copy); }
    bool String(const Ch* s, rj::SizeType n, bool copy) { return sink.String(s, n, copy); }
    bool StartObject() { return sink.StartObject(); }
    bool Key(const Ch* s, rj::SizeType n, bool copy) { return sink.Key(s, n, copy); }
    bool EndObject(rj::SizeType n) { return sink.EndObject(n); }
    bool StartArray() { return sink.StartArray(); }
    bool EndArray(rj::SizeType n) { return sink.EndArray(n); }
};

}  // namespace

bool available() noexcept {
#ifdef MCPH_JSON_SSE2
    return true;
#else
    return false;
#endif
}

bool has_blind_bytes(std::string_view text) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
#ifdef MCPH_JSON_SSE2
    // x - 0x1A (wrapping) <= 5  <=>  0x1A <= x <= 0x1F
    const __m128i base = _mm_set1_epi8(0x1A), five = _mm_set1_epi8(5);
    for (; end - p >= 16; p += 16) {
        const __m128i shifted = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), base);
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(shifted, five), shifted))) return true;
    }
#endif
    for (; p < end; ++p)
        if (*p >= 0x1A && *p <= 0x1F) return true;
    return false;
}

Result parse_insitu(char* text, SaxSink& sink) {
    Forward handler{sink};
    rj::InsituStringStream stream(text);
    rj::Reader reader;
    // Recursive, bounded by the caller's sink: json_bounds::DepthLimitedHandler refuses a level
    // before the reader descends into it (bounded_json.hpp).
    const rj::ParseResult r = reader.Parse<rj::kParseInsituFlag>(stream, handler);  // json-bounds-ok: the sink is depth-limited
    return {static_cast<int>(r.Code()), r.Offset()};
}

}  // namespace mcph::json::sse2
