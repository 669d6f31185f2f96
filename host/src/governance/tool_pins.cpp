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

std::string prompt_pin_hash(const Prompt& prompt) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("name", json::string_value(prompt.name, a), a);
    doc.AddMember("title", json::string_value(prompt.title, a), a);
    doc.AddMember("description", json::string_value(prompt.description, a), a);
    JsonValue args(rapidjson::kArrayType);
    for (const PromptArgument& arg : prompt.arguments) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("name", json::string_value(arg.name, a), a);
        v.AddMember("description", json::string_value(arg.description, a), a);
        v.AddMember("required", arg.required, a);
        args.PushBack(v, a);
    }
    doc.AddMember("arguments", args, a);
    return tools::sha256_hex(canonical_json(doc));
}

std::string resource_pin_hash(const Resource& resource) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("uri", json::string_value(resource.uri, a), a);
    doc.AddMember("name", json::string_value(resource.name, a), a);
    doc.AddMember("title", json::string_value(resource.title, a), a);
    doc.AddMember("description", json::string_value(resource.description, a), a);
    doc.AddMember("mimeType", json::string_value(resource.mime_type, a), a);
    return tools::sha256_hex(canonical_json(doc));
}

std::string instructions_pin_hash(const std::string& instructions) { return tools::sha256_hex("instructions\0" + instructions); }

std::map<std::string, std::string> pin_prompts(const std::vector<Prompt>& prompts) {
    std::map<std::string, std::string> pins;
    for (const Prompt& p : prompts) pins[p.name] = prompt_pin_hash(p);
    return pins;
}

std::map<std::string, std::string> pin_resources(const std::vector<Resource>& resources) {
    std::map<std::string, std::string> pins;
    for (const Resource& r : resources) pins[r.uri] = resource_pin_hash(r);
    return pins;
}

std::string_view kind_name(PinnedChange::Kind kind) {
    switch (kind) {
        case PinnedChange::Kind::Instructions: return "instructions";
        case PinnedChange::Kind::Prompt: return "prompt";
        case PinnedChange::Kind::Resource: return "resource";
    }
    return "?";
}

namespace {

template <class Item, class Key, class Hash>
void review_items(std::vector<PinnedChange>& out, PinnedChange::Kind kind, const std::map<std::string, std::string>& pins,
                  const std::vector<Item>& items, Key key, Hash hash) {
    for (const Item& item : items) {
        const std::string name = key(item);
        auto pin = pins.find(name);
        if (pin == pins.end())
            out.push_back({kind, name, true});
        else if (pin->second != hash(item))
            out.push_back({kind, name, false});
    }
}

}  // namespace

std::vector<PinnedChange> review_pinned_items(const std::map<std::string, std::string>& prompt_pins,
                                              const std::map<std::string, std::string>& resource_pins,
                                              const std::string& instructions_pin, const std::vector<Prompt>& prompts,
                                              const std::vector<Resource>& resources, const std::string& instructions) {
    std::vector<PinnedChange> out;
    if (instructions_pin != instructions_pin_hash(instructions)) out.push_back({PinnedChange::Kind::Instructions, "", false});
    review_items(out, PinnedChange::Kind::Prompt, prompt_pins, prompts, [](const Prompt& p) { return p.name; }, prompt_pin_hash);
    review_items(out, PinnedChange::Kind::Resource, resource_pins, resources, [](const Resource& r) { return r.uri; },
                 resource_pin_hash);
    return out;
}

}  // namespace mcph::governance
