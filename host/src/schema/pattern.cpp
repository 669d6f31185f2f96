#include "schema/pattern.hpp"

#include <rapidjson/internal/regex.h>

#include <cctype>
#include <algorithm>
#include <mutex>
#include <vector>

namespace mcph::schema {
namespace {

// Longer sources are refused: the NFA's size grows with the source (and with {m,n} counts).
constexpr std::size_t kMaxPatternBytes = 2048;
constexpr unsigned kMaxRepeat = 256;
// Past this many (estimated) NFA states a pattern is refused: its memory, and its time per
// character searched, grow with the state count.
constexpr std::size_t kMaxStates = 20'000;

const char* class_body(char shorthand) {
    switch (shorthand) {
        case 'd': return "0-9";
        case 'w': return "a-zA-Z0-9_";
        // ECMA-262 WhiteSpace and LineTerminator, Unicode ones included (the engine reads UTF-8).
        case 's': return " \\t\\n\\r\\f\\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";
        default: return nullptr;
    }
}

// Characters the engine reads as an escape of themselves.
bool engine_escapable(char c) {
    return std::string_view("^$|()?*+.[]{}\\").find(c) != std::string_view::npos;
}

// A {m}, {m,} or {m,n} count with every number within kMaxRepeat.
bool repeat_within_bound(std::string_view p, std::size_t open) {
    unsigned value = 0;
    for (std::size_t i = open + 1; i < p.size() && p[i] != '}'; ++i) {
        if (p[i] == ',') value = 0;
        else if (std::isdigit(static_cast<unsigned char>(p[i]))) {
            value = value * 10 + static_cast<unsigned>(p[i] - '0');
            if (value > kMaxRepeat) return false;
        }
    }
    return true;
}

// An upper estimate of the engine's NFA states for a translated pattern: the engine copies an
// operand once per counted repetition, so "((a{256}){256}){256}" would be 16 million states.
std::size_t estimated_states(std::string_view p) {
    static constexpr std::size_t cap = kMaxStates + 1;
    auto add = [](std::size_t a, std::size_t b) { return std::min(cap, a + b); };
    auto mul = [](std::size_t a, std::size_t b) { return b && a > cap / b ? cap : std::min(cap, a * b); };
    std::vector<std::size_t> groups{0};
    std::size_t last = 0;  // the size of the operand a quantifier applies to
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '(') {
            groups.push_back(0);
            continue;
        }
        if (c == ')' && groups.size() > 1) {
            last = groups.back();
            groups.pop_back();
            groups.back() = add(groups.back(), last);
            continue;
        }
        if (c == '*' || c == '+' || c == '?') {
            groups.back() = add(groups.back(), 1);
            continue;
        }
        if (c == '{') {
            std::size_t most = 0, value = 0;
            for (++i; i < p.size() && p[i] != '}'; ++i)
                if (std::isdigit(static_cast<unsigned char>(p[i]))) value = value * 10 + static_cast<std::size_t>(p[i] - '0');
                else value = 0;
            most = std::max(most, value) + 1;
            groups.back() = add(groups.back(), mul(last, most));
            last = mul(last, most);
            continue;
        }
        if (c == '|') continue;
        if (c == '\\') ++i;
        else if (c == '[')
            for (++i; i < p.size() && p[i] != ']'; ++i)
                if (p[i] == '\\') ++i;
        last = 1;
        groups.back() = add(groups.back(), 1);
    }
    return groups.front();
}

}  // namespace

std::optional<std::string> translate_pattern(std::string_view p) {
    if (p.size() > kMaxPatternBytes) return std::nullopt;
    std::string out;
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            if (i + 1 >= p.size()) return std::nullopt;
            const char e = p[++i];
            const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(e)));
            if (const char* body = class_body(lower)) {
                const bool negated = e != lower;
                if (in_class && negated) return std::nullopt;  // [^\D] has no subset form
                out += in_class ? std::string(body) : std::string(negated ? "[^" : "[") + body + "]";
            } else if (std::string_view("fnrtv").find(e) != std::string_view::npos || engine_escapable(e)) {
                out.push_back('\\');
                out.push_back(e);
            } else if (std::ispunct(static_cast<unsigned char>(e)) && e != '-') {
                out.push_back(e);  // an identity escape such as \/ or \:
            } else if (e == '-' && !in_class) {
                out.push_back('-');
            } else {
                return std::nullopt;  // \b, \B, \1, \p{..}, \u...., \x.., \- inside a class
            }
            continue;
        }
        if (in_class) {
            if (c == ']') in_class = false;
            out.push_back(c);
            continue;
        }
        if (c == '[') {
            in_class = true;
            out.push_back(c);
            if (i + 1 < p.size() && p[i + 1] == '^') out.push_back(p[++i]);
            if (i + 1 < p.size() && p[i + 1] == ']') return std::nullopt;  // "[]..." reads differently
            continue;
        }
        if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
            if (i + 2 < p.size() && p[i + 2] == ':') {
                out.push_back('(');
                i += 2;
                continue;
            }
            return std::nullopt;  // lookaround, named groups
        }
        if (c == '{' && !repeat_within_bound(p, i)) return std::nullopt;
        if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < p.size() && p[i + 1] == '?')
            return std::nullopt;  // lazy quantifiers: same matches for search, but the engine cannot read them
        out.push_back(c);
    }
    if (in_class || estimated_states(out) > kMaxStates) return std::nullopt;
    return out;
}

// The engine keeps its NFA state sets in the regex object, so one search at a time per pattern.
struct Pattern::Engine {
    Engine(const std::string& source, std::size_t states) : regex(source.c_str()), states(states) {}
    rapidjson::internal::Regex regex;
    std::size_t states;
    std::mutex mutex;
};

Pattern::Pattern(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
Pattern::~Pattern() = default;

std::shared_ptr<const Pattern> Pattern::compile(std::string_view ecma_pattern) {
    std::optional<std::string> source = translate_pattern(ecma_pattern);
    if (!source) return nullptr;
    auto engine = std::make_unique<Engine>(*source, estimated_states(*source));
    if (!engine->regex.IsValid()) return nullptr;
    return std::shared_ptr<const Pattern>(new Pattern(std::move(engine)));
}

std::size_t Pattern::cost(std::size_t text_bytes) const {
    // One unit per 1024 NFA state visits: (text + 1) characters times the states at most.
    const std::size_t visits = (text_bytes + 1) * std::max<std::size_t>(engine_->states, 1);
    return visits / 1024 + 1;
}

bool Pattern::search(std::string_view text) const {
    // The engine reads a NUL-terminated string: a JSON string's embedded NUL ends the text there.
    const std::string copy(text);
    std::lock_guard lock(engine_->mutex);
    return engine_->regex.Search(copy.c_str());
}

}  // namespace mcph::schema
