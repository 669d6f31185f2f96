// The characters a server can use to hide or disguise text, by Unicode property (ICU), shared by
// the terminal escaper and the tool scanner so both see the same thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mcph::text {

enum class CharClass {
    Ordinary,
    Control,    // C0 (incl. NUL), DEL, C1: terminal commands
    Bidi,       // Bidi_Control: reorders what is displayed (Trojan Source)
    Tag,        // U+E0000–U+E007F: invisible ASCII twins, read by models, never shown
    Invisible,  // other default-ignorable / format characters: zero-width space, word joiner, ...
};

CharClass classify(std::int32_t code_point);

// One step through UTF-8: the code point at `text[pos]` and its length in bytes, or (-1, n) for an
// ill-formed sequence of n bytes (the maximal subpart; n >= 1).
struct Decoded {
    std::int32_t code_point;
    std::size_t length;
};
Decoded decode_at(std::string_view text, std::size_t pos);

}  // namespace mcph::text
