#include "text/char_class.hpp"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>

namespace mcph::text {

CharClass classify(std::int32_t c) {
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) return CharClass::Control;
    if (c < 0x80) return CharClass::Ordinary;
    if (c >= 0xE0000 && c <= 0xE007F) return CharClass::Tag;
    if (u_hasBinaryProperty(c, UCHAR_BIDI_CONTROL)) return CharClass::Bidi;
    // ZWJ and the emoji variation selectors are part of ordinary emoji sequences; flagging them
    // would mark every family emoji. The zero-width characters used to smuggle bits (U+200B,
    // U+200C, U+2060...) are still caught.
    if (c == 0x200D || c == 0xFE0E || c == 0xFE0F) return CharClass::Ordinary;
    if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_charType(c) == U_FORMAT_CHAR)
        return CharClass::Invisible;
    return CharClass::Ordinary;
}

Decoded decode_at(std::string_view text, std::size_t pos) {
    // ICU's U8_NEXT indexes with int32_t: give it a window of at most 4 bytes (the longest
    // sequence), so texts of any length are fine. It rejects overlongs, surrogates and > U+10FFFF,
    // and on error advances past the maximal subpart.
    const auto* s = reinterpret_cast<const std::uint8_t*>(text.data() + pos);
    const auto window = static_cast<std::int32_t>(std::min<std::size_t>(text.size() - pos, 4));
    std::int32_t i = 0;
    UChar32 c = 0;
    U8_NEXT(s, i, window, c);
    return {c, static_cast<std::size_t>(i > 0 ? i : 1)};
}

}  // namespace mcph::text
