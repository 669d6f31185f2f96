// JSON in the public API: RapidJSON documents (a fixed dependency of mcph), plus a few helpers.
//
// mcph::Json is rapidjson::Document and mcph::JsonValue is rapidjson::Value, used as they are:
// RapidJSON 1.1 (Debian's rapidjson-dev, header-only) compiled with RAPIDJSON_HAS_STDSTRING=1.
// Both are usage requirements of the mcph CMake target (and of mcph.pc); an embedder building
// by hand passes -DRAPIDJSON_HAS_STDSTRING=1. The library and its users must see the same
// rapidjson::GenericValue, so compiling against these headers without the define is refused
// here rather than left to misbehave (docs/compatibility.md, "JSON in the API").
#pragma once

#include <mcph/export.hpp>

#include <rapidjson/document.h>

#if !RAPIDJSON_HAS_STDSTRING
#error "libmcph's headers need RapidJSON with RAPIDJSON_HAS_STDSTRING=1 (link the mcph::mcph target, or pkg-config --cflags mcph)"
#endif

#include <string>
#include <string_view>

namespace mcph {

using Json = rapidjson::Document;
using JsonValue = rapidjson::Value;

// Serialises a value compactly (no newlines: safe for line-framed transports). Throws
// mcph::Error(Usage) for a tree nested deeper than 160 levels (RapidJSON's writer recurses per
// level; no parsed input gets near that bound).
MCPH_API std::string to_json(const JsonValue& value);
// Serialises with indentation, for people; the same bound.
MCPH_API std::string to_pretty_json(const JsonValue& value);
// Parses text, at most 128 levels deep (mcph/bounded_json.hpp); throws
// mcph::Error(Usage) with the offset and reason on malformed or deeper input.
MCPH_API Json parse_json(std::string_view text, const char* what = "JSON");
// A deep copy into a fresh document.
MCPH_API Json clone_json(const JsonValue& value);

}  // namespace mcph
