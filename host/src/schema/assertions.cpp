// The evaluator's assertions: the keywords that check the instance itself (type, enum, const, and
// the number, string, array and object keywords) rather than apply subschemas to it.
#include "schema/evaluator.hpp"

#include "json/json_access.hpp"
#include "schema/json_equal.hpp"
#include "schema/keyword_values.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace mcph::schema {
namespace {

using keyword::contains_name;
using keyword::is_integer;

bool has_type(const JsonValue& v, std::string_view type) {
    if (type == "object") return v.IsObject();
    if (type == "array") return v.IsArray();
    if (type == "string") return v.IsString();
    if (type == "number") return v.IsNumber();
    if (type == "integer") return is_integer(v);
    if (type == "boolean") return v.IsBool();
    if (type == "null") return v.IsNull();
    return false;
}

bool multiple_of(const JsonValue& x, const JsonValue& m) {
    if (m.GetDouble() <= 0) return true;  // a malformed divisor asserts nothing
    if (x.IsInt64() && m.IsInt64()) return x.GetInt64() % m.GetInt64() == 0;
    const double q = x.GetDouble() / m.GetDouble();
    if (!std::isfinite(q)) return std::fmod(x.GetDouble(), m.GetDouble()) == 0;  // 1e308 / 0.5 overflows
    return std::fabs(q - std::nearbyint(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
}

std::uint64_t code_points(const JsonValue& s) {
    std::uint64_t n = 0;
    for (rapidjson::SizeType i = 0; i < s.GetStringLength(); ++i)
        n += (static_cast<unsigned char>(s.GetString()[i]) & 0xC0) != 0x80;
    return n;
}

}  // namespace

bool Evaluator::assertions(const KeywordSet& k, const JsonValue& instance) {
    if (const JsonValue* type = k.get(Keyword::Type)) {
        bool match = type->IsString() && has_type(instance, json::view(*type));
        if (type->IsArray())
            for (const JsonValue& t : type->GetArray()) match = match || (t.IsString() && has_type(instance, json::view(t)));
        if (!match && (type->IsString() || type->IsArray())) return fail("type");
    }
    if (const JsonValue* values = k.array(Keyword::Enum)) {
        if (!charge(values->Size())) return false;
        bool found = false;
        for (const JsonValue& v : values->GetArray()) found = found || json_equal(v, instance);
        if (!found) return fail("enum");
    }
    if (const JsonValue* value = k.get(Keyword::Const); value && !json_equal(*value, instance)) return fail("const");
    if (instance.IsNumber()) return number_assertions(k, instance);
    if (instance.IsString()) return string_assertions(k, instance);
    if (instance.IsArray()) return array_assertions(k, instance);
    if (instance.IsObject()) return object_assertions(k, instance);
    return true;
}

bool Evaluator::number_assertions(const KeywordSet& k, const JsonValue& x) {
    if (const JsonValue* m = k.number(Keyword::MultipleOf); m && !multiple_of(x, *m)) return fail("multipleOf");
    const bool draft4 = dialect_.boolean_exclusive_bounds;
    if (const JsonValue* max = k.number(Keyword::Maximum)) {
        const bool exclusive = draft4 && k.flag(Keyword::ExclusiveMaximum, false);
        const int c = compare_numbers(x, *max);
        if (c > 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMaximum" : "maximum");
    }
    if (const JsonValue* min = k.number(Keyword::Minimum)) {
        const bool exclusive = draft4 && k.flag(Keyword::ExclusiveMinimum, false);
        const int c = compare_numbers(x, *min);
        if (c < 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMinimum" : "minimum");
    }
    if (draft4) return true;
    if (const JsonValue* max = k.number(Keyword::ExclusiveMaximum); max && compare_numbers(x, *max) >= 0)
        return fail("exclusiveMaximum");
    if (const JsonValue* min = k.number(Keyword::ExclusiveMinimum); min && compare_numbers(x, *min) <= 0)
        return fail("exclusiveMinimum");
    return true;
}

bool Evaluator::string_assertions(const KeywordSet& k, const JsonValue& s) {
    std::uint64_t bound = 0;
    if (k.count(Keyword::MaxLength, bound) && code_points(s) > bound) return fail("maxLength");
    if (k.count(Keyword::MinLength, bound) && code_points(s) < bound) return fail("minLength");
    if (const JsonValue* source = k.get(Keyword::Pattern); source && source->IsString())
        // A pattern the linear-time engine cannot read is not checked (pattern.hpp).
        if (const Pattern* p = index_.pattern(json::view(*source))) {
            if (!charge(p->cost(s.GetStringLength()))) return false;
            if (!p->search(json::view(s))) return fail("pattern");
        }
    return true;
}

bool Evaluator::array_assertions(const KeywordSet& k, const JsonValue& a) {
    std::uint64_t bound = 0;
    if (k.count(Keyword::MaxItems, bound) && a.Size() > bound) return fail("maxItems");
    if (k.count(Keyword::MinItems, bound) && a.Size() < bound) return fail("minItems");
    if (k.flag(Keyword::UniqueItems, false)) {
        // Pairwise, charged to the budget: a long array cannot buy unbounded time.
        const std::size_t n = a.Size();
        if (!charge(n * (n > 0 ? n - 1 : 0) / 2 / 8)) return false;
        for (rapidjson::SizeType i = 0; i < n; ++i)
            for (rapidjson::SizeType j = i + 1; j < n; ++j)
                if (json_equal(a[i], a[j])) return fail("uniqueItems");
    }
    return true;
}

bool Evaluator::object_assertions(const KeywordSet& k, const JsonValue& o) {
    std::uint64_t bound = 0;
    if (k.count(Keyword::MaxProperties, bound) && o.MemberCount() > bound) return fail("maxProperties");
    if (k.count(Keyword::MinProperties, bound) && o.MemberCount() < bound) return fail("minProperties");
    if (const JsonValue* required = k.array(Keyword::Required))
        for (const JsonValue& name : required->GetArray())
            if (name.IsString() && !contains_name(o, name)) return fail("required");
    // draft-07's `dependencies` is honoured in every dialect (the suite's dependencies-compatibility):
    // schemas written for older drafts still carry it.
    for (const Keyword dependent : {Keyword::DependentRequired, Keyword::Dependencies}) {
        if (dialect_.dependencies && dependent == Keyword::DependentRequired) continue;  // not in draft-07
        if (const JsonValue* deps = k.object(dependent))
            for (const auto& dep : deps->GetObject()) {
                if (!dep.value.IsArray() || !contains_name(o, dep.name)) continue;
                for (const JsonValue& name : dep.value.GetArray())
                    if (name.IsString() && !contains_name(o, name))
                        return fail(dependent == Keyword::Dependencies ? "dependencies" : "dependentRequired");
            }
    }
    return true;
}

}  // namespace mcph::schema
