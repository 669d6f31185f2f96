// Reading keyword values the way the evaluator's files share: a malformed keyword asserts nothing.
#pragma once

#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace mcph::schema::keyword {

inline bool is_integer(const JsonValue& v) {
    if (v.IsInt64() || v.IsUint64()) return true;
    if (!v.IsNumber()) return false;
    const double d = v.GetDouble();
    return std::isfinite(d) && std::floor(d) == d;  // 1.0 is an integer in 2020-12
}

// The keyword's value when it is a number, else null (a malformed keyword asserts nothing).
inline const JsonValue* number_member(const JsonValue& schema, const char* keyword) {
    const JsonValue* v = json::member(schema, keyword);
    return v && v->IsNumber() ? v : nullptr;
}

// A non-negative integer keyword (maxLength, minItems...), saturated.
inline bool count_member(const JsonValue& schema, const char* keyword, std::uint64_t& value) {
    const JsonValue* v = number_member(schema, keyword);
    if (!v || !is_integer(*v) || v->GetDouble() < 0) return false;
    value = v->IsUint64() ? v->GetUint64() : static_cast<std::uint64_t>(std::min(v->GetDouble(), 1.8e19));
    return true;
}

inline bool contains_name(const JsonValue& object, const JsonValue& name) {
    return name.IsString() && object.FindMember(name) != object.MemberEnd();
}

}  // namespace mcph::schema::keyword
