// Why a replacer of our own: a server's strings reach us as bytes (RapidJSON's reader does not
// validate UTF-8 by default, and "\udc00" decodes to a lone surrogate), so a Writer copies invalid
// UTF-8 into output that then is not JSON. RapidJSON's kWriteValidateEncodingFlag does not repair:
// it makes the Writer fail and stop mid-document, losing the whole output for one bad byte. Here
// every string and key passes through repair_utf8 (U+FFFD per ill-formed sequence) on its way to
// the Writer, with its length, so the rest of the document is written as it is.
#include "json_output.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace mcph::cli {
namespace {

// Forwards SAX events, repairing the UTF-8 of strings and keys.
template <class Inner>
class Utf8Repairing {
public:
    using Ch = char;
    explicit Utf8Repairing(Inner& inner) : inner_(inner) {}

    bool Null() { return inner_.Null(); }
    bool Bool(bool b) { return inner_.Bool(b); }
    bool Int(int i) { return inner_.Int(i); }
    bool Uint(unsigned u) { return inner_.Uint(u); }
    bool Int64(int64_t i) { return inner_.Int64(i); }
    bool Uint64(uint64_t u) { return inner_.Uint64(u); }
    bool Double(double d) { return inner_.Double(d); }
    bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) { return inner_.RawNumber(s, n, copy); }
    bool String(const Ch* s, rapidjson::SizeType n, bool) {
        const std::string fixed = repair_utf8(std::string_view(s, n));
        return inner_.String(fixed.data(), static_cast<rapidjson::SizeType>(fixed.size()), true);
    }
    bool Key(const Ch* s, rapidjson::SizeType n, bool) {
        const std::string fixed = repair_utf8(std::string_view(s, n));
        return inner_.Key(fixed.data(), static_cast<rapidjson::SizeType>(fixed.size()), true);
    }
    bool StartObject() { return inner_.StartObject(); }
    bool EndObject(rapidjson::SizeType n) { return inner_.EndObject(n); }
    bool StartArray() { return inner_.StartArray(); }
    bool EndArray(rapidjson::SizeType n) { return inner_.EndArray(n); }

private:
    Inner& inner_;
};

}  // namespace

std::string to_output_json(const JsonValue& value) {
    using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    writer.SetIndent(' ', 2);
    Utf8Repairing<Writer> repairing(writer);
    json_bounds::DepthLimitedHandler<Utf8Repairing<Writer>> limited(repairing, json_bounds::kMaxDepth);
    if (!value.Accept(limited))
        throw Error(ErrorKind::Protocol, limited.too_deep() ? "the output nests deeper than " +
                                                                  std::to_string(json_bounds::kMaxDepth) + " levels"
                                                            : std::string("the output could not be written as JSON"));
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcph::cli
