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
using keyword::count_member;
using keyword::is_integer;
using keyword::number_member;

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

bool Evaluator::assertions(const JsonValue& schema, const JsonValue& instance) {
    if (const JsonValue* type = json::member(schema, "type")) {
        bool match = type->IsString() && has_type(instance, json::view(*type));
        if (type->IsArray())
            for (const JsonValue& t : type->GetArray()) match = match || (t.IsString() && has_type(instance, json::view(t)));
        if (!match && (type->IsString() || type->IsArray())) return fail("type");
    }
    if (const JsonValue* values = json::array_member(schema, "enum")) {
        if (!charge(values->Size())) return false;
        bool found = false;
        for (const JsonValue& v : values->GetArray()) found = found || json_equal(v, instance);
        if (!found) return fail("enum");
    }
    if (const JsonValue* value = json::member(schema, "const"); value && !json_equal(*value, instance)) return fail("const");
    if (instance.IsNumber()) return number_assertions(schema, instance);
    if (instance.IsString()) return string_assertions(schema, instance);
    if (instance.IsArray()) return array_assertions(schema, instance);
    if (instance.IsObject()) return object_assertions(schema, instance);
    return true;
}

bool Evaluator::number_assertions(const JsonValue& schema, const JsonValue& x) {
    if (const JsonValue* m = number_member(schema, "multipleOf"); m && !multiple_of(x, *m)) return fail("multipleOf");
    const bool draft4 = dialect_.boolean_exclusive_bounds;
    if (const JsonValue* max = number_member(schema, "maximum")) {
        const bool exclusive = draft4 && json::bool_or(schema, "exclusiveMaximum", false);
        const int c = compare_numbers(x, *max);
        if (c > 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMaximum" : "maximum");
    }
    if (const JsonValue* min = number_member(schema, "minimum")) {
        const bool exclusive = draft4 && json::bool_or(schema, "exclusiveMinimum", false);
        const int c = compare_numbers(x, *min);
        if (c < 0 || (exclusive && c == 0)) return fail(exclusive ? "exclusiveMinimum" : "minimum");
    }
    if (draft4) return true;
    if (const JsonValue* max = number_member(schema, "exclusiveMaximum"); max && compare_numbers(x, *max) >= 0)
        return fail("exclusiveMaximum");
    if (const JsonValue* min = number_member(schema, "exclusiveMinimum"); min && compare_numbers(x, *min) <= 0)
        return fail("exclusiveMinimum");
    return true;
}

bool Evaluator::string_assertions(const JsonValue& schema, const JsonValue& s) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxLength", bound) && code_points(s) > bound) return fail("maxLength");
    if (count_member(schema, "minLength", bound) && code_points(s) < bound) return fail("minLength");
    if (const JsonValue* source = json::member(schema, "pattern"); source && source->IsString())
        // A pattern the linear-time engine cannot read is not checked (pattern.hpp).
        if (const Pattern* p = index_.pattern(json::view(*source))) {
            if (!charge(p->cost(s.GetStringLength()))) return false;
            if (!p->search(json::view(s))) return fail("pattern");
        }
    return true;
}

bool Evaluator::array_assertions(const JsonValue& schema, const JsonValue& a) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxItems", bound) && a.Size() > bound) return fail("maxItems");
    if (count_member(schema, "minItems", bound) && a.Size() < bound) return fail("minItems");
    if (json::bool_or(schema, "uniqueItems", false)) {
        // Pairwise, charged to the budget: a long array cannot buy unbounded time.
        const std::size_t n = a.Size();
        if (!charge(n * (n > 0 ? n - 1 : 0) / 2 / 8)) return false;
        for (rapidjson::SizeType i = 0; i < n; ++i)
            for (rapidjson::SizeType j = i + 1; j < n; ++j)
                if (json_equal(a[i], a[j])) return fail("uniqueItems");
    }
    return true;
}

bool Evaluator::object_assertions(const JsonValue& schema, const JsonValue& o) {
    std::uint64_t bound = 0;
    if (count_member(schema, "maxProperties", bound) && o.MemberCount() > bound) return fail("maxProperties");
    if (count_member(schema, "minProperties", bound) && o.MemberCount() < bound) return fail("minProperties");
    if (const JsonValue* required = json::array_member(schema, "required"))
        for (const JsonValue& name : required->GetArray())
            if (name.IsString() && !contains_name(o, name)) return fail("required");
    // draft-07's `dependencies` is honoured in every dialect (the suite's dependencies-compatibility):
    // schemas written for older drafts still carry it.
    for (const char* dependent : {"dependentRequired", "dependencies"}) {
        if (dialect_.dependencies && std::string_view(dependent) == "dependentRequired") continue;  // not in draft-07
        if (const JsonValue* deps = json::object_member(schema, dependent))
            for (const auto& dep : deps->GetObject()) {
                if (!dep.value.IsArray() || !contains_name(o, dep.name)) continue;
                for (const JsonValue& name : dep.value.GetArray())
                    if (name.IsString() && !contains_name(o, name)) return fail(dependent);
            }
    }
    return true;
}

}  // namespace mcph::schema
