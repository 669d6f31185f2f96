#include "schema/json_equal.hpp"

#include <string>

namespace mcph::schema {

int compare_numbers(const JsonValue& a, const JsonValue& b) {
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() < b.GetInt64() ? -1 : a.GetInt64() > b.GetInt64();
    if (a.IsUint64() && b.IsUint64()) return a.GetUint64() < b.GetUint64() ? -1 : a.GetUint64() > b.GetUint64();
    // A uint64 past INT64_MAX against a negative int64.
    if (a.IsUint64() && b.IsInt64()) return 1;
    if (a.IsInt64() && b.IsUint64()) return -1;
    const double x = a.GetDouble(), y = b.GetDouble();
    return x < y ? -1 : x > y;
}

bool json_equal(const JsonValue& a, const JsonValue& b) {
    if (a.IsNumber() && b.IsNumber()) return compare_numbers(a, b) == 0;
    if (a.GetType() != b.GetType()) return false;
    switch (a.GetType()) {
        case rapidjson::kStringType:
            return a.GetStringLength() == b.GetStringLength() &&
                   std::char_traits<char>::compare(a.GetString(), b.GetString(), a.GetStringLength()) == 0;
        case rapidjson::kArrayType: {
            if (a.Size() != b.Size()) return false;
            for (rapidjson::SizeType i = 0; i < a.Size(); ++i)
                if (!json_equal(a[i], b[i])) return false;
            return true;
        }
        case rapidjson::kObjectType: {
            if (a.MemberCount() != b.MemberCount()) return false;
            for (const auto& m : a.GetObject()) {
                auto other = b.FindMember(m.name);
                if (other == b.MemberEnd() || !json_equal(m.value, other->value)) return false;
            }
            return true;
        }
        default:
            return true;  // null, true, false: the type says it all
    }
}

}  // namespace mcph::schema
