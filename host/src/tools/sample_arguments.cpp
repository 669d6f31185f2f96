#include "tools/sample_arguments.hpp"

#include "json/json_access.hpp"

#include <mcph/bounded_json.hpp>

namespace mcph::tools {
namespace {

JsonValue sample_value(const JsonValue& schema, Json::AllocatorType& a, int depth) {
    if (const JsonValue* def = json::member(schema, "default")) return JsonValue(*def, a);
    if (const JsonValue* values = json::array_member(schema, "enum"); values && !values->Empty())
        return JsonValue((*values)[0], a);
    const std::string type = json::string_or(schema, "type", "string");
    if (type == "number") return JsonValue(1.5);
    if (type == "integer") return JsonValue(1);
    if (type == "boolean") return JsonValue(true);
    if (type == "array") return JsonValue(rapidjson::kArrayType);
    if (type == "null") return JsonValue();
    if (type == "object") {
        JsonValue obj(rapidjson::kObjectType);
        const JsonValue* props = json::object_member(schema, "properties");
        const JsonValue* required = json::array_member(schema, "required");
        if (props && required && depth < 4) {
            for (const JsonValue& name : required->GetArray()) {
                if (!name.IsString() || !props->HasMember(name)) continue;
                obj.AddMember(JsonValue(name, a), sample_value((*props)[name], a, depth + 1), a);
            }
        }
        return obj;
    }
    return JsonValue("test", a);
}

}  // namespace

Json sample_arguments(std::string_view input_schema_json) {
    Json schema;
    const bool parsed = static_cast<bool>(json_bounds::parse(schema, input_schema_json));
    Json args(rapidjson::kObjectType);
    if (!parsed || !schema.IsObject()) return args;
    auto& a = args.GetAllocator();
    const JsonValue* props = json::object_member(schema, "properties");
    if (!props) return args;
    const JsonValue* required = json::array_member(schema, "required");
    for (const auto& p : props->GetObject()) {
        bool is_required = false;
        if (required)
            for (const JsonValue& r : required->GetArray()) is_required = is_required || (r.IsString() && r == p.name);
        if (!is_required && !json::member(p.value, "default")) continue;
        args.AddMember(JsonValue(p.name, a), sample_value(p.value, a, 0), a);
    }
    return args;
}

}  // namespace mcph::tools
