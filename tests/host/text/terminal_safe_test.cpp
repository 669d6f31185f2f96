// terminal_safe and repair_utf8 (mcph/text.hpp): server text made safe for a terminal and for JSON.
#include <mcph/text.hpp>

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace {

using mcph::LineBreaks;
using mcph::repair_utf8;
using mcph::terminal_safe;

struct EscapeCase {
    const char* what;
    std::string input;
    std::string keep;    // LineBreaks::Keep
    std::string escape;  // LineBreaks::Escape
};

void PrintTo(const EscapeCase& c, std::ostream* os) { *os << c.what; }

class Escapes : public testing::TestWithParam<EscapeCase> {};

TEST_P(Escapes, MakesControlsVisible) {
    const EscapeCase& c = GetParam();
    EXPECT_EQ(terminal_safe(c.input), c.keep);
    EXPECT_EQ(terminal_safe(c.input, LineBreaks::Escape), c.escape);
}

using namespace std::string_literals;

INSTANTIATE_TEST_SUITE_P(
    TerminalSafe, Escapes,
    testing::Values(
        EscapeCase{"plain ASCII", "Adds two numbers", "Adds two numbers", "Adds two numbers"},
        EscapeCase{"OSC 52 clipboard write", "\x1b]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07", "\\x1b]52;c;aGVsbG8=\\x07"},
        EscapeCase{"screen clear", "\x1b[2J", "\\x1b[2J", "\\x1b[2J"},
        EscapeCase{"OSC 8 hyperlink", "\x1b]8;;http://e\x1b\\x", "\\x1b]8;;http://e\\x1b\\x", "\\x1b]8;;http://e\\x1b\\x"},
        EscapeCase{"C1 CSI as UTF-8", "a\xc2\x9b" "31m", "a\\u009b31m", "a\\u009b31m"},
        EscapeCase{"C1 CSI as a raw byte", "a\x9b" "31m", "a\\x9b31m", "a\\x9b31m"},
        EscapeCase{"DEL and NUL", "a\x7f" "b"s + '\0' + "c", "a\\x7fb\\x00c", "a\\x7fb\\x00c"},
        EscapeCase{"carriage return rewrites the line", "safe\rEVIL", "safe\\rEVIL", "safe\\rEVIL"},
        EscapeCase{"newline and tab", "a\n\tb", "a\n\tb", "a\\n\\tb"},
        EscapeCase{"bidi override", "abc\xe2\x80\xae" "def", "abc\\u202edef", "abc\\u202edef"},
        EscapeCase{"bidi isolate", "\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069", "\\u2066x\\u2069"},
        EscapeCase{"tag character", "\xf3\xa0\x81\x81", "\\U000e0041", "\\U000e0041"},
        EscapeCase{"zero-width space", "a\xe2\x80\x8b" "b", "a\\u200bb", "a\\u200bb"},
        EscapeCase{"invalid byte", "a\xff" "b", "a\\xffb", "a\\xffb"},
        EscapeCase{"overlong encoding of '/'", "\xc0\xaf", "\\xc0\\xaf", "\\xc0\\xaf"},
        EscapeCase{"UTF-8 surrogate", "\xed\xa0\x80", "\\xed\\xa0\\x80", "\\xed\\xa0\\x80"},
        EscapeCase{"truncated sequence at the end", "ok\xe2\x82", "ok\\xe2\\x82", "ok\\xe2\\x82"},
        EscapeCase{"ordinary Unicode unchanged", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9",
                   "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9",
                   "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9"}));

TEST(TerminalSafe, NoRawControlByteSurvivesAnyByteValue) {
    std::string every;
    for (int b = 0; b < 256; ++b) every.push_back(static_cast<char>(b));
    const std::string out = terminal_safe(every, LineBreaks::Escape);
    for (char c : out) {
        const auto u = static_cast<unsigned char>(c);
        EXPECT_FALSE(u < 0x20 || u == 0x7f || u >= 0x80) << "byte " << static_cast<int>(u) << " in " << out;
    }
}

TEST(RepairUtf8, ValidTextIsUnchangedNulIncluded) {
    const std::string text = "a"s + '\0' + "b \xc3\xa9 \xf0\x9f\x98\x80";
    EXPECT_TRUE(mcph::is_valid_utf8(text));
    EXPECT_EQ(repair_utf8(text), text);
}

TEST(RepairUtf8, EachMaximalSubpartBecomesOneReplacementCharacter) {
    EXPECT_EQ(repair_utf8("a\xff" "b"), "a\xef\xbf\xbd" "b");
    EXPECT_EQ(repair_utf8("\xe2\x82" "A"), "\xef\xbf\xbd" "A");  // truncated 3-byte sequence: one U+FFFD
    EXPECT_EQ(repair_utf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong: two (no valid prefix)
    EXPECT_EQ(repair_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
    EXPECT_FALSE(mcph::is_valid_utf8("\x9b"));
    EXPECT_TRUE(mcph::is_valid_utf8(repair_utf8("x\x9b\xfe\xff")));
}

}  // namespace
