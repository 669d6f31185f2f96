// Which JSON Schema dialect a schema is read in, from its `$schema` (MCP: absent means 2020-12).
// The evaluator is a 2020-12 one; the older dialects it also reads differ from it in the few
// keywords flagged here, so a legacy server's draft-07 schema is still checked by its own rules.
#pragma once

#include <mcph/json.hpp>

#include <optional>
#include <string>

namespace mcph::schema {

struct Dialect {
    std::string name;                     // "2020-12", "2019-09", "draft-07", "draft-06", "draft-04"
    bool tuple_items = false;             // `items` may be an array (tuple) and `additionalItems` applies
    bool ref_overrides_siblings = false;  // draft-07 and older: keywords beside `$ref` are ignored
    bool dependencies = false;            // draft-07 and older: `dependencies` (not dependentRequired/Schemas)
    bool boolean_exclusive_bounds = false;  // draft-04: exclusiveMinimum/Maximum are booleans
    const char* id_keyword = "$id";       // draft-04: "id"
    bool recursive_ref = false;           // 2019-09: $recursiveRef / $recursiveAnchor
};

// The dialect of a root schema; nullopt for a `$schema` this evaluator does not implement (the
// caller reports "unsupported dialect", as the MCP spec asks, rather than guessing).
std::optional<Dialect> dialect_of(const JsonValue& root_schema);

// The `$schema` URIs read (for error messages and docs).
const char* supported_dialects();

}  // namespace mcph::schema
