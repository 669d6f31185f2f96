#include "governance/tool_pins.hpp"

#include "governance/server_signature.hpp"
#include "json/json_access.hpp"
#include "tools/sha256.hpp"

#include <mcph/bounded_json.hpp>

namespace mcph::governance {
namespace {

// A schema or annotations text as a JSON value of `doc`: null when empty, the parsed value when
// valid, else the raw text as a string (a server that sends junk still cannot change it unseen).
JsonValue json_part(const std::string& text, Json& doc) {
    if (text.empty()) return JsonValue(rapidjson::kNullType);
    Json parsed;
    if (!json_bounds::parse(parsed, text)) return json::string_value(text, doc.GetAllocator());
    return JsonValue(parsed, doc.GetAllocator());
}

std::string reason_text(WithheldTool::Reason reason) {
    switch (reason) {
        case WithheldTool::Reason::Changed: return "changed since it was approved";
        case WithheldTool::Reason::New: return "is new since the server's tools were approved";
    }
    return "is not approved";
}

}  // namespace

std::string tool_pin_hash(const Tool& tool) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("name", json::string_value(tool.name, a), a);
    doc.AddMember("title", json::string_value(tool.title, a), a);
    doc.AddMember("description", json::string_value(tool.description, a), a);
    doc.AddMember("inputSchema", json_part(tool.input_schema, doc), a);
    doc.AddMember("outputSchema", json_part(tool.output_schema, doc), a);
    doc.AddMember("annotations", json_part(tool.annotations, doc), a);
    return tools::sha256_hex(canonical_json(doc));
}

std::string WithheldTool::describe() const {
    std::string who = "tool '" + tool.name + "'" + (tool.server.empty() ? "" : " of server '" + tool.server + "'");
    return who + " " + reason_text(reason) + ": approve it again to use it";
}

ToolReview review_tools(const std::vector<Tool>& tools, const std::map<std::string, std::string>& pins) {
    ToolReview out;
    for (const Tool& tool : tools) {
        if (pins.empty()) {
            out.allowed.push_back(tool);
            continue;
        }
        auto pin = pins.find(tool.name);
        if (pin == pins.end())
            out.withheld.push_back({tool, WithheldTool::Reason::New});
        else if (pin->second != tool_pin_hash(tool))
            out.withheld.push_back({tool, WithheldTool::Reason::Changed});
        else
            out.allowed.push_back(tool);
    }
    return out;
}

std::map<std::string, std::string> pin_tools(const std::vector<Tool>& tools) {
    std::map<std::string, std::string> pins;
    for (const Tool& tool : tools) pins[tool.name] = tool_pin_hash(tool);
    return pins;
}

}  // namespace mcph::governance
