// What one schema document identifies: its embedded resources (`$id`), anchors (`$anchor`,
// `$dynamicAnchor`, a draft-07 "#name" `$id`) and compiled patterns, found by walking only the
// keywords whose values are subschemas (an "$id" inside an enum or const is data, not an
// identifier). `$ref` resolves against these and nothing else: a reference outside the document
// is never fetched (MCP: "MUST NOT automatically dereference $ref values that resolve to a
// network URI") and ends the validation with an error rather than passing it.
#pragma once

#include "schema/dialect.hpp"
#include "schema/keyword_set.hpp"
#include "schema/pattern.hpp"
#include "schema/schema_limits.hpp"

#include <mcph/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mcph::schema {

struct RefTarget {
    const JsonValue* schema = nullptr;  // null when unresolved; then `error` says why
    std::string base;                   // the base URI in force at the target
    bool dynamic_anchor = false;        // the target was found through a `$dynamicAnchor`
    bool network = false;               // unresolved because it names a network URI
    std::string error;
};

class SchemaIndex {
public:
    // Walks `root` (which must outlive the index); an error names the bound or problem, else empty.
    std::string build(const JsonValue& root, const Dialect& dialect, const SchemaLimits& limits);

    // The absolute base URI a schema object declares with its own `$id`, or null.
    const std::string* declared_base(const JsonValue* schema) const;
    // `ref` (from a schema whose base is `base`) to the subschema it names.
    RefTarget resolve(std::string_view base, std::string_view ref) const;
    // The schema a `$dynamicAnchor` named `name` labels in the resource `resource_uri`, or null.
    const JsonValue* dynamic_anchor(std::string_view resource_uri, std::string_view name) const;
    // A pattern compiled at build time; null when the engine cannot read it (not checked).
    const Pattern* pattern(std::string_view source) const;
    // The keywords of a schema object, found once at build time for every subschema walked (a
    // validation asks each node it evaluates); others (a $ref into a non-schema position) are
    // read on the spot.
    KeywordSet keywords(const JsonValue& schema) const;
    // Whether the document holds unevaluatedProperties or unevaluatedItems anywhere: only they
    // read the annotations a validation can collect, so without them none are collected.
    bool reads_annotations() const { return reads_annotations_; }
    std::size_t subschemas() const { return subschemas_; }

private:
    std::string walk(const JsonValue& schema, const std::string& base);
    std::string walk_children(const JsonValue& schema, const std::string& base);
    void add_pattern(const JsonValue& source);
    RefTarget follow_pointer(const JsonValue& resource, std::string base, std::string_view pointer) const;

    const Dialect* dialect_ = nullptr;
    const SchemaLimits* limits_ = nullptr;
    std::size_t subschemas_ = 0;
    bool reads_annotations_ = false;
    std::unordered_map<const JsonValue*, KeywordSet> keywords_;
    std::map<std::string, const JsonValue*, std::less<>> resources_;
    std::map<const JsonValue*, std::string> declared_base_;
    std::map<std::string, const JsonValue*, std::less<>> anchors_;
    std::map<std::string, const JsonValue*, std::less<>> dynamic_anchors_;
    std::map<std::string, std::shared_ptr<const Pattern>, std::less<>> patterns_;
};

}  // namespace mcph::schema
