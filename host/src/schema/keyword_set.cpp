#include "schema/keyword_set.hpp"

#include "json/json_access.hpp"
#include "schema/keyword_values.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mcph::schema {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(Keyword::Count)> kNames = {
    "$dynamicRef", "$recursiveRef", "$ref", "additionalItems", "additionalProperties", "allOf", "anyOf", "const",
    "contains", "dependencies", "dependentRequired", "dependentSchemas", "else", "enum", "exclusiveMaximum",
    "exclusiveMinimum", "if", "items", "maxContains", "maxItems", "maxLength", "maxProperties", "maximum",
    "minContains", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
    "patternProperties", "prefixItems", "properties", "propertyNames", "required", "then", "type",
    "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
};
constexpr std::size_t kCount = kNames.size();
constexpr std::size_t kLongest = 21;  // "unevaluatedProperties"

// The keywords grouped by name length, so that a lookup compares a name with the one or few
// keywords of its length (two at most share a length and a first byte) instead of searching all.
struct ByLength {
    std::array<std::uint8_t, kCount> order{};          // keyword indices, shortest names first
    std::array<std::uint8_t, kLongest + 2> start{};  // order[start[n] .. start[n + 1]) have length n
};

constexpr ByLength group_by_length() {
    ByLength t;
    std::size_t at = 0;
    for (std::size_t length = 0; length <= kLongest; ++length) {
        t.start[length] = static_cast<std::uint8_t>(at);
        for (std::size_t i = 0; i < kCount; ++i)
            if (kNames[i].size() == length) t.order[at++] = static_cast<std::uint8_t>(i);
    }
    t.start[kLongest + 1] = static_cast<std::uint8_t>(at);
    return t;
}
constexpr ByLength kByLength = group_by_length();
static_assert(kByLength.start[kLongest + 1] == kCount, "every keyword name is at most kLongest bytes");
static_assert(kByLength.start[1] == 0, "every keyword has a name");

}  // namespace

std::string_view keyword_name(Keyword k) { return kNames[static_cast<std::size_t>(k)]; }

Keyword keyword_of(std::string_view name) {
    if (name.empty() || name.size() > kLongest) return Keyword::Count;
    for (std::size_t j = kByLength.start[name.size()]; j < kByLength.start[name.size() + 1]; ++j) {
        const std::string_view candidate = kNames[kByLength.order[j]];
        if (candidate[0] == name[0] && candidate == name) return static_cast<Keyword>(kByLength.order[j]);
    }
    return Keyword::Count;
}

KeywordSet::KeywordSet(const JsonValue& schema) : schema_(&schema) {
    if (!schema.IsObject()) return;
    for (const auto& m : schema.GetObject())
        if (const Keyword k = keyword_of(json::view(m.name)); k != Keyword::Count) mask_ |= std::uint64_t{1} << static_cast<unsigned>(k);
}

const JsonValue* KeywordSet::get(Keyword k) const {
    if (!has(k)) return nullptr;
    const std::string_view name = keyword_name(k);
    for (const auto& m : schema_->GetObject())
        if (json::view(m.name) == name) return &m.value;
    return nullptr;
}

const JsonValue* KeywordSet::array(Keyword k) const {
    const JsonValue* v = get(k);
    return v && v->IsArray() ? v : nullptr;
}

const JsonValue* KeywordSet::object(Keyword k) const {
    const JsonValue* v = get(k);
    return v && v->IsObject() ? v : nullptr;
}

const JsonValue* KeywordSet::number(Keyword k) const {
    const JsonValue* v = get(k);
    return v && v->IsNumber() ? v : nullptr;
}

bool KeywordSet::count(Keyword k, std::uint64_t& value) const {
    const JsonValue* v = number(k);
    if (!v || !keyword::is_integer(*v) || v->GetDouble() < 0) return false;
    value = v->IsUint64() ? v->GetUint64() : static_cast<std::uint64_t>(std::min(v->GetDouble(), 1.8e19));
    return true;
}

bool KeywordSet::flag(Keyword k, bool fallback) const {
    const JsonValue* v = get(k);
    return v && v->IsBool() ? v->GetBool() : fallback;
}

}  // namespace mcph::schema
