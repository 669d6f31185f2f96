// `pattern` / `patternProperties` regular expressions, run on RapidJSON's Thompson-NFA engine
// (rapidjson/internal/regex.h, already a dependency): its time is linear in the text, so a hostile
// pattern such as "(a+)+$" cannot make validation backtrack exponentially (std::regex and ICU
// would). The engine reads a subset of ECMA-262; translate() maps the common escapes it lacks
// (\d \w \s and their negations, (?:...), identity escapes such as \/ and \-) onto it. A pattern
// still outside that subset (lookaround, backreferences, \b, \p{...}), or whose NFA would exceed
// 20,000 states (nested counted repetitions multiply), is reported unsupported and
// the caller treats the keyword as not checked (documented in docs/json-schema.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::schema {

class Pattern {
public:
    // nullptr when the pattern is outside the subset (or over the size bound).
    static std::shared_ptr<const Pattern> compile(std::string_view ecma_pattern);
    // An unanchored search, as JSON Schema's `pattern` is.
    bool search(std::string_view text) const;
    // What a search of `text_bytes` costs, in validation-budget units (schema_limits.hpp): the
    // engine's time is the text length times its state count.
    std::size_t cost(std::size_t text_bytes) const;

    ~Pattern();
    Pattern(const Pattern&) = delete;
    Pattern& operator=(const Pattern&) = delete;

private:
    struct Engine;
    explicit Pattern(std::unique_ptr<Engine> engine);
    std::unique_ptr<Engine> engine_;
};

// The ECMA-262 pattern rewritten into the engine's subset; nullopt if it cannot be.
std::optional<std::string> translate_pattern(std::string_view ecma_pattern);

}  // namespace mcph::schema
