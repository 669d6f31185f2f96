#include "governance/text_scanner.hpp"

#include "text/char_class.hpp"

#include <mcph/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace mcph::governance {
namespace {

// Phrases aimed at the model rather than at a person choosing a tool (the tool-poisoning and
// prompt-injection reports of 2025: Invariant Labs, Trail of Bits, the MCP security notes). Matched
// on a folded copy of the text: ASCII lower case, whitespace runs as one space, invisible
// characters dropped and tag characters read as the ASCII they spell — so "Ignore\u200b previous
// instructions" and an instruction hidden in tags are found too.
constexpr std::array kInstructionMarkers = {
    "<important>", "</important>", "<system>", "</system>", "<instructions>", "<secret>", "<hidden>",
    "[inst]", "<|im_start|>", "<|system|>", "<!--",
    "ignore previous instructions", "ignore all previous", "ignore the previous", "ignore prior instructions",
    "ignore any previous", "ignore the above", "disregard previous", "disregard all previous",
    "disregard the above", "forget your instructions", "forget all previous", "new instructions:",
    "do not tell the user", "don't tell the user", "do not inform the user", "do not mention this",
    "without telling the user", "without informing the user", "hide this from the user",
    "the user must not know", "before using this tool", "this is very important", "system prompt",
};

// Credential stores a tool description has no business naming (they are what poisoned tools ask
// the model to read and pass along). ".env" is matched only as a whole name (see credential_at).
constexpr std::array kCredentialNames = {
    "~/.ssh", ".ssh/", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".aws/credentials", ".aws/config",
    ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker/config.json", ".kube/config", ".gnupg",
    "/etc/shadow", "/etc/passwd", "mcp.json", "credentials.json", ".config/gcloud", "private key",
    "private_key",
};

constexpr std::size_t kExcerptBefore = 16;
constexpr std::size_t kExcerptAfter = 48;

struct Tally {
    std::optional<std::size_t> first;
    std::size_t count = 0;
    void add(std::size_t offset, std::size_t n = 1) {
        if (!first || offset < *first) first = offset;
        count += n;
    }
};

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::string excerpt_at(std::string_view text, std::size_t offset) {
    std::size_t begin = offset > kExcerptBefore ? offset - kExcerptBefore : 0;
    std::size_t end = std::min(text.size(), offset + kExcerptAfter);
    while (begin > 0 && is_continuation(text[begin])) --begin;
    while (end < text.size() && is_continuation(text[end])) ++end;
    std::string out = begin > 0 ? "..." : "";
    out += terminal_safe(text.substr(begin, end - begin), LineBreaks::Escape);
    if (end < text.size()) out += "...";
    return out;
}

// The folded text of the markers, with each folded byte's offset in the original.
struct Folded {
    std::string text;
    std::vector<std::size_t> origin;
    void push(char c, std::size_t at) {
        text.push_back(c);
        origin.push_back(at);
    }
};

// Characters: what kind each non-ordinary one is; tag characters also spell `hidden`.
struct CharacterPass {
    Tally control, invalid, invisible, tag, bidi;
    std::string hidden;  // the ASCII the tag characters spell (bounded: an excerpt)
    Folded folded;
};

CharacterPass scan_characters(std::string_view text) {
    CharacterPass pass;
    pass.folded.text.reserve(text.size());
    pass.folded.origin.reserve(text.size());
    bool space = false;
    for (std::size_t pos = 0; pos < text.size();) {
        const unsigned char byte = static_cast<unsigned char>(text[pos]);
        const auto fold = [&](char c) {
            const bool ws = std::isspace(static_cast<unsigned char>(c)) != 0;
            if (ws && space) return;
            space = ws;
            pass.folded.push(ws ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))), pos);
        };
        if (byte < 0x80 && byte >= 0x20 && byte != 0x7f) {
            fold(static_cast<char>(byte));
            ++pos;
            continue;
        }
        const text::Decoded d = text::decode_at(text, pos);
        if (d.code_point < 0) {
            pass.invalid.add(pos, d.length);
        } else {
            switch (text::classify(d.code_point)) {
                case text::CharClass::Control:
                    if (byte == '\n' || byte == '\t' || byte == '\r') fold(' ');
                    else pass.control.add(pos);
                    break;
                case text::CharClass::Tag:
                    pass.tag.add(pos);
                    if (d.code_point >= 0xE0020 && d.code_point <= 0xE007E) {
                        const char ascii = static_cast<char>(d.code_point - 0xE0000);
                        if (pass.hidden.size() < kExcerptAfter) pass.hidden.push_back(ascii);
                        fold(ascii);
                    }
                    break;
                case text::CharClass::Bidi: pass.bidi.add(pos); break;
                case text::CharClass::Invisible: pass.invisible.add(pos); break;
                case text::CharClass::Ordinary:
                    space = false;
                    for (std::size_t i = 0; i < d.length; ++i) pass.folded.push(text[pos + i], pos);
                    break;
            }
        }
        pos += d.length;
    }
    return pass;
}

Tally find_phrases(const Folded& folded, const char* const* begin, const char* const* end) {
    Tally tally;
    for (auto it = begin; it != end; ++it) {
        const std::string_view phrase = *it;
        for (std::size_t at = folded.text.find(phrase); at != std::string::npos; at = folded.text.find(phrase, at + 1))
            tally.add(folded.origin[at]);
    }
    return tally;
}

// ".env" as a file name: not followed by a letter or digit (".envelope", ".environment" pass).
Tally find_dotenv(const Folded& folded) {
    Tally tally;
    const std::string& t = folded.text;
    for (std::size_t at = t.find(".env"); at != std::string::npos; at = t.find(".env", at + 1)) {
        const std::size_t after = at + 4;
        if (after < t.size() && std::isalnum(static_cast<unsigned char>(t[after]))) continue;
        tally.add(folded.origin[at]);
    }
    return tally;
}

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/' || c == '.';
}

// Tokens of name characters looked up among the other servers' names: linear in the text whatever
// the number of names (a "." or "/" ending a token is a sentence's or a path's, not the name's).
Tally find_foreign_names(std::string_view text, const ScanContext& context) {
    Tally tally;
    if (context.foreign_names.empty()) return tally;
    for (std::size_t pos = 0; pos < text.size();) {
        if (!is_name_char(text[pos])) {
            ++pos;
            continue;
        }
        std::size_t end = pos;
        while (end < text.size() && is_name_char(text[end])) ++end;
        std::string_view token = text.substr(pos, end - pos);
        while (!token.empty() && (token.back() == '.' || token.back() == '/')) token.remove_suffix(1);
        if (!token.empty() && context.foreign_names.count(token)) tally.add(pos);
        pos = end;
    }
    return tally;
}

void emit(std::vector<Finding>& out, FindingKind kind, const TextSite& site, const Tally& tally, std::string excerpt) {
    if (!tally.first) return;
    Finding f;
    f.kind = kind;
    f.field = site.field;
    f.path = site.path;
    f.in_key = site.in_key;
    f.offset = *tally.first;
    f.count = tally.count;
    f.excerpt = std::move(excerpt);
    out.push_back(std::move(f));
}

}  // namespace

void scan_text(std::string_view text, const TextSite& site, const ScanContext& context, std::vector<Finding>& out) {
    if (text.empty()) return;
    const CharacterPass chars = scan_characters(text);
    const auto at = [&](const Tally& t) { return t.first ? excerpt_at(text, *t.first) : std::string(); };
    emit(out, FindingKind::ControlCharacter, site, chars.control, at(chars.control));
    emit(out, FindingKind::InvalidUtf8, site, chars.invalid, at(chars.invalid));
    emit(out, FindingKind::InvisibleCharacter, site, chars.invisible, at(chars.invisible));
    emit(out, FindingKind::TagCharacter, site, chars.tag, terminal_safe(chars.hidden, LineBreaks::Escape));
    emit(out, FindingKind::BidiControl, site, chars.bidi, at(chars.bidi));
    if (site.max_bytes && text.size() > site.max_bytes) {
        Tally length;
        length.add(0, text.size());
        emit(out, FindingKind::OverlongText, site, length, excerpt_at(text, 0));
    }
    const Tally markers = find_phrases(chars.folded, kInstructionMarkers.begin(), kInstructionMarkers.end());
    emit(out, FindingKind::InstructionMarker, site, markers, at(markers));
    Tally credentials = find_phrases(chars.folded, kCredentialNames.begin(), kCredentialNames.end());
    const Tally dotenv = find_dotenv(chars.folded);
    if (dotenv.first) credentials.add(*dotenv.first, dotenv.count);
    emit(out, FindingKind::CredentialReference, site, credentials, at(credentials));
    const Tally foreign = find_foreign_names(text, context);
    emit(out, FindingKind::CrossServerReference, site, foreign, at(foreign));
}

}  // namespace mcph::governance
