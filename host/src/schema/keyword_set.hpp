// Which of the evaluator's keywords one schema object holds, found in one pass over its member
// names. The evaluator asks a schema node for about forty keywords; a node usually has two to five.
// Looking each up by name scanned the node's members forty times per node per validation (15% of a
// tool call's client instructions for a three-keyword outputSchema, callgrind); with the set, an
// absent keyword costs a bit test and a present one a scan of a few members.
#pragma once

#include <mcph/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace mcph::schema {

// The keywords the evaluator reads (names in keyword_set.cpp, in this order).
enum class Keyword : std::uint8_t {
    DynamicRef, RecursiveRef, Ref, AdditionalItems, AdditionalProperties, AllOf, AnyOf, Const, Contains,
    Dependencies, DependentRequired, DependentSchemas, Else, Enum, ExclusiveMaximum, ExclusiveMinimum, If, Items,
    MaxContains, MaxItems, MaxLength, MaxProperties, Maximum, MinContains, MinItems, MinLength, MinProperties,
    Minimum, MultipleOf, Not, OneOf, Pattern, PatternProperties, PrefixItems, Properties, PropertyNames, Required,
    Then, Type, UnevaluatedItems, UnevaluatedProperties, UniqueItems,
    Count
};

// The keyword's name as it appears in a schema ("$ref", "minLength"...).
std::string_view keyword_name(Keyword k);
// The keyword a member name is, or Keyword::Count for any other name.
Keyword keyword_of(std::string_view name);

class KeywordSet {
public:
    // `schema` must outlive the set; a non-object holds no keyword.
    explicit KeywordSet(const JsonValue& schema);

    bool has(Keyword k) const { return (mask_ >> static_cast<unsigned>(k)) & 1u; }
    bool empty() const { return mask_ == 0; }
    bool has_any(std::initializer_list<Keyword> ks) const {
        for (const Keyword k : ks)
            if (has(k)) return true;
        return false;
    }
    // The keyword's value (the first member of that name, as FindMember has it), or null.
    const JsonValue* get(Keyword k) const;
    // The value when it has the type the keyword needs, else null (a malformed keyword asserts nothing).
    const JsonValue* array(Keyword k) const;
    const JsonValue* object(Keyword k) const;
    const JsonValue* number(Keyword k) const;
    // A non-negative integer keyword (maxLength, minItems...), saturated; false when absent or malformed.
    bool count(Keyword k, std::uint64_t& value) const;
    // A boolean keyword, or `fallback` when it is absent or not a boolean.
    bool flag(Keyword k, bool fallback) const;

private:
    const JsonValue* schema_;
    std::uint64_t mask_ = 0;
    static_assert(static_cast<unsigned>(Keyword::Count) <= 64, "one bit per keyword");
};

}  // namespace mcph::schema
