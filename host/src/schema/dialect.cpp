#include "schema/dialect.hpp"

#include "json/json_access.hpp"

#include <string_view>

namespace mcph::schema {
namespace {

// `$schema` URIs compare without a trailing empty fragment ("...schema#" and "...schema").
std::string_view without_empty_fragment(std::string_view uri) {
    if (!uri.empty() && uri.back() == '#') uri.remove_suffix(1);
    return uri;
}

}  // namespace

const char* supported_dialects() {
    return "https://json-schema.org/draft/2020-12/schema (the default), https://json-schema.org/draft/2019-09/schema, "
           "http://json-schema.org/draft-07/schema, http://json-schema.org/draft-06/schema, "
           "http://json-schema.org/draft-04/schema";
}

std::optional<Dialect> dialect_of(const JsonValue& root) {
    const JsonValue* declared = json::member(root, "$schema");
    if (!declared) return Dialect{"2020-12"};
    if (!declared->IsString()) return std::nullopt;
    std::string_view uri = without_empty_fragment(json::view(*declared));
    // Both schemes are seen in the wild for every draft.
    if (uri.rfind("https://", 0) == 0) uri.remove_prefix(8);
    else if (uri.rfind("http://", 0) == 0) uri.remove_prefix(7);
    else return std::nullopt;
    if (uri == "json-schema.org/draft/2020-12/schema") return Dialect{"2020-12"};
    if (uri == "json-schema.org/draft/2019-09/schema") {
        Dialect d{"2019-09", true};
        d.recursive_ref = true;
        return d;
    }
    if (uri == "json-schema.org/draft-07/schema") return Dialect{"draft-07", true, true, true};
    if (uri == "json-schema.org/draft-06/schema") return Dialect{"draft-06", true, true, true};
    if (uri == "json-schema.org/draft-04/schema") return Dialect{"draft-04", true, true, true, true, "id"};
    return std::nullopt;
}

}  // namespace mcph::schema
