// Small, null-safe readers for RapidJSON values (servers send anything; we never assert).
#pragma once

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace mcph::json {

// Every tree the host holds was parsed under json_bounds::kMaxDepth; the host wraps such values in
// a few levels of its own (a JSON-RPC envelope, `mcph tools --json`'s list), so writing allows a
// little more. Past this a tree was built by hand, and RapidJSON's recursive writer must not see it.
inline constexpr unsigned kWriteDepth = json_bounds::kMaxDepth + 32;

inline const rapidjson::Value* member(const rapidjson::Value& obj, const char* key) {
    if (!obj.IsObject()) return nullptr;
    auto it = obj.FindMember(key);
    return it == obj.MemberEnd() ? nullptr : &it->value;
}

inline rapidjson::Value* member_mut(rapidjson::Value& obj, const char* key) {
    if (!obj.IsObject()) return nullptr;
    auto it = obj.FindMember(key);
    return it == obj.MemberEnd() ? nullptr : &it->value;
}

inline std::string string_or(const rapidjson::Value& obj, const char* key, std::string fallback = {}) {
    const rapidjson::Value* v = member(obj, key);
    return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::move(fallback);
}

inline const rapidjson::Value* object_member(const rapidjson::Value& obj, const char* key) {
    const rapidjson::Value* v = member(obj, key);
    return v && v->IsObject() ? v : nullptr;
}

inline const rapidjson::Value* array_member(const rapidjson::Value& obj, const char* key) {
    const rapidjson::Value* v = member(obj, key);
    return v && v->IsArray() ? v : nullptr;
}

inline bool bool_or(const rapidjson::Value& obj, const char* key, bool fallback) {
    const rapidjson::Value* v = member(obj, key);
    return v && v->IsBool() ? v->GetBool() : fallback;
}

inline std::string_view view(const rapidjson::Value& v) {
    return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

inline rapidjson::Value string_value(std::string_view s, rapidjson::Document::AllocatorType& alloc) {
    return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

}  // namespace mcph::json
