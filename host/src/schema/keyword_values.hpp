// What the evaluator's files share about keyword values (KeywordSet reads the keywords themselves).
#pragma once

#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <cmath>
#include <cstdint>

namespace mcph::schema::keyword {

inline bool is_integer(const JsonValue& v) {
    if (v.IsInt64() || v.IsUint64()) return true;
    if (!v.IsNumber()) return false;
    const double d = v.GetDouble();
    return std::isfinite(d) && std::floor(d) == d;  // 1.0 is an integer in 2020-12
}

inline bool contains_name(const JsonValue& object, const JsonValue& name) {
    return name.IsString() && object.FindMember(name) != object.MemberEnd();
}

}  // namespace mcph::schema::keyword
