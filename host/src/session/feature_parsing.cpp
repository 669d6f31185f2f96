#include "session/feature_parsing.hpp"

#include "json/json_access.hpp"

namespace mcph::detail {

using json::string_or;

std::optional<Tool> parse_tool(const std::string& server, const JsonValue& v) {
    std::string name = string_or(v, "name");
    if (name.empty()) return std::nullopt;
    Tool t;
    t.server = server;
    t.name = std::move(name);
    t.title = string_or(v, "title");
    t.description = string_or(v, "description");
    const JsonValue* input = json::object_member(v, "inputSchema");
    t.input_schema = input ? to_json(*input) : "{\"type\":\"object\"}";
    if (const JsonValue* output = json::object_member(v, "outputSchema")) t.output_schema = to_json(*output);
    if (const JsonValue* annotations = json::object_member(v, "annotations")) {
        t.annotations = to_json(*annotations);
        if (t.title.empty()) t.title = string_or(*annotations, "title");
        // Flag only what the server declares: an explicit destructiveHint on a tool that is not read-only.
        t.destructive = !json::bool_or(*annotations, "readOnlyHint", false) &&
                        json::bool_or(*annotations, "destructiveHint", false);
    }
    if (const JsonValue* execution = json::object_member(v, "execution")) {
        const std::string support = string_or(*execution, "taskSupport");
        if (support == "required" || support == "optional") t.task_support = support;
    }
    return t;
}

std::optional<Resource> parse_resource(const std::string& server, const JsonValue& v) {
    std::string uri = string_or(v, "uri");
    if (uri.empty()) return std::nullopt;
    return Resource{server, std::move(uri), string_or(v, "name"), string_or(v, "title"), string_or(v, "description"),
                    string_or(v, "mimeType")};
}

std::optional<ResourceTemplate> parse_resource_template(const std::string& server, const JsonValue& v) {
    std::string uri_template = string_or(v, "uriTemplate");
    if (uri_template.empty()) return std::nullopt;
    return ResourceTemplate{server, std::move(uri_template), string_or(v, "name"), string_or(v, "title"),
                            string_or(v, "description"), string_or(v, "mimeType")};
}

std::optional<Prompt> parse_prompt(const std::string& server, const JsonValue& v) {
    std::string name = string_or(v, "name");
    if (name.empty()) return std::nullopt;
    Prompt p;
    p.server = server;
    p.name = std::move(name);
    p.title = string_or(v, "title");
    p.description = string_or(v, "description");
    if (const JsonValue* args = json::array_member(v, "arguments")) {
        for (const JsonValue& a : args->GetArray()) {
            if (!a.IsObject()) continue;
            p.arguments.push_back({string_or(a, "name"), string_or(a, "description"), json::bool_or(a, "required", false)});
        }
    }
    return p;
}

}  // namespace mcph::detail
