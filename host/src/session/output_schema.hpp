// Validation of a tool's structuredContent against its declared outputSchema, with the compiled
// schemas cached per tool (compiling is far costlier than validating).
//
// RapidJSON's validator implements JSON Schema draft-04 (with most of draft-06/07 keywords it
// shares); keywords it does not know are ignored rather than failing a valid result.
#pragma once

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <rapidjson/schema.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::detail {

class OutputSchemaCache {
public:
    // Replaces the known tools (their output schemas); drops compiled schemas.
    void set_tools(const std::vector<Tool>& tools);
    // Empty when valid or when the tool declares no outputSchema; else a message for the caller.
    std::string validate(const std::string& tool, const CallToolResult& result);

private:
    std::shared_ptr<rapidjson::SchemaDocument> compiled(const std::string& tool);

    std::mutex mutex_;
    std::map<std::string, std::string> schema_text_;
    std::map<std::string, std::shared_ptr<rapidjson::SchemaDocument>> compiled_;
};

}  // namespace mcph::detail
