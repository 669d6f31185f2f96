// Plausible arguments for a tool from its inputSchema: every required property (and every
// property with a default) gets its default, its const, the first enum value, or a simple value
// of its type (the first non-null one of a type list; minItems items for an array). Same-document
// `$ref`s (#/$defs/..., anchors) are followed; nothing outside the schema is.
// Used by the conformance client, which must call tools it has never seen.
#pragma once

#include <mcph/json.hpp>

#include <string_view>

namespace mcph::tools {

Json sample_arguments(std::string_view input_schema_json);

}  // namespace mcph::tools
