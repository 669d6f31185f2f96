// A JSON Schema (2020-12 by default; see dialect.hpp) compiled once and used to validate many
// instances: the unit output_schema.* checks structuredContent with. Evaluation is bounded
// (schema_limits.hpp) and never leaves the document: `$ref` resolves only to what the document
// itself identifies (schema_index.hpp).
#pragma once

#include "schema/dialect.hpp"
#include "schema/schema_index.hpp"
#include "schema/schema_limits.hpp"

#include <mcph/json.hpp>

#include <memory>
#include <string>

namespace mcph::schema {

struct ValidationResult {
    enum class Status {
        Valid,
        Invalid,  // the instance breaks the schema: `keyword` at `instance_location`
        Error,    // no verdict: `message` names the bound reached or the $ref that did not resolve
    };
    // Why an Error gave no verdict.
    enum class Cause {
        None,
        NetworkRef,     // a $ref to a network URI (never fetched)
        UnresolvedRef,  // a $ref to nothing the document identifies
        Bound,          // a SchemaLimits bound was reached
    };
    Status status = Status::Valid;
    Cause cause = Cause::None;
    std::string keyword;
    std::string instance_location;  // a JSON Pointer ("" is the whole instance)
    std::string message;
    bool valid() const { return status == Status::Valid; }
};

class CompiledSchema {
public:
    // Copies `schema`. On failure returns null and sets `error` (unsupported dialect, not a
    // schema, too many subschemas).
    static std::shared_ptr<const CompiledSchema> compile(const JsonValue& schema, std::string& error,
                                                         const SchemaLimits& limits = {});
    ValidationResult validate(const JsonValue& instance) const;
    const Dialect& dialect() const { return dialect_; }

    CompiledSchema(const CompiledSchema&) = delete;
    CompiledSchema& operator=(const CompiledSchema&) = delete;

private:
    CompiledSchema() = default;
    Json document_;  // the index points into it: a CompiledSchema never moves (held by pointer)
    Dialect dialect_;
    SchemaLimits limits_;
    SchemaIndex index_;
};

}  // namespace mcph::schema
