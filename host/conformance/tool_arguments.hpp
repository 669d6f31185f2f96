// The arguments the conformance client sends each tool: sampled from the tool's inputSchema, except
// for the suite's echo tool (json-schema-2020-12-preservation's `json_schema_echo`), whose one
// argument is another tool's inputSchema passed back verbatim so the suite can see what the host
// kept of it. Header-only: the conformance client is one executable with no library of its own.
#pragma once

#include "tools/sample_arguments.hpp"

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <string>
#include <vector>

namespace mcph::conformance {

inline constexpr const char* kEchoTool = "json_schema_echo";
inline constexpr const char* kEchoedTool = "json_schema_2020_12_tool";

inline Json tool_arguments(const Tool& tool, const std::vector<Tool>& all) {
    if (tool.name != kEchoTool) return tools::sample_arguments(tool.input_schema);
    const Tool* echoed = nullptr;
    for (const Tool& t : all)
        if (t.name == kEchoedTool || (!echoed && t.name != kEchoTool)) echoed = &t;
    Json args(rapidjson::kObjectType);
    if (!echoed) return args;
    Json schema = parse_json(echoed->input_schema, "inputSchema");
    args.AddMember("schema", JsonValue(schema, args.GetAllocator()), args.GetAllocator());
    return args;
}

}  // namespace mcph::conformance
