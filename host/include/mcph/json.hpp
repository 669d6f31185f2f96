// JSON in the public API: RapidJSON documents (a fixed dependency of mcph), plus a few helpers.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace mcph {

using Json = rapidjson::Document;
using JsonValue = rapidjson::Value;

// Serialises a value compactly (no newlines: safe for line-framed transports). Throws
// mcph::Error(Usage) for a tree nested deeper than 160 levels (RapidJSON's writer recurses per
// level; no parsed input gets near that bound).
std::string to_json(const JsonValue& value);
// Serialises with indentation, for people; the same bound.
std::string to_pretty_json(const JsonValue& value);
// Parses text iteratively, at most 128 levels deep (mcph/bounded_json.hpp); throws
// mcph::Error(Usage) with the offset and reason on malformed or deeper input.
Json parse_json(std::string_view text, const char* what = "JSON");
// A deep copy into a fresh document.
Json clone_json(const JsonValue& value);

}  // namespace mcph
