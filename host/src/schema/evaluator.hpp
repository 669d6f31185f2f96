// One validation of one instance against a compiled schema: the JSON Schema 2020-12 evaluation
// model (assertions, in-place applicators, child applicators, then unevaluatedProperties/Items
// over the annotations collected), with every bound of SchemaLimits counted as it goes.
// evaluator.cpp has the applicators and $ref, assertions.cpp the keywords that check the instance.
// Hand-written rather than Debian's valijson: valijson 1.0 implements draft-07 only (no
// prefixItems, $defs-aware anchors, dependentRequired/Schemas, unevaluated*, $dynamicRef), its
// evaluation cannot be given a budget, and its package pulls Qt5 and Poco development packages in.
#pragma once

#include "schema/compiled_schema.hpp"
#include "schema/keyword_set.hpp"

#include <boost/container/small_vector.hpp>

#include <set>
#include <string>
#include <string_view>

namespace mcph::schema {

class Evaluator {
public:
    Evaluator(const SchemaIndex& index, const Dialect& dialect, const SchemaLimits& limits)
        : index_(index), dialect_(dialect), limits_(limits) {}
    ValidationResult run(const JsonValue& schema, const JsonValue& instance);

private:
    // What the keywords that succeeded evaluated, for unevaluatedProperties/unevaluatedItems.
    // Property names are views of the instance's own names: it outlives the validation.
    struct Annotations {
        std::set<std::string_view> properties;
        std::size_t prefix_items = 0;  // items [0, prefix_items) were evaluated
        bool all_items = false;
        std::set<std::size_t> contained;  // indices `contains` matched
        void merge(const Annotations& other);
    };

    bool evaluate(const JsonValue& schema, const JsonValue& instance, const std::string& base, Annotations& out);
    enum class RefKind { Static, Dynamic, Recursive };  // $ref, $dynamicRef, $recursiveRef (2019-09)
    bool follow(std::string_view ref, RefKind kind, const JsonValue& instance, const std::string& base, Annotations& out);
    // One step of the instance location: a member name (a view of the instance's) or an index.
    struct PathStep {
        std::string_view name;
        std::size_t index = 0;
        bool is_index = false;
    };
    bool child(const JsonValue& schema, const JsonValue& instance, PathStep step, const std::string& base);
    std::string instance_location() const;

    // Each keyword group reads the schema node through its KeywordSet (keyword_set.hpp).
    bool assertions(const KeywordSet& k, const JsonValue& instance);
    bool number_assertions(const KeywordSet& k, const JsonValue& instance);
    bool string_assertions(const KeywordSet& k, const JsonValue& instance);
    bool array_assertions(const KeywordSet& k, const JsonValue& instance);
    bool object_assertions(const KeywordSet& k, const JsonValue& instance);
    bool in_place(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);
    bool conditional(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);
    bool object_children(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);
    bool array_children(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);
    bool contains(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);
    bool unevaluated(const KeywordSet& k, const JsonValue& instance, const std::string& base, Annotations& out);

    bool fail(const char* keyword);
    bool stop(ValidationResult::Cause cause, std::string message);
    bool charge(std::size_t evaluations);

    const SchemaIndex& index_;
    const Dialect& dialect_;
    const SchemaLimits& limits_;
    std::size_t evaluations_ = 0;
    std::size_t refs_followed_ = 0;
    std::size_t depth_ = 0;
    // Inline room for shallow schemas: a validation (one per tool call with an output schema)
    // then allocates nothing for them. The scope's views are of the base URIs the index keeps or
    // of an enclosing evaluate()'s `base`, which outlive their entry (it is popped on return).
    boost::container::small_vector<PathStep, 16> path_;          // instance location in progress
    boost::container::small_vector<std::string_view, 8> scope_;  // dynamic scope: bases entered, outermost first
    std::string failed_keyword_;
    std::string failed_location_;
    std::string error_;
    ValidationResult::Cause cause_ = ValidationResult::Cause::None;
};

}  // namespace mcph::schema
