// terminal_safe / repair_utf8 (mcph/text.hpp). Hand-written over ICU's classification: no Debian
// library offers "escape for a terminal" (vis(3) from libbsd escapes bytes, not UTF-8 code points,
// and knows nothing of bidi or tag characters).
#include "text/char_class.hpp"

#include <mcph/text.hpp>

#include <cstdio>

namespace mcph {
namespace {

void append_hex(std::string& out, const char* format, unsigned value) {
    char buf[16];
    std::snprintf(buf, sizeof buf, format, value);
    out += buf;
}

void append_code_point_escape(std::string& out, std::int32_t c) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x80) append_hex(out, "\\x%02x", static_cast<unsigned>(c));
    else if (c <= 0xFFFF) append_hex(out, "\\u%04x", static_cast<unsigned>(c));
    else append_hex(out, "\\U%08x", static_cast<unsigned>(c));
}

}  // namespace

std::string terminal_safe(std::string_view text, LineBreaks breaks) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const unsigned char byte = static_cast<unsigned char>(text[pos]);
        if (byte >= 0x20 && byte < 0x7f) {  // the common case, quickly
            out.push_back(static_cast<char>(byte));
            ++pos;
            continue;
        }
        if ((byte == '\n' || byte == '\t') && breaks == LineBreaks::Keep) {
            out.push_back(static_cast<char>(byte));
            ++pos;
            continue;
        }
        const text::Decoded d = text::decode_at(text, pos);
        if (d.code_point < 0) {
            for (std::size_t i = 0; i < d.length; ++i)
                append_hex(out, "\\x%02x", static_cast<unsigned char>(text[pos + i]));
        } else if (text::classify(d.code_point) != text::CharClass::Ordinary) {
            append_code_point_escape(out, d.code_point);
        } else {
            out.append(text, pos, d.length);
        }
        pos += d.length;
    }
    return out;
}

std::string repair_utf8(std::string_view text) {
    if (is_valid_utf8(text)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 16);
    for (std::size_t pos = 0; pos < text.size();) {
        if (static_cast<unsigned char>(text[pos]) < 0x80) {
            out.push_back(text[pos++]);
            continue;
        }
        const text::Decoded d = text::decode_at(text, pos);
        if (d.code_point < 0) out += "\xEF\xBF\xBD";  // U+FFFD
        else out.append(text, pos, d.length);
        pos += d.length;
    }
    return out;
}

bool is_valid_utf8(std::string_view text) {
    for (std::size_t pos = 0; pos < text.size();) {
        if (static_cast<unsigned char>(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        const text::Decoded d = text::decode_at(text, pos);
        if (d.code_point < 0) return false;
        pos += d.length;
    }
    return true;
}

}  // namespace mcph
