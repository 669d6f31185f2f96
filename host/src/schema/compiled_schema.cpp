#include "schema/compiled_schema.hpp"

#include "schema/evaluator.hpp"

namespace mcph::schema {

std::shared_ptr<const CompiledSchema> CompiledSchema::compile(const JsonValue& schema, std::string& error,
                                                              const SchemaLimits& limits) {
    if (!schema.IsObject() && !schema.IsBool()) {
        error = "a JSON Schema is an object or a boolean";
        return nullptr;
    }
    std::optional<Dialect> dialect = dialect_of(schema);
    if (!dialect) {
        error = "unsupported JSON Schema dialect (\"$schema\"); supported: " + std::string(supported_dialects());
        return nullptr;
    }
    std::shared_ptr<CompiledSchema> compiled(new CompiledSchema());
    compiled->document_.CopyFrom(schema, compiled->document_.GetAllocator());
    compiled->dialect_ = *dialect;
    compiled->limits_ = limits;
    error = compiled->index_.build(compiled->document_, compiled->dialect_, compiled->limits_);
    if (!error.empty()) return nullptr;
    return compiled;
}

ValidationResult CompiledSchema::validate(const JsonValue& instance) const {
    return Evaluator(index_, dialect_, limits_).run(document_, instance);
}

}  // namespace mcph::schema
