// Header-only: parse and write untrusted JSON with RapidJSON under a nesting bound.
//
// RapidJSON's parser, its Writer (Value::Accept) and Value::CopyFrom all recurse once per nesting
// level, so a line of a million '[' from a server, parsed unchecked, overflows the stack (SIGSEGV).
// Here the parser runs behind a handler that refuses the document once it nests deeper than the
// bound. RapidJSON calls StartObject/StartArray before it descends into a level, so the refusal
// also bounds the parser's own recursion: at the full 128 levels it takes about 17 KiB of stack
// (26 KiB under AddressSanitizer), measured. (Its iterative mode would need no stack per level, but
// costs a quarter more instructions per message: issue #16.) A tree built that way is shallow
// enough for every recursive RapidJSON routine. Writing goes through the same bound, so a tree
// built by hand can never be serialised past it either.
//
// Every reader of outside input — the host, each plugin, a vendor's plugin — uses these instead of
// Document::Parse / Value::Accept. Plugins include it like the rest of the plugin SDK; it needs
// RapidJSON only where it is included.
#ifndef MCPH_BOUNDED_JSON_HPP
#define MCPH_BOUNDED_JSON_HPP

#include <mcph/json_writer.hpp>
#include <mcph/scratch_buffer.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace mcph::json_bounds {

// Deep enough for any real message (JSON Schemas nest a few dozen levels at most), shallow enough
// that every recursive routine stays far from the stack's end even on a 256 KiB thread stack.
inline constexpr unsigned kMaxDepth = 128;

// Forwards SAX events to `Inner`, failing (returning false, which stops the parser or Accept)
// when an array or object opens past `max_depth` levels.
template <class Inner>
class DepthLimitedHandler {
public:
    using Ch = char;
    DepthLimitedHandler(Inner& inner, unsigned max_depth) : inner_(inner), max_depth_(max_depth) {}

    bool too_deep() const { return too_deep_; }
    bool not_finite() const { return not_finite_; }

    bool Null() { return inner_.Null(); }
    bool Bool(bool b) { return inner_.Bool(b); }
    bool Int(int i) { return inner_.Int(i); }
    bool Uint(unsigned u) { return inner_.Uint(u); }
    bool Int64(int64_t i) { return inner_.Int64(i); }
    bool Uint64(uint64_t u) { return inner_.Uint64(u); }
    // RapidJSON reads some over-long numbers (many digits and a large exponent) as infinity without
    // an error, and its Writer then refuses the value, leaving half a document: such a number is
    // refused here as too big, so every parsed tree can be written back (found by
    // fuzz/bounded_json_fuzz.cpp).
    bool Double(double d) {
        if (!std::isfinite(d)) {
            not_finite_ = true;
            return false;
        }
        return inner_.Double(d);
    }
    bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.RawNumber(s, n, copy); }
    bool String(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.String(s, n, copy); }
    bool Key(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.Key(s, n, copy); }
    bool StartObject() { return open() && inner_.StartObject(); }
    bool EndObject(rapidjson::SizeType n) { return close() && inner_.EndObject(n); }
    bool StartArray() { return open() && inner_.StartArray(); }
    bool EndArray(rapidjson::SizeType n) { return close() && inner_.EndArray(n); }

private:
    bool open() {
        if (depth_ >= max_depth_) {
            too_deep_ = true;
            return false;
        }
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }

    Inner& inner_;
    unsigned max_depth_;
    unsigned depth_ = 0;
    bool too_deep_ = false;
    bool not_finite_ = false;
};

// Why a parse failed, typed (the message is for people).
struct ParseOutcome {
    enum class Status { Ok, Malformed, TooDeep };
    Status status = Status::Ok;
    rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
    std::size_t offset = 0;
    unsigned max_depth = kMaxDepth;

    explicit operator bool() const { return status == Status::Ok; }
    std::string message() const {
        if (status == Status::TooDeep)
            return "JSON nested deeper than " + std::to_string(max_depth) + " levels at offset " + std::to_string(offset);
        if (status == Status::Malformed)
            return std::string(rapidjson::GetParseError_En(code)) + " at offset " + std::to_string(offset);
        return {};
    }
};

// Forwards SAX events to `Inner`, each string's and raw number's "copy" flag decided by
// `CopyOf(length, copy)` (keys are always copied).
template <class Inner, bool (*CopyOf)(rapidjson::SizeType, bool)>
class RecopyingStrings {
public:
    using Ch = char;
    explicit RecopyingStrings(Inner& inner) : inner_(inner) {}

    bool Null() { return inner_.Null(); }
    bool Bool(bool b) { return inner_.Bool(b); }
    bool Int(int i) { return inner_.Int(i); }
    bool Uint(unsigned u) { return inner_.Uint(u); }
    bool Int64(int64_t i) { return inner_.Int64(i); }
    bool Uint64(uint64_t u) { return inner_.Uint64(u); }
    bool Double(double d) { return inner_.Double(d); }
    bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.RawNumber(s, n, CopyOf(n, copy)); }
    bool String(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.String(s, n, CopyOf(n, copy)); }
    bool Key(const Ch* s, rapidjson::SizeType n, bool) { return inner_.Key(s, n, true); }
    bool StartObject() { return inner_.StartObject(); }
    bool EndObject(rapidjson::SizeType n) { return inner_.EndObject(n); }
    bool StartArray() { return inner_.StartArray(); }
    bool EndArray(rapidjson::SizeType n) { return inner_.EndArray(n); }

private:
    Inner& inner_;
};

inline bool always_copy(rapidjson::SizeType, bool) { return true; }

// Every string copied: an in-situ parse hands out pointers into its scratch buffer, which dies
// with the parse, so the tree must own its strings. (Borrowing them instead would leave RapidJSON
// "const strings" in the tree, which CopyFrom and the copying Value constructor share rather than
// copy: a clone would dangle.)
template <class Inner>
using OwningStrings = RecopyingStrings<Inner, &always_copy>;

// A NUL-terminated copy of a message with 16 zero bytes after it, parsed in place. RapidJSON scans
// strings and whitespace 16 bytes at a time (RAPIDJSON_SSE2) only in a NUL-terminated buffer, with
// aligned loads that may reach 15 bytes past the terminator: the padding keeps every such load
// inside this allocation. The in-situ parse also unescapes in place, so no string is first
// gathered on the reader's own growing stack. A message is the plugin's for the call's duration
// (mcph_str), so this one copy is the floor; small messages use the stack, not the heap.
// A large one uses this thread's retained scratch block (scratch_buffer.hpp: a fresh megabyte costs
// more in page faults than the copy and the parse together).
class PaddedCopy {
public:
    static constexpr std::size_t kPadding = 16;
    explicit PaddedCopy(std::string_view text)
        : heap_(text.size() + 1 + kPadding > sizeof local_ ? static_cast<char*>(scratch::acquire(text.size() + 1 + kPadding))
                                                           : nullptr),
          data_(heap_ ? heap_ : local_) {
        if (text.size() + 1 + kPadding > sizeof local_ && !heap_) throw std::bad_alloc();
        if (!text.empty()) std::memcpy(data_, text.data(), text.size());
        std::memset(data_ + text.size(), 0, 1 + kPadding);
    }
    ~PaddedCopy() { scratch::release(heap_); }
    PaddedCopy(const PaddedCopy&) = delete;
    PaddedCopy& operator=(const PaddedCopy&) = delete;
    char* data() { return data_; }

private:
    alignas(16) char local_[1024];
    char* heap_;
    char* data_;
};

// RapidJSON 1.1.0 gives a document's own pool a first chunk of 64 KiB, whatever it will hold. A
// message of a few hundred bytes then costs a 64 KiB malloc and free; two or three of them per call
// push glibc's heap top past its trim threshold, so every call grows and shrinks the heap (brk) and
// takes page faults on the regrown pages. A pool that has no chunk yet is therefore rebuilt with a
// first chunk of about what it will hold, within [1 KiB, 64 KiB] (later chunks are at least the
// pool's chunk size or the one allocation's size, as usual). A pool with a chunk is left alone: the
// document, or a caller-supplied allocator, is already in use.
// The rebuilt pool is also given its base allocator (a stateless CrtAllocator) instead of making one
// with `new` at its first chunk.
inline constexpr std::size_t kMinPoolChunk = 1024, kMaxPoolChunk = 64 * 1024;  // the max: RapidJSON's default
inline rapidjson::CrtAllocator& shared_crt_allocator() noexcept {
    static rapidjson::CrtAllocator allocator;  // stateless (its methods are malloc, realloc and free)
    return allocator;
}
inline void size_pool(rapidjson::Document& doc, std::size_t expected_bytes) {
    using Pool = rapidjson::MemoryPoolAllocator<>;
    Pool& pool = doc.GetAllocator();
    if (pool.Capacity() != 0) return;
    const std::size_t chunk = std::min(kMaxPoolChunk, std::max(kMinPoolChunk, expected_bytes));
    pool.~Pool();  // owns nothing yet: no chunk, and its base allocator (stateless CrtAllocator) is made on first use
    new (&pool) Pool(chunk, &shared_crt_allocator());  // the same object again (the document's pointer stays valid)
}

// RapidJSON's Document as the SAX handler that builds a tree, with its stack of pending values in
// this thread's retained stack block (scratch_buffer.hpp) instead of a malloc, a free and the `new`
// of an allocator object per tree. Its values go into the allocator it is given; build_tree() moves
// the finished root out, so a builder is only ever a local of one build.
using TreeBuilder = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>, scratch::StackAllocator>;

// Builds into `target` the tree `generate(TreeBuilder&)` feeds (true when it succeeded), its values
// in `allocator`. On failure `target` is unchanged.
template <class Generate>
inline bool build_tree(rapidjson::Value& target, rapidjson::MemoryPoolAllocator<>& allocator, Generate&& generate) {
    constexpr std::size_t kStackBytes = 1024;  // RapidJSON's default: 64 pending values
    TreeBuilder builder(&allocator, kStackBytes, &scratch::shared_allocator<scratch::Kind::Stack>());
    bool ok = false;
    auto run = [&](TreeBuilder& handler) { return ok = generate(handler); };
    builder.Populate(run);
    if (ok) target.Swap(builder);  // the builder keeps target's old value, in `allocator` (nothing to free)
    return ok;
}

// The pool for the tree of an N-byte text, which takes about 2N.
inline void size_pool_for(rapidjson::Document& doc, std::size_t text_bytes) { size_pool(doc, 2 * text_bytes); }

// The one shape of every bounded parse: `read(char* text, Handler& handler)` runs a RapidJSON reader
// (in situ) over the padded copy of `text` and returns its rapidjson::ParseResult; the
// handler it is given builds `doc` with every string owned and the depth bounded. For the host's
// SSE2 reader (host/src/json/message_parse.hpp) and parse() below.
template <class Read>
inline ParseOutcome parse_with(rapidjson::Document& doc, std::string_view text, unsigned max_depth, Read&& read) {
    ParseOutcome out;
    out.max_depth = max_depth;
    size_pool_for(doc, text.size());
    PaddedCopy copy(text);
    auto generate = [&](TreeBuilder& handler) {
        OwningStrings<TreeBuilder> owning(handler);
        DepthLimitedHandler<OwningStrings<TreeBuilder>> limited(owning, max_depth);
        const rapidjson::ParseResult result = read(copy.data(), limited);
        if (result) return true;
        out.status = limited.too_deep() ? ParseOutcome::Status::TooDeep : ParseOutcome::Status::Malformed;
        out.code = limited.not_finite() ? rapidjson::kParseErrorNumberTooBig : result.Code();
        // Too deep: RapidJSON's recursive reader stops just past the refused '[' or '{'; the
        // offset given is that bracket's own (as its iterative reader gave).
        out.offset = limited.too_deep() && result.Offset() > 0 ? result.Offset() - 1 : result.Offset();
        return false;
    };
    if (!build_tree(doc, doc.GetAllocator(), generate)) doc.SetNull();
    return out;
}

// Parses `text` into `doc` (replacing its content). On failure `doc` is null and the outcome says
// why. Extra RapidJSON flags (e.g. kParseFullPrecisionFlag) may be passed (not the iterative one:
// the handler bounds the recursion, see the top of this file).
// What is accepted and refused, and at which offset, is RapidJSON's non-validating UTF-8 parse of
// the bytes up to the first NUL (a NUL byte ends the input, as it did for its MemoryStream):
// tests/host/json/bounded_parse_test.cpp holds the table of cases.
template <unsigned ExtraFlags = rapidjson::kParseDefaultFlags>
inline ParseOutcome parse(rapidjson::Document& doc, std::string_view text, unsigned max_depth = kMaxDepth) {
    return parse_with(doc, text, max_depth, [](char* data, auto& handler) {
        rapidjson::InsituStringStream stream(data);
        rapidjson::Reader reader;
        return reader.Parse<ExtraFlags | rapidjson::kParseInsituFlag>(stream, handler);
    });
}

// Serialises `value` compactly into `buffer` (json_writer: RapidJSON's output, strings copied in
// runs); false (buffer incomplete) when it nests deeper than `max_depth`.
template <class Buffer>
inline bool write(const rapidjson::Value& value, Buffer& buffer, unsigned max_depth = kMaxDepth) {
    json_writer::Writer<Buffer> writer(buffer);
    DepthLimitedHandler<json_writer::Writer<Buffer>> limited(writer, max_depth);
    return value.Accept(limited);
}

}  // namespace mcph::json_bounds

#endif  // MCPH_BOUNDED_JSON_HPP
