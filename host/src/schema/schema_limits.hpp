// The bounds every JSON Schema evaluation runs under (SEP-2106 "Composition-Keyword Resource Use":
// a schema from a server is untrusted input, and composition keywords, $defs and $ref can make a
// small schema cost exponential time). Each bound, when reached, ends the evaluation with an error
// naming it — never a guess that the instance is valid.
#pragma once

#include <cstddef>

namespace mcph::schema {

struct SchemaLimits {
    // Subschemas one schema document may hold (counted when it is compiled).
    std::size_t max_subschemas = 10'000;
    // Nesting of subschema evaluations at any moment: schema depth plus every $ref followed on the
    // way (a $ref cycle that never consumes the instance ends here).
    std::size_t max_depth = 200;
    // Subschema evaluations in one validation (the per-validation budget: allOf/anyOf/oneOf fan-out
    // times instance size times $ref indirection).
    std::size_t max_evaluations = 200'000;
    // $ref / $dynamicRef followed in one validation.
    std::size_t max_refs_followed = 20'000;
};

}  // namespace mcph::schema
