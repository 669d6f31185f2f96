// Validation of a tool's structuredContent against its declared outputSchema, with the compiled
// schemas cached per tool (compiling is far costlier than validating).
//
// The validator is host/src/schema (JSON Schema 2020-12 by default, older drafts by their
// `$schema`; bounded; `$ref` only within the schema — see docs/json-schema.md). A schema it
// cannot use (unsupported dialect, over a bound) and a validation without a verdict (a remote or
// unresolved `$ref`, the budget exhausted) are reported, never taken as a pass.
#pragma once

#include "schema/compiled_schema.hpp"

#include <mcph/json.hpp>
#include <mcph/types.hpp>

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
    struct Compiled {
        std::shared_ptr<const schema::CompiledSchema> schema;  // null: `error` says why
        std::string error;
    };
    // Null when the tool declares no outputSchema.
    std::shared_ptr<const Compiled> compiled(const std::string& tool);

    std::mutex mutex_;
    std::map<std::string, std::string> schema_text_;
    std::map<std::string, std::shared_ptr<const Compiled>> compiled_;
};

}  // namespace mcph::detail
