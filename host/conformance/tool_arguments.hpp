// The arguments the conformance client sends each tool: those the scenario's context dictates,
// else sampled from the tool's inputSchema — except for the suite's echo tool
// (json-schema-2020-12-preservation's `json_schema_echo`), whose one argument is another tool's
// inputSchema passed back verbatim so the suite can see what the host kept of it. Header-only: the conformance client is one executable with no library of its own.
#pragma once

#include "tools/sample_arguments.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace mcph::conformance {

inline constexpr const char* kEchoTool = "json_schema_echo";
inline constexpr const char* kEchoedTool = "json_schema_2020_12_tool";

// The arguments a scenario dictates for `tool` in MCP_CONFORMANCE_CONTEXT's
// `toolCalls: [{name, arguments}]` (http-custom-headers: values chosen to exercise x-mcp-header
// encoding); false when it dictates none.
inline bool context_arguments(const std::string& tool, Json& out) {
    const char* raw = std::getenv("MCP_CONFORMANCE_CONTEXT");
    Json context;
    if (!raw || !json_bounds::parse(context, raw) || !context.IsObject()) return false;
    auto calls = context.FindMember("toolCalls");
    if (calls == context.MemberEnd() || !calls->value.IsArray()) return false;
    for (const JsonValue& call : calls->value.GetArray()) {
        if (!call.IsObject() || !call.HasMember("name") || !call["name"].IsString() || call["name"].GetString() != tool ||
            !call.HasMember("arguments") || !call["arguments"].IsObject())
            continue;
        out.CopyFrom(call["arguments"], out.GetAllocator());
        return true;
    }
    return false;
}

inline Json tool_arguments(const Tool& tool, const std::vector<Tool>& all) {
    if (Json dictated; context_arguments(tool.name, dictated)) return dictated;
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
