#include "schema/schema_index.hpp"

#include "json/json_access.hpp"
#include "schema/uri_reference.hpp"

#include <cctype>
#include <vector>

namespace mcph::schema {
namespace {

// Keywords whose value is one subschema, a map of them, or a list of them (2020-12 and older).
constexpr const char* kSingle[] = {"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains",
                                   "propertyNames", "not", "if", "then", "else", "items", "additionalItems"};
constexpr const char* kMap[] = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                                "dependencies"};
constexpr const char* kList[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items"};

bool is_schema(const JsonValue& v) { return v.IsObject() || v.IsBool(); }

std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

std::string unescape_token(std::string_view token) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
            out.push_back(token[i + 1] == '0' ? '~' : '/');
            ++i;
        } else {
            out.push_back(token[i]);
        }
    }
    return out;
}

// Every member name of the document at any depth, not only the subschemas walk() visits: a $ref
// may point anywhere in the document.
bool names_unevaluated_anywhere(const JsonValue& root) {
    std::vector<const JsonValue*> todo{&root};
    while (!todo.empty()) {
        const JsonValue* v = todo.back();
        todo.pop_back();
        if (v->IsArray())
            for (const JsonValue& item : v->GetArray()) todo.push_back(&item);
        if (!v->IsObject()) continue;
        for (const auto& m : v->GetObject()) {
            const std::string_view name = json::view(m.name);
            if (name == "unevaluatedProperties" || name == "unevaluatedItems") return true;
            todo.push_back(&m.value);
        }
    }
    return false;
}

}  // namespace

std::string SchemaIndex::build(const JsonValue& root, const Dialect& dialect, const SchemaLimits& limits) {
    dialect_ = &dialect;
    limits_ = &limits;
    reads_annotations_ = names_unevaluated_anywhere(root);
    std::string problem = walk(root, "");
    resources_.emplace("", &root);  // a root without `$id`: "#..." references resolve against it
    return problem;
}

std::string SchemaIndex::walk(const JsonValue& schema, const std::string& parent_base) {
    if (!is_schema(schema)) return {};
    if (++subschemas_ > limits_->max_subschemas)
        return "the schema has more than " + std::to_string(limits_->max_subschemas) + " subschemas";
    if (!schema.IsObject()) return {};
    keywords_.emplace(&schema, KeywordSet(schema));
    std::string base = parent_base;
    const JsonValue* id = json::member(schema, dialect_->id_keyword);
    const bool id_ignored = dialect_->ref_overrides_siblings && json::member(schema, "$ref");
    if (id && id->IsString() && !id_ignored) {
        const std::string resolved = resolve_uri(parent_base, json::view(*id));
        const std::string document(without_fragment(resolved));
        // A draft-07 "$id": "#name" names a location (an anchor), not a resource.
        if (json::view(*id).rfind("#", 0) == 0 && dialect_->tuple_items) {
            anchors_.emplace(resolved, &schema);
        } else {
            resources_.emplace(document, &schema);
            declared_base_.emplace(&schema, document);
            base = document;
            if (dialect_->tuple_items && !fragment_of(resolved).empty()) anchors_.emplace(resolved, &schema);
        }
    }
    if (const JsonValue* anchor = json::member(schema, "$anchor"); anchor && anchor->IsString())
        anchors_.emplace(base + "#" + std::string(json::view(*anchor)), &schema);
    if (const JsonValue* anchor = json::member(schema, "$dynamicAnchor"); anchor && anchor->IsString()) {
        const std::string name = base + "#" + std::string(json::view(*anchor));
        anchors_.emplace(name, &schema);
        dynamic_anchors_.emplace(name, &schema);
    }
    if (const JsonValue* p = json::member(schema, "pattern")) add_pattern(*p);
    if (const JsonValue* pp = json::object_member(schema, "patternProperties"))
        for (const auto& m : pp->GetObject()) add_pattern(m.name);
    return walk_children(schema, base);
}

std::string SchemaIndex::walk_children(const JsonValue& schema, const std::string& base) {
    for (const char* keyword : kSingle)
        if (const JsonValue* v = json::member(schema, keyword); v && is_schema(*v))
            if (std::string problem = walk(*v, base); !problem.empty()) return problem;
    for (const char* keyword : kMap)
        if (const JsonValue* v = json::object_member(schema, keyword))
            for (const auto& m : v->GetObject())
                if (std::string problem = walk(m.value, base); !problem.empty()) return problem;
    for (const char* keyword : kList)
        if (const JsonValue* v = json::array_member(schema, keyword))
            for (const JsonValue& item : v->GetArray())
                if (std::string problem = walk(item, base); !problem.empty()) return problem;
    return {};
}

void SchemaIndex::add_pattern(const JsonValue& source) {
    if (!source.IsString()) return;
    std::string text(json::view(source));
    if (patterns_.count(text)) return;
    auto compiled = Pattern::compile(text);
    patterns_.emplace(std::move(text), std::move(compiled));
}

KeywordSet SchemaIndex::keywords(const JsonValue& schema) const {
    auto it = keywords_.find(&schema);
    return it == keywords_.end() ? KeywordSet(schema) : it->second;
}

const Pattern* SchemaIndex::pattern(std::string_view source) const {
    auto it = patterns_.find(source);
    return it == patterns_.end() ? nullptr : it->second.get();
}

const std::string* SchemaIndex::declared_base(const JsonValue* schema) const {
    auto it = declared_base_.find(schema);
    return it == declared_base_.end() ? nullptr : &it->second;
}

const JsonValue* SchemaIndex::dynamic_anchor(std::string_view resource_uri, std::string_view name) const {
    auto it = dynamic_anchors_.find(std::string(resource_uri) + "#" + std::string(name));
    return it == dynamic_anchors_.end() ? nullptr : it->second;
}

RefTarget SchemaIndex::resolve(std::string_view base, std::string_view ref) const {
    const std::string uri = resolve_uri(base, ref);
    const std::string_view document = without_fragment(uri);
    const std::string fragment = percent_decode(fragment_of(uri));
    RefTarget target;
    auto resource = resources_.find(document);
    if (resource == resources_.end()) {
        target.network = is_network_uri(document);
        target.error = target.network
                           ? "$ref '" + uri + "' names a network URI, which is never fetched (MCP forbids dereferencing it)"
                           : "$ref '" + uri + "' does not resolve within the schema document";
        return target;
    }
    if (fragment.empty()) return {resource->second, std::string(document), false, false, {}};
    if (fragment.front() == '/') return follow_pointer(*resource->second, std::string(document), fragment);
    const std::string anchor = std::string(document) + "#" + fragment;
    if (auto it = anchors_.find(anchor); it != anchors_.end())
        return {it->second, std::string(document), dynamic_anchors_.count(anchor) > 0, false, {}};
    target.error = "$ref '" + uri + "' names an anchor the schema does not declare";
    return target;
}

RefTarget SchemaIndex::follow_pointer(const JsonValue& resource, std::string base, std::string_view pointer) const {
    const JsonValue* at = &resource;
    RefTarget target;
    std::size_t pos = 1;
    while (pos <= pointer.size()) {
        const std::size_t end = std::min(pointer.find('/', pos), pointer.size());
        const std::string token = unescape_token(pointer.substr(pos, end - pos));
        pos = end + 1;
        const JsonValue* next = nullptr;
        if (at->IsObject()) {
            for (const auto& m : at->GetObject())
                if (json::view(m.name) == token) next = &m.value;
        } else if (at->IsArray() && !token.empty() && token.find_first_not_of("0123456789") == std::string::npos &&
                   token.size() < 10) {
            const unsigned long index = std::stoul(token);
            if (index < at->Size()) next = &(*at)[static_cast<rapidjson::SizeType>(index)];
        }
        if (!next) {
            target.error = "$ref pointer '" + std::string(pointer) + "' names no location in the schema";
            return target;
        }
        at = next;
        if (const std::string* declared = declared_base(at)) base = *declared;
    }
    if (!is_schema(*at)) {
        target.error = "$ref pointer '" + std::string(pointer) + "' does not name a schema";
        return target;
    }
    return {at, std::move(base), false, false, {}};
}

}  // namespace mcph::schema
