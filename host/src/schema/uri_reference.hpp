// URI-reference resolution (RFC 3986 section 5.2) for `$id` and `$ref`: the evaluator only ever
// compares the resulting strings with the identifiers one schema document declares. Hand-written
// (about 80 lines) because no Debian-packaged C++ URI library is already a dependency, and the
// WHATWG parser in host/src/url normalises in ways JSON Schema identifiers must not be.
#pragma once

#include <string>
#include <string_view>

namespace mcph::schema {

// `reference` resolved against `base` (itself absolute, relative or empty).
std::string resolve_uri(std::string_view base, std::string_view reference);

// The part before '#', and the fragment after it (empty if none).
std::string_view without_fragment(std::string_view uri);
std::string_view fragment_of(std::string_view uri);

// A URI another host would serve (it has an authority: "scheme://..."), which MCP forbids
// dereferencing automatically.
bool is_network_uri(std::string_view uri);

}  // namespace mcph::schema
