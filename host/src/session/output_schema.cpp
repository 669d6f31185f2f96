#include "session/output_schema.hpp"

#include <mcph/bounded_json.hpp>

namespace mcph::detail {

void OutputSchemaCache::set_tools(const std::vector<Tool>& tools) {
    std::lock_guard lock(mutex_);
    schema_text_.clear();
    compiled_.clear();
    for (const Tool& tool : tools)
        if (!tool.output_schema.empty()) schema_text_[tool.name] = tool.output_schema;
}

std::shared_ptr<const OutputSchemaCache::Compiled> OutputSchemaCache::compiled(const std::string& tool) {
    std::lock_guard lock(mutex_);
    if (auto it = compiled_.find(tool); it != compiled_.end()) return it->second;
    auto text = schema_text_.find(tool);
    if (text == schema_text_.end()) return nullptr;
    auto entry = std::make_shared<Compiled>();
    Json doc;
    if (!json_bounds::parse(doc, text->second))
        entry->error = "it is not JSON";
    else
        entry->schema = schema::CompiledSchema::compile(doc, entry->error);  // copies what it needs from doc
    compiled_[tool] = entry;
    return entry;
}

std::string OutputSchemaCache::validate(const std::string& tool, const CallToolResult& result) {
    auto entry = compiled(tool);
    if (!entry || result.is_error) return {};
    if (!entry->schema) return "tool '" + tool + "' declares an outputSchema that cannot be used: " + entry->error;
    const JsonValue* structured = result.structured();
    if (!structured)
        return "tool '" + tool + "' declares an outputSchema but returned no structuredContent";
    const schema::ValidationResult verdict = entry->schema->validate(*structured);
    switch (verdict.status) {
        case schema::ValidationResult::Status::Valid:
            return {};
        case schema::ValidationResult::Status::Error:
            return "tool '" + tool + "' returned structuredContent that could not be checked against its outputSchema: " +
                   verdict.message;
        case schema::ValidationResult::Status::Invalid:
            break;
    }
    const std::string where = verdict.instance_location.empty() ? "the root" : "'" + verdict.instance_location + "'";
    return "tool '" + tool + "' returned structuredContent that does not match its outputSchema (keyword '" +
           verdict.keyword + "' failed at " + where + ")";
}

}  // namespace mcph::detail
