#include "jsonrpc_shape.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/json_writer.hpp>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

namespace mcph::http {
namespace {

// Written by hand rather than as a RapidJSON SAX handler: RapidJSON's Reader decodes and copies
// every string into its own stack before the handler sees it (its SSE2 string scan serves only
// NUL-terminated streams), which was a third of the client's CPU on a 1 MiB HTTP echo (issue #16).
// This pass checks the same grammar, skips string contents sixteen bytes at a time, and looks at
// the text of only the few values the transport needs (ids, method, params.requestId).

std::atomic<std::uint64_t> g_inspections{0};

// The first byte in [p, end) that ends a run of plain string bytes: '"', '\\' or a control
// character (which JSON forbids raw), or end — the writer's escape scan is exactly that scan.
const char* find_string_special(const char* p, const char* end) { return json_writer::next_escape(p, end); }

bool is_json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
int json_hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A scalar's text as RapidJSON's Reader + Writer would spell it (`"a\u0041"` -> `"aA"`, `1e2` ->
// `100.0`): the canonical id the tracker keys on. Only for the rare escaped strings and
// non-integer numbers; plain ones are already canonical.
class CanonicalScalar : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, CanonicalScalar> {
public:
    std::string text;
    bool is_string = false;
    bool Int(int i) { return set(std::to_string(i)); }
    bool Uint(unsigned u) { return set(std::to_string(u)); }
    bool Int64(int64_t i) { return set(std::to_string(i)); }
    bool Uint64(uint64_t u) { return set(std::to_string(u)); }
    bool Double(double d) {
        if (!std::isfinite(d)) return false;
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        w.Double(d);
        return set(std::string(b.GetString(), b.GetSize()));
    }
    bool String(const char* s, rapidjson::SizeType len, bool) {
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        w.String(s, len);
        is_string = true;
        decoded.assign(s, len);
        return set(std::string(b.GetString(), b.GetSize()));
    }
    bool Default() { return false; }
    std::string decoded;  // strings: the value itself

private:
    bool set(std::string t) {
        text = std::move(t);
        return true;
    }
};

CanonicalScalar canonical_scalar(std::string_view json) {
    CanonicalScalar h;
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::Reader reader;
    if (!reader.Parse(stream, h)) h.text.clear();  // json-bounds-ok: one scalar the scanner already checked; containers end the parse (Default)
    return h;
}

// One JSON value as the scanner saw it: its text, and for strings whether it has escapes.
struct ScannedScalar {
    enum class Type { Null, Bool, Number, String } type;
    std::string_view text;  // the raw JSON text (strings with their quotes)
    bool escaped = false;
    bool plain_number = false;  // an integer RapidJSON reads as one, spelled as it would write it

    // The canonical JSON text (see CanonicalScalar).
    std::string canonical() const {
        if (type == Type::String && !escaped) return std::string(text);
        if (type == Type::Number && plain_number) return std::string(text);
        return canonical_scalar(text).text;
    }
    // Strings: the decoded value.
    std::string value() const {
        if (!escaped) return std::string(text.substr(1, text.size() - 2));
        return canonical_scalar(text).decoded;
    }
};

// Tracks only the members "id" and "method" of the message objects (the root object, or the
// objects directly inside a root array: a batch) and params.requestId. Everything deeper is skipped.
class ShapeTracker {
public:
    explicit ShapeTracker(MessageShape& out) : out_(out) {}

    void key(const ScannedScalar& k) {
        if (at_message_level()) {
            std::string name = k.value();
            expect_ = name == "id" ? Expect::Id : name == "method" ? Expect::Method : Expect::None;
            params_next_ = name == "params";
        } else if (at_params_level()) {
            request_id_next_ = k.value() == "requestId";
        }
    }
    void start_container(bool object) {
        if (object && (depth_ == 0 || (depth_ == 1 && root_is_array_))) {
            begin_message();
        } else {
            if (!object && depth_ == 0) root_is_array_ = true;
            if (object && at_message_level() && params_next_) in_params_ = true;
            value_is_container();
        }
        ++depth_;
    }
    void end_container(bool object) {
        if (object) {
            if (at_message_level()) end_message();
            else if (at_params_level()) in_params_ = false;
        }
        --depth_;
    }
    void scalar(const ScannedScalar& v) {
        const bool is_string = v.type == ScannedScalar::Type::String;
        const bool is_id = is_string || v.type == ScannedScalar::Type::Number;
        if (at_message_level()) {
            if (expect_ == Expect::Method) {
                has_method_ = true;
                is_cancel_ = is_string && v.value() == "notifications/cancelled";
            }
            if (expect_ == Expect::Id && is_id) id_ = v.canonical();
        } else if (at_params_level() && request_id_next_ && is_id) {
            cancel_id_ = v.canonical();
        }
        expect_ = Expect::None;
        params_next_ = false;
        request_id_next_ = false;
    }
    // Whether the scanner must look at this value's text at all.
    bool wants_value() const {
        return (at_message_level() && expect_ != Expect::None) || (at_params_level() && request_id_next_);
    }
    bool wants_key() const { return at_message_level() || at_params_level(); }

private:
    enum class Expect { None, Id, Method };

    bool at_message_level() const { return in_message_ && depth_ == message_depth_; }
    bool at_params_level() const { return in_message_ && in_params_ && depth_ == message_depth_ + 1; }

    void begin_message() {
        in_message_ = true;
        message_depth_ = depth_ + 1;
        has_method_ = false;
        is_cancel_ = false;
        in_params_ = false;
        params_next_ = false;
        request_id_next_ = false;
        id_.clear();
        cancel_id_.clear();
        expect_ = Expect::None;
    }
    void end_message() {
        in_message_ = false;
        if (id_.empty() && is_cancel_ && !cancel_id_.empty()) out_.cancelled_ids.push_back(std::move(cancel_id_));
        if (id_.empty()) return;
        (has_method_ ? out_.request_ids : out_.response_ids).push_back(std::move(id_));
        id_.clear();
    }
    void value_is_container() {
        if (at_message_level() && expect_ == Expect::Method) has_method_ = true;
        expect_ = Expect::None;  // an object or array id is not an id
        params_next_ = false;
        request_id_next_ = false;
    }

    MessageShape& out_;
    int depth_ = 0;
    int message_depth_ = 0;
    bool root_is_array_ = false;
    bool in_message_ = false;
    bool has_method_ = false;
    bool is_cancel_ = false;        // method is notifications/cancelled
    bool in_params_ = false;        // inside the message's "params" object
    bool params_next_ = false;      // the next value is the message's "params"
    bool request_id_next_ = false;  // the next value is params.requestId
    Expect expect_ = Expect::None;
    std::string id_;
    std::string cancel_id_;
};

// The grammar walk: members and elements in a loop over a fixed stack of kMaxDepth container
// kinds; only a container's first value recurses, so the C++ stack is bounded by kMaxDepth too. Errors are RapidJSON's
// codes and offsets, so the messages read as before.
class ShapeScanner {
public:
    ShapeScanner(std::string_view json, ShapeTracker& tracker)
        : begin_(json.data()), p_(json.data()), end_(json.data() + json.size()), tracker_(tracker) {}

    bool run() {
        skip_space();
        if (p_ == end_) return fail(rapidjson::kParseErrorDocumentEmpty);
        if (*p_ != '{' && *p_ != '[') {
            root_scalar_ = true;
            return false;
        }
        if (!value()) return false;
        while (depth_ > 0) {
            skip_space();
            if (p_ == end_) return fail(in_object() ? rapidjson::kParseErrorObjectMissCommaOrCurlyBracket
                                                    : rapidjson::kParseErrorArrayMissCommaOrSquareBracket);
            const char c = *p_;
            if (c == ',') {
                ++p_;
                skip_space();
                if (in_object() && !member_key()) return false;
                if (!value()) return false;
            } else if (c == (in_object() ? '}' : ']')) {
                ++p_;
                close();
            } else {
                return fail(in_object() ? rapidjson::kParseErrorObjectMissCommaOrCurlyBracket
                                        : rapidjson::kParseErrorArrayMissCommaOrSquareBracket);
            }
        }
        skip_space();
        if (p_ != end_) {
            nul_after_root_ = *p_ == '\0';
            return fail(rapidjson::kParseErrorDocumentRootNotSingular);
        }
        return true;
    }

    bool too_deep() const { return too_deep_; }
    bool root_scalar() const { return root_scalar_; }
    bool nul_after_root() const { return nul_after_root_; }
    rapidjson::ParseErrorCode code() const { return code_; }
    size_t offset() const { return offset_; }

private:
    bool in_object() const { return kinds_[depth_ - 1]; }
    void skip_space() {
        while (p_ < end_ && is_json_blank(*p_)) ++p_;
    }
    bool fail(rapidjson::ParseErrorCode code) {
        code_ = code;
        offset_ = static_cast<size_t>(p_ - begin_);
        return false;
    }
    void close() {
        tracker_.end_container(in_object());
        --depth_;
    }

    // After '{' or ',' in an object: `"key"` and ':' (whitespace skipped before the key).
    bool member_key() {
        if (p_ == end_ || *p_ != '"') return fail(rapidjson::kParseErrorObjectMissName);
        ScannedScalar k{ScannedScalar::Type::String, {}, false, false};
        if (!string(k)) return false;
        if (tracker_.wants_key()) tracker_.key(k);
        skip_space();
        if (p_ == end_ || *p_ != ':') return fail(rapidjson::kParseErrorObjectMissColon);
        ++p_;
        skip_space();
        return true;
    }

    // One value at p_ (whitespace skipped). A container is opened (and, when empty, closed);
    // its members are walked by run().
    bool value() {
        if (p_ == end_) return fail(rapidjson::kParseErrorValueInvalid);
        switch (*p_) {
            case '{':
            case '[': {
                const bool object = *p_ == '{';
                if (depth_ >= static_cast<int>(mcph::json_bounds::kMaxDepth)) {
                    too_deep_ = true;
                    return fail(rapidjson::kParseErrorTermination);
                }
                ++p_;
                tracker_.start_container(object);
                kinds_[depth_++] = object;
                skip_space();
                if (p_ < end_ && *p_ == (object ? '}' : ']')) {
                    ++p_;
                    close();
                    return true;
                }
                return object ? member_key() && value() : value();
            }
            case '"': {
                ScannedScalar s{ScannedScalar::Type::String, {}, false, false};
                if (!string(s)) return false;
                if (tracker_.wants_value()) tracker_.scalar(s);
                return true;
            }
            case 't': return literal("true", ScannedScalar::Type::Bool);
            case 'f': return literal("false", ScannedScalar::Type::Bool);
            case 'n': return literal("null", ScannedScalar::Type::Null);
            default: return number();
        }
    }

    bool literal(std::string_view word, ScannedScalar::Type type) {
        if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
            return fail(rapidjson::kParseErrorValueInvalid);
        p_ += word.size();
        if (tracker_.wants_value()) tracker_.scalar(ScannedScalar{type, word, false, false});
        return true;
    }

    // The JSON number grammar. A value too large for a double is refused as RapidJSON refuses it
    // (DepthLimitedHandler: never an infinity): decided by strtod only when the magnitude is near.
    bool number() {
        const char* start = p_;
        const bool negative = *p_ == '-';
        if (negative) ++p_;
        if (p_ == end_ || !is_ascii_digit(*p_)) return fail(rapidjson::kParseErrorValueInvalid);
        const char* int_begin = p_;
        if (*p_ == '0') ++p_;
        else
            while (p_ < end_ && is_ascii_digit(*p_)) ++p_;
        const size_t int_digits = static_cast<size_t>(p_ - int_begin);
        bool is_integer = true;
        if (p_ < end_ && *p_ == '.') {
            is_integer = false;
            ++p_;
            if (p_ == end_ || !is_ascii_digit(*p_)) return fail(rapidjson::kParseErrorNumberMissFraction);
            while (p_ < end_ && is_ascii_digit(*p_)) ++p_;
        }
        long exponent = 0;
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            is_integer = false;
            ++p_;
            bool minus = false;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-')) minus = *p_++ == '-';
            if (p_ == end_ || !is_ascii_digit(*p_)) return fail(rapidjson::kParseErrorNumberMissExponent);
            while (p_ < end_ && is_ascii_digit(*p_)) {
                if (exponent < 100000) exponent = exponent * 10 + (*p_ - '0');
                ++p_;
            }
            if (minus) exponent = -exponent;
        }
        const std::string_view text(start, static_cast<size_t>(p_ - start));
        if (static_cast<long>(int_digits) + exponent > 300 && !finite_double(text)) {
            p_ = start;
            return fail(rapidjson::kParseErrorNumberTooBig);
        }
        if (tracker_.wants_value()) {
            const bool plain = is_integer && int_digits <= 18 && !(negative && *int_begin == '0');
            tracker_.scalar(ScannedScalar{ScannedScalar::Type::Number, text, false, plain});
        }
        return true;
    }
    static bool finite_double(std::string_view text) {
        std::string copy(text);
        return std::isfinite(std::strtod(copy.c_str(), nullptr));
    }

    // A string at p_ ('"'): its extent, escapes checked (\uXXXX surrogate pairs as RapidJSON does).
    bool string(ScannedScalar& out) {
        const char* start = p_++;
        for (;;) {
            p_ = find_string_special(p_, end_);
            if (p_ == end_) return fail(rapidjson::kParseErrorStringMissQuotationMark);
            const char c = *p_;
            if (c == '"') break;
            if (c != '\\') return fail(c == '\0' ? rapidjson::kParseErrorStringMissQuotationMark
                                                 : rapidjson::kParseErrorStringInvalidEncoding);
            out.escaped = true;
            if (!escape()) return false;
        }
        ++p_;
        out.text = std::string_view(start, static_cast<size_t>(p_ - start));
        return true;
    }
    bool escape() {
        const char* at = p_++;  // the backslash
        if (p_ == end_) return fail(rapidjson::kParseErrorStringMissQuotationMark);
        switch (*p_) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                ++p_;
                return true;
            case 'u': {
                int unit = hex4(p_ + 1);
                if (unit < 0) return fail_at(at, rapidjson::kParseErrorStringUnicodeEscapeInvalidHex);
                p_ += 5;
                if (unit >= 0xD800 && unit <= 0xDBFF) {  // a high surrogate: its low half must follow
                    int low = end_ - p_ >= 2 && p_[0] == '\\' && p_[1] == 'u' ? hex4(p_ + 2) : -1;
                    if (low < 0xDC00 || low > 0xDFFF) return fail_at(at, rapidjson::kParseErrorStringUnicodeSurrogateInvalid);
                    p_ += 6;
                }  // a lone low surrogate passes, as RapidJSON lets it (the host's parse decides)
                return true;
            }
            default:
                return fail_at(at, rapidjson::kParseErrorStringEscapeInvalid);
        }
    }
    int hex4(const char* q) const {
        if (end_ - q < 4) return -1;
        int v = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = json_hex_value(q[i]);
            if (h < 0) return -1;
            v = v * 16 + h;
        }
        return v;
    }
    bool fail_at(const char* at, rapidjson::ParseErrorCode code) {
        p_ = at;
        return fail(code);
    }

    const char* begin_;
    const char* p_;
    const char* end_;
    ShapeTracker& tracker_;
    bool kinds_[mcph::json_bounds::kMaxDepth] = {};  // per open container: object (true) or array
    int depth_ = 0;
    bool too_deep_ = false;
    bool root_scalar_ = false;
    bool nul_after_root_ = false;
    rapidjson::ParseErrorCode code_ = rapidjson::kParseErrorNone;
    size_t offset_ = 0;
};

}  // namespace

std::uint64_t inspect_message_count() noexcept { return g_inspections.load(std::memory_order_relaxed); }

MessageShape inspect_message(std::string_view json) {
    g_inspections.fetch_add(1, std::memory_order_relaxed);
    MessageShape shape;
    ShapeTracker tracker(shape);
    // Iterative (constant stack) and depth-bounded: a server's `[[[[…` a million deep must end in
    // an error naming the bound, not a stack overflow (issue #9).
    ShapeScanner scanner(json, tracker);
    shape.valid = scanner.run();
    if (scanner.too_deep()) {
        shape.problem = "JSON nested deeper than " + std::to_string(mcph::json_bounds::kMaxDepth) + " levels";
    } else if (scanner.root_scalar()) {
        shape.problem = "not a JSON-RPC message (the root is neither an object nor an array)";
    } else if (scanner.nul_after_root()) {
        shape.problem = "malformed JSON: a NUL byte inside the message";
    } else if (!shape.valid) {
        shape.problem = std::string("malformed JSON: ") + rapidjson::GetParseError_En(scanner.code()) + " at offset " +
                        std::to_string(scanner.offset());
    }
    if (!shape.valid) {
        shape.request_ids.clear();
        shape.response_ids.clear();
        shape.cancelled_ids.clear();
    }
    return shape;
}

std::string error_response(std::string_view id_json, std::string_view message, long http_status,
                           std::optional<std::chrono::milliseconds> retry_after) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("jsonrpc");
    w.String("2.0");
    w.Key("id");
    w.RawValue(id_json.data(), id_json.size(), rapidjson::kStringType);
    w.Key("error");
    w.StartObject();
    w.Key("code");
    w.Int(kTransportErrorCode);
    w.Key("message");
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    // data.httpStatus is always there: 0 tells the host no HTTP response arrived at all (refused,
    // DNS, TLS, timeout), i.e. a connection failure rather than the server's answer.
    w.Key("data");
    w.StartObject();
    w.Key("httpStatus");
    w.Int64(http_status);
    if (retry_after) {  // the server's Retry-After, for the host to honour before asking again
        w.Key("retryAfterMs");
        w.Int64(retry_after->count());
    }
    w.EndObject();
    w.EndObject();
    w.EndObject();
    return std::string(b.GetString(), b.GetSize());
}

}  // namespace mcph::http
