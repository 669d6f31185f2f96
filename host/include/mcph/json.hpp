// JSON in the public API: RapidJSON documents (a fixed dependency of mcph), plus a few helpers.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace mcph {

using Json = rapidjson::Document;
using JsonValue = rapidjson::Value;

// Serialises a value compactly (no newlines: safe for line-framed transports).
std::string to_json(const JsonValue& value);
// Serialises with indentation, for people.
std::string to_pretty_json(const JsonValue& value);
// Parses text; throws mcph::Error(Usage) with the offset and reason on malformed input.
Json parse_json(std::string_view text, const char* what = "JSON");
// A deep copy into a fresh document.
Json clone_json(const JsonValue& value);

}  // namespace mcph
