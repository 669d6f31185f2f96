// Plausible arguments for a tool from its inputSchema: every required property (and every
// property with a default) gets its default, the first enum value, or a simple value of its type.
// Used by the conformance client, which must call tools it has never seen.
#pragma once

#include <mcph/json.hpp>

#include <string_view>

namespace mcph::tools {

Json sample_arguments(std::string_view input_schema_json);

}  // namespace mcph::tools
