#include "tools/sample_arguments.hpp"

#include "json/json_access.hpp"
#include "schema/schema_index.hpp"

#include <mcph/bounded_json.hpp>

namespace mcph::tools {
namespace {

constexpr int kMaxDepth = 4;     // nested objects sampled
constexpr int kMaxRefHops = 8;   // $ref followed for one value (a cycle stops here)
constexpr unsigned kMaxItems = 4;  // items sampled for an array's minItems

// Samples values from one inputSchema; same-document `$ref`s resolve through the schema index
// (never anything outside the document, as for validation).
class Sampler {
public:
    Sampler(const JsonValue& root, Json::AllocatorType& a) : a_(a) {
        schema::Dialect dialect;
        has_index_ = index_.build(root, dialect, limits_).empty();
    }

    JsonValue value(const JsonValue& schema_in, int depth) {
        const JsonValue& schema = resolved(schema_in);
        if (const JsonValue* def = json::member(schema, "default")) return JsonValue(*def, a_);
        if (const JsonValue* fixed = json::member(schema, "const")) return JsonValue(*fixed, a_);
        if (const JsonValue* values = json::array_member(schema, "enum"); values && !values->Empty())
            return JsonValue((*values)[0], a_);
        const std::string type = type_of(schema);
        if (type == "number") return JsonValue(1.5);
        if (type == "integer") return JsonValue(1);
        if (type == "boolean") return JsonValue(true);
        if (type == "null") return JsonValue();
        if (type == "array") return array(schema, depth);
        if (type == "object") return object(schema, depth);
        return JsonValue("test", a_);
    }

    JsonValue object(const JsonValue& schema_in, int depth) {
        const JsonValue& schema = resolved(schema_in);
        JsonValue obj(rapidjson::kObjectType);
        const JsonValue* props = json::object_member(schema, "properties");
        if (!props || depth > kMaxDepth) return obj;
        const JsonValue* required = json::array_member(schema, "required");
        for (const auto& p : props->GetObject()) {
            bool is_required = false;
            if (required)
                for (const JsonValue& r : required->GetArray()) is_required = is_required || (r.IsString() && r == p.name);
            // Optional properties only when they carry a default (the server's own choice).
            if (!is_required && !json::member(resolved(p.value), "default")) continue;
            obj.AddMember(JsonValue(p.name, a_), value(p.value, depth + 1), a_);
        }
        return obj;
    }

private:
    // The schema a `$ref` chain leads to (the schema itself when it has none or it does not resolve).
    const JsonValue& resolved(const JsonValue& schema) {
        const JsonValue* at = &schema;
        for (int hop = 0; hop < kMaxRefHops && has_index_; ++hop) {
            const JsonValue* ref = json::member(*at, "$ref");
            if (!ref || !ref->IsString()) break;
            schema::RefTarget target = index_.resolve("", json::view(*ref));
            if (!target.schema || !target.schema->IsObject()) break;
            at = target.schema;
        }
        return *at;
    }

    // "type" as a name; a type list gives its first non-null member; no type but `properties`
    // means an object.
    static std::string type_of(const JsonValue& schema) {
        const JsonValue* type = json::member(schema, "type");
        if (type && type->IsArray())
            for (const JsonValue& t : type->GetArray())
                if (t.IsString() && json::view(t) != "null") return std::string(json::view(t));
        if (type && type->IsString()) return std::string(json::view(*type));
        return json::object_member(schema, "properties") ? "object" : "string";
    }

    JsonValue array(const JsonValue& schema, int depth) {
        JsonValue arr(rapidjson::kArrayType);
        const JsonValue* min = json::member(schema, "minItems");
        const JsonValue* items = json::member(schema, "items");
        if (!min || !min->IsUint() || !items || !items->IsObject() || depth > kMaxDepth) return arr;
        for (unsigned i = 0; i < std::min(min->GetUint(), kMaxItems); ++i) arr.PushBack(value(*items, depth + 1), a_);
        return arr;
    }

    Json::AllocatorType& a_;
    schema::SchemaLimits limits_;
    schema::SchemaIndex index_;
    bool has_index_ = false;
};

}  // namespace

Json sample_arguments(std::string_view input_schema_json) {
    Json schema;
    const bool parsed = static_cast<bool>(json_bounds::parse(schema, input_schema_json));
    Json args(rapidjson::kObjectType);
    if (!parsed || !schema.IsObject()) return args;
    Sampler sampler(schema, args.GetAllocator());
    JsonValue sampled = sampler.object(schema, 0);
    static_cast<JsonValue&>(args) = std::move(sampled);  // allocated from args' allocator
    return args;
}

}  // namespace mcph::tools
