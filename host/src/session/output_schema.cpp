#include "session/output_schema.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/stringbuffer.h>

namespace mcph::detail {

void OutputSchemaCache::set_tools(const std::vector<Tool>& tools) {
    std::lock_guard lock(mutex_);
    schema_text_.clear();
    compiled_.clear();
    for (const Tool& tool : tools)
        if (!tool.output_schema.empty()) schema_text_[tool.name] = tool.output_schema;
}

std::shared_ptr<rapidjson::SchemaDocument> OutputSchemaCache::compiled(const std::string& tool) {
    std::lock_guard lock(mutex_);
    if (auto it = compiled_.find(tool); it != compiled_.end()) return it->second;
    auto text = schema_text_.find(tool);
    if (text == schema_text_.end()) return nullptr;
    Json doc;
    if (!json_bounds::parse(doc, text->second) || !doc.IsObject()) return nullptr;
    auto schema = std::make_shared<rapidjson::SchemaDocument>(doc);  // copies what it needs from doc
    compiled_[tool] = schema;
    return schema;
}

std::string OutputSchemaCache::validate(const std::string& tool, const CallToolResult& result) {
    auto schema = compiled(tool);
    if (!schema || result.is_error) return {};
    const JsonValue* structured = result.structured();
    if (!structured)
        return "tool '" + tool + "' declares an outputSchema but returned no structuredContent";
    rapidjson::SchemaValidator validator(*schema);
    if (structured->Accept(validator)) return {};  // json-bounds-ok: a parsed (bounded) tree, no writer
    rapidjson::StringBuffer where;
    validator.GetInvalidDocumentPointer().StringifyUriFragment(where);
    return "tool '" + tool + "' returned structuredContent that does not match its outputSchema (keyword '" +
           validator.GetInvalidSchemaKeyword() + "' failed at " + where.GetString() + ")";
}

}  // namespace mcph::detail
