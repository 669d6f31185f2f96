// mcph::json_writer::Writer — RapidJSON's compact Writer with strings (and raw values) copied in
// runs instead of byte by byte. Output is byte-identical to rapidjson::Writer<Buffer> with the
// default flags: `"`, `\` and the control characters below 0x20 are escaped (\b \t \n \f \r as short
// escapes, the others as \u00XX, upper-case hex), every other byte (UTF-8 included) is copied as is.
//
// Why not RapidJSON's own fast path: its SSE2 scan (RAPIDJSON_SSE2) in 1.1.0 lets some control
// characters through unescaped, and without it every byte of every string goes through an escape
// table lookup and a put of its own — a 1 MiB tool argument costs about a millisecond of CPU just
// to be written. Here a 16-byte SSE2 compare finds the next byte that needs an escape and the run
// before it is one memcpy into the buffer.
//
// Header-only, for the host and the plugins alike. `Buffer` needs RapidJSON's StringBuffer
// interface with `Ch* Push(size_t)` (rapidjson::StringBuffer has it).
#ifndef MCPH_JSON_WRITER_HPP
#define MCPH_JSON_WRITER_HPP

#include <mcph/scratch_buffer.hpp>

#include <rapidjson/writer.h>

#include <cstddef>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcph::json_writer {

// True for the bytes JSON requires escaped: `"`, `\` and U+0000..U+001F.
constexpr bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// The first byte in [p, end) that needs an escape, or `end`. Never reads outside [p, end).
inline const char* next_escape(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i last_control = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, last_control), v);  // v <= 0x1F, unsigned
        const __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
        const int mask = _mm_movemask_epi8(_mm_or_si128(control, special));
        if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < end && !needs_escape(static_cast<unsigned char>(*p))) ++p;
    return p;
}

// Appends the escape of one byte for which needs_escape() holds.
template <class Buffer>
void put_escape(Buffer& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    char short_form = 0;
    switch (c) {
        case '"': short_form = '"'; break;
        case '\\': short_form = '\\'; break;
        case '\b': short_form = 'b'; break;
        case '\t': short_form = 't'; break;
        case '\n': short_form = 'n'; break;
        case '\f': short_form = 'f'; break;
        case '\r': short_form = 'r'; break;
        default: break;
    }
    if (short_form) {
        char* at = out.Push(2);
        at[0] = '\\';
        at[1] = short_form;
        return;
    }
    char* at = out.Push(6);
    std::memcpy(at, "\\u00", 4);
    at[4] = kHex[c >> 4];
    at[5] = kHex[c & 0xF];
}

// Appends `s` quoted and escaped. Most strings (keys, method names, ids) need no escape: those
// take one Push for the quotes and the bytes together.
template <class Buffer>
void put_quoted(Buffer& out, const char* s, std::size_t n) {
    const char* end = s + n;
    const char* first = next_escape(s, end);
    if (first == end) {
        char* at = out.Push(n + 2);
        at[0] = '"';
        if (n) std::memcpy(at + 1, s, n);
        at[n + 1] = '"';
        return;
    }
    out.Put('"');
    if (first != s) {
        std::memcpy(out.Push(static_cast<std::size_t>(first - s)), s, static_cast<std::size_t>(first - s));
        s = first;
    }
    while (s < end) {
        const char* stop = next_escape(s, end);
        if (stop != s) {
            std::memcpy(out.Push(static_cast<std::size_t>(stop - s)), s, static_cast<std::size_t>(stop - s));
            s = stop;
        }
        if (s != end) put_escape(out, static_cast<unsigned char>(*s++));
    }
    out.Put('"');
}

// Its stack of nesting levels lives in this thread's retained stack block (scratch_buffer.hpp):
// RapidJSON's own default is a malloc and the `new` of an allocator object per writer.
template <class Buffer>
class Writer : public rapidjson::Writer<Buffer, rapidjson::UTF8<>, rapidjson::UTF8<>, scratch::StackAllocator> {
    using Base = rapidjson::Writer<Buffer, rapidjson::UTF8<>, rapidjson::UTF8<>, scratch::StackAllocator>;

public:
    using Ch = char;
    explicit Writer(Buffer& out) : Base(out, &scratch::shared_allocator<scratch::Kind::Stack>()) {}

    // Hides every String/Key/RawValue overload of the base: each goes through put_quoted.
    bool String(const Ch* s, rapidjson::SizeType n, bool copy = false) {
        (void)copy;
        this->Prefix(rapidjson::kStringType);
        put_quoted(*this->os_, s, n);
        return this->EndValue(true);
    }
    bool String(const Ch* s) { return String(s, static_cast<rapidjson::SizeType>(std::strlen(s))); }
    bool String(const std::string& s) { return String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
    bool Key(const Ch* s, rapidjson::SizeType n, bool copy = false) { return String(s, n, copy); }
    bool Key(const Ch* s) { return String(s); }
    bool Key(const std::string& s) { return String(s); }
    bool RawValue(const Ch* json, std::size_t n, rapidjson::Type type) {
        this->Prefix(type);
        if (n) std::memcpy(this->os_->Push(n), json, n);
        return this->EndValue(true);
    }
};

}  // namespace mcph::json_writer

#endif  // MCPH_JSON_WRITER_HPP
