// Small, null-safe readers for RapidJSON values (servers send anything; we never assert).
#pragma once

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <optional>
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

// Sets `object[name] = value`: replaces the value of an existing member (in place, keeping the
// order), else appends the member. `object` must be an object.
inline void set_member(rapidjson::Value& object, rapidjson::Value&& name, rapidjson::Value&& value,
                       rapidjson::MemoryPoolAllocator<>& a) {
    if (auto it = object.FindMember(name); it != object.MemberEnd()) it->value = std::move(value);
    else object.AddMember(name, value, a);
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

// Strings of kBorrowFrom bytes or more are passed as not-to-copy: the tree built refers to the
// source's bytes (RapidJSON "const strings"). Shorter ones: a copy is cheaper than the thought.
inline constexpr rapidjson::SizeType kBorrowFrom = 256;
inline bool copy_when_short(rapidjson::SizeType n, bool copy) { return copy && n < kBorrowFrom; }
template <class Inner>
using BorrowingLongStrings = json_bounds::RecopyingStrings<Inner, &copy_when_short>;

// A copy of `value`, built in `alloc`, whose long strings refer to `value`'s bytes instead of
// copying them: for a request's params made from a caller's arguments that outlive the request
// (a synchronous call), so a 1 MiB argument is not copied into the params, nor again by each
// clone of them (CopyFrom shares such strings). It must not outlive `value`. Nullopt when `value`
// nests deeper than `max_depth` (the copy recurses per level, as the writer does) or holds a
// number that is not finite (which the writer refuses).
inline std::optional<rapidjson::Value> borrowing_copy(const rapidjson::Value& value,
                                                      rapidjson::Document::AllocatorType& alloc, unsigned max_depth) {
    rapidjson::Value out;
    const bool ok = json_bounds::build_tree(out, alloc, [&](json_bounds::TreeBuilder& handler) {
        BorrowingLongStrings<json_bounds::TreeBuilder> borrowing(handler);
        json_bounds::DepthLimitedHandler<BorrowingLongStrings<json_bounds::TreeBuilder>> limited(borrowing, max_depth);
        return value.Accept(limited);  // json-bounds-ok: the depth-limited handler
    });
    if (!ok) return std::nullopt;
    return out;
}

}  // namespace mcph::json
