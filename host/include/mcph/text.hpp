// Text that came from a server, made safe to show a person or to write as JSON. A server controls
// tool descriptions, results, log messages, prompts, error texts and its stderr: written raw to a
// terminal, ESC ]52 writes the clipboard, ESC [2J clears the screen, OSC 8 hides a link behind
// harmless text, and bidi or invisible characters make text read differently from what it is.
#pragma once

#include <mcph/export.hpp>

#include <string>
#include <string_view>

namespace mcph {

enum class LineBreaks {
    Keep,    // '\n' and '\t' pass (multi-line output is intended)
    Escape,  // they become "\n" / "\t" too (one-line displays: a name, an excerpt)
};

// Every C0 control (but '\n' '\t' under Keep; '\r' always — it rewrites the line), DEL, every C1
// control (U+0080–U+009F), every byte that is not part of valid UTF-8, bidi controls, tag
// characters and other invisible format characters become visible escapes: "\x1b", "\x7f",
// "\u009b", "\u202e", "\U000e0041", and "\xff" for an invalid byte. Everything else is unchanged.
MCPH_API std::string terminal_safe(std::string_view text, LineBreaks breaks = LineBreaks::Keep);

// The text with each ill-formed UTF-8 sequence (a maximal subpart, as Unicode §3.9 recommends)
// replaced by U+FFFD; valid text is returned unchanged. NUL and other controls are kept: JSON
// writers escape them.
MCPH_API std::string repair_utf8(std::string_view text);
MCPH_API bool is_valid_utf8(std::string_view text);

}  // namespace mcph
