// JSON Schema's equality (for enum, const, uniqueItems): numbers compare by value (1 == 1.0),
// objects without regard to member order.
#pragma once

#include <mcph/json.hpp>

namespace mcph::schema {

bool json_equal(const JsonValue& a, const JsonValue& b);
// Numbers by value: -1, 0 or 1. Integers compare exactly (no rounding through double).
int compare_numbers(const JsonValue& a, const JsonValue& b);

}  // namespace mcph::schema
