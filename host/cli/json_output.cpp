// Why a replacer of our own: a server's strings reach us as bytes (RapidJSON's reader does not
// validate UTF-8 by default, and "\udc00" decodes to a lone surrogate), so a Writer copies invalid
// UTF-8 into output that then is not JSON. RapidJSON's kWriteValidateEncodingFlag does not repair:
// it makes the Writer fail and stop mid-document, losing the whole output for one bad byte. Here
// every string and key passes through repair_utf8 (U+FFFD per ill-formed sequence) on its way to
// the Writer, with its length, so the rest of the document is written as it is. Then the
// characters that would act on a terminal are written as \u escapes (escape_hidden_characters).
#include "json_output.hpp"

#include "json/json_access.hpp"
#include "text/char_class.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdio>
#include <iostream>

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

void append_u_escape(std::string& out, unsigned unit) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", unit & 0xFFFFu);
    out += buf;
}

// The Writer escapes only what JSON requires (controls below U+0020); DEL, C1 controls, bidi
// controls, tag and invisible characters it writes raw, and a terminal showing the output would
// obey U+009B as CSI. Outside string literals JSON text is ASCII, so every non-ASCII sequence of
// the output is inside a string, where "\uXXXX" (a surrogate pair above U+FFFF) means the same
// character: the JSON parses to the same strings and no raw control reaches the terminal.
std::string escape_hidden_characters(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (std::size_t pos = 0; pos < json.size();) {
        const unsigned char byte = static_cast<unsigned char>(json[pos]);
        if (byte < 0x7f) {
            out.push_back(json[pos++]);
            continue;
        }
        const text::Decoded d = text::decode_at(json, pos);  // valid: every string was repaired
        if (d.code_point >= 0 && text::classify(d.code_point) != text::CharClass::Ordinary) {
            const auto c = static_cast<unsigned>(d.code_point);
            if (c <= 0xFFFF) {
                append_u_escape(out, c);
            } else {
                append_u_escape(out, 0xD800 + ((c - 0x10000) >> 10));
                append_u_escape(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
            }
        } else {
            out.append(json, pos, d.length);
        }
        pos += d.length;
    }
    return out;
}

}  // namespace

std::string to_output_json(const JsonValue& value) {
    using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    writer.SetIndent(' ', 2);
    Utf8Repairing<Writer> repairing(writer);
    // The host's write bound (parse bound + room for the envelopes around a parsed value), so a
    // schema a server may send (128 levels) can always be shown.
    json_bounds::DepthLimitedHandler<Utf8Repairing<Writer>> limited(repairing, json::kWriteDepth);
    if (!value.Accept(limited))
        throw Error(ErrorKind::Protocol, limited.too_deep() ? "the output nests deeper than " +
                                                                  std::to_string(json::kWriteDepth) + " levels"
                                                            : std::string("the output could not be written as JSON"));
    return escape_hidden_characters(std::string(buffer.GetString(), buffer.GetSize()));
}

Json json_document(const JsonValue& value, const char* member) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("schemaVersion", kJsonSchemaVersion, a);
    if (value.IsObject()) {
        for (const auto& m : value.GetObject())
            if (m.name != "schemaVersion") doc.AddMember(JsonValue(m.name, a), JsonValue(m.value, a), a);
    } else {
        doc.AddMember(JsonValue(member, a), JsonValue(value, a), a);
    }
    return doc;
}

void print_json_document(const JsonValue& value, const char* member) {
    std::cout << to_output_json(json_document(value, member)) << "\n";
}

void print_done(bool json, const std::string& message) {
    if (!json) {
        std::cout << terminal_safe(message) << "\n";
        return;
    }
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("ok", true, a);
    doc.AddMember("message", JsonValue(message.data(), static_cast<rapidjson::SizeType>(message.size()), a), a);
    print_json_document(doc, "result");
}

void print_json_error(const std::string& kind, const std::string& message, int exit_code) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue error(rapidjson::kObjectType);
    error.AddMember("kind", JsonValue(kind.data(), static_cast<rapidjson::SizeType>(kind.size()), a), a);
    error.AddMember("message", JsonValue(message.data(), static_cast<rapidjson::SizeType>(message.size()), a), a);
    error.AddMember("exitCode", exit_code, a);
    doc.AddMember("error", error, a);
    print_json_document(doc, "error");
    std::cout << std::flush;
}

}  // namespace mcph::cli
