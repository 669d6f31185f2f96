// mcph::json::sse2 — RapidJSON's reader with its 16-byte string and whitespace scans, for large
// messages (issue #16: a 1 MiB tool result spent 40% of the client's CPU in RapidJSON's
// byte-at-a-time string loop).
//
// Why a separate RapidJSON: the scans are compiled in only under RAPIDJSON_SSE2, a global switch
// that also turns on RapidJSON 1.1.0's SSE2 *writer*, which lets control bytes through unescaped
// (see CMakeLists.txt). So this one translation unit builds the reader in a namespace of its own
// (RAPIDJSON_NAMESPACE), where the switch touches nothing else; the rest of mcph keeps plain
// RapidJSON. The handler crosses the boundary as a table of virtual calls (SaxSink), since its
// types (the host's Document) live in the other namespace. This header includes no RapidJSON.
//
// The reader's scan has the same 1.1.0 flaw as the writer: bytes 0x1A-0x1F inside a string are not
// stopped at, so a string holding one would be accepted. parse_insitu() therefore refuses such
// text to its caller (has_blind_bytes), which then uses the plain reader: those bytes are never
// valid JSON anywhere (outside a string only tab, LF and CR may appear), so the plain reader's
// verdict and offset are the ones to give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mcph::json::sse2 {

// The SAX events of RapidJSON's Handler concept (lengths are RapidJSON's SizeType, unsigned).
class SaxSink {
public:
    virtual bool Null() = 0;
    virtual bool Bool(bool b) = 0;
    virtual bool Int(int i) = 0;
    virtual bool Uint(unsigned u) = 0;
    virtual bool Int64(std::int64_t i) = 0;
    virtual bool Uint64(std::uint64_t u) = 0;
    virtual bool Double(double d) = 0;
    virtual bool RawNumber(const char* s, unsigned length, bool copy) = 0;
    virtual bool String(const char* s, unsigned length, bool copy) = 0;
    virtual bool StartObject() = 0;
    virtual bool Key(const char* s, unsigned length, bool copy) = 0;
    virtual bool EndObject(unsigned members) = 0;
    virtual bool StartArray() = 0;
    virtual bool EndArray(unsigned elements) = 0;

protected:
    ~SaxSink() = default;
};

// RapidJSON's outcome: `code` is a rapidjson::ParseErrorCode value (0: none), `offset` where.
struct Result {
    int code = 0;
    std::size_t offset = 0;
};

// True when `text` holds a byte the scan does not stop at (0x1A-0x1F; see above).
bool has_blind_bytes(std::string_view text) noexcept;

// Whether this build has the scans (x86-64 with SSE2); without them parse_insitu is never used.
bool available() noexcept;

// Parses `text` in place — NUL-terminated, with 16 zero bytes after the NUL (the scans load 16
// aligned bytes, which may reach 15 past the terminator), feeding `sink`. The reader recurses once
// per level it enters: `sink` must refuse depth (as json_bounds::DepthLimitedHandler does).
// Caller: has_blind_bytes() was false for this text.
Result parse_insitu(char* text, SaxSink& sink);

}  // namespace mcph::json::sse2
