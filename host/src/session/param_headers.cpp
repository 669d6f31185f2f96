#include "session/param_headers.hpp"

#include "json/json_access.hpp"
#include "text/ascii.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace mcph::session {
namespace {

constexpr const char* kAnnotation = "x-mcp-header";
constexpr std::int64_t kMaxSafeInteger = 9007199254740991;  // 2^53 - 1

// Keywords whose values are data, not subschemas: an "x-mcp-header" key in them is no annotation.
bool is_data_keyword(std::string_view k) { return k == "enum" || k == "const" || k == "default" || k == "examples"; }
// Keywords whose value is a map from names to subschemas (the names are not keywords).
bool is_schema_map(std::string_view k) {
    return k == "$defs" || k == "definitions" || k == "patternProperties" || k == "dependentSchemas" ||
           k == "dependencies";
}

// RFC 9110 section 5.6.2 tchar.
bool is_tchar(unsigned char c) {
    return std::isalnum(c) ? c < 0x80 : std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

std::string pointer(const std::vector<std::string>& path) {
    std::string out;
    for (const std::string& p : path) out += "/" + p;
    return out.empty() ? "(the schema root)" : out;
}

// Why the header name breaks a syntax rule, or empty.
std::string name_problem(std::string_view name) {
    if (name.empty()) return "must not be empty";
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", c);
            return std::string("must not contain control characters (found ") + hex + ")";
        }
    for (unsigned char c : name)
        if (!is_tchar(c)) {
            char shown[16];
            if (c >= 0x80) std::snprintf(shown, sizeof shown, "byte 0x%02X", c);
            else std::snprintf(shown, sizeof shown, "'%c'", c);
            return std::string("must be an RFC 9110 token (1*tchar): ") + shown + " is not a tchar";
        }
    return {};
}

bool primitive_type_name(std::string_view t) { return t == "string" || t == "integer" || t == "boolean"; }

// Why the annotated property's `type` is not allowed, or empty. A property without a `type` is
// refused: the spec allows only parameters *with* the primitive types string, integer, boolean.
// A type list may add "null" (an optional parameter; a null value is then omitted).
std::string type_problem(const JsonValue& property) {
    const JsonValue* type = json::member(property, "type");
    if (!type) return "is only allowed on a property of type string, integer or boolean (this one declares no type)";
    bool has_primitive = false, ok = true;
    std::string shown;
    auto look = [&](const JsonValue& t) {
        const std::string_view name = json::view(t);
        shown += (shown.empty() ? "" : ",") + std::string(t.IsString() ? name : "?");
        if (primitive_type_name(name)) has_primitive = true;
        else if (name != "null" || !type->IsArray()) ok = false;
    };
    if (type->IsArray())
        for (const JsonValue& t : type->GetArray()) look(t);
    else
        look(*type);
    if (ok && has_primitive) return {};
    return "is only allowed on a property of type string, integer or boolean (type is " + shown + ")";
}

class Reader {
public:
    HeaderAnnotations read(const JsonValue& root) {
        schema(root, true, {}, "");
        if (!result_.valid()) result_.headers.clear();
        return std::move(result_);
    }

private:
    // A schema position. `reachable`: the chain from the root is `properties` keys only.
    // `through`: the first keyword that broke the chain (for the reason).
    void schema(const JsonValue& s, bool reachable, const std::vector<std::string>& path, const std::string& through) {
        if (!result_.valid() || !s.IsObject()) return;
        if (const JsonValue* name = json::member(s, kAnnotation)) annotation(s, *name, reachable && !path.empty(), path, through);
        for (const auto& m : s.GetObject()) {
            const std::string_view key = json::view(m.name);
            if (key == kAnnotation || is_data_keyword(key)) continue;
            if (key == "properties" && m.value.IsObject()) {
                for (const auto& p : m.value.GetObject()) {
                    std::vector<std::string> next = path;
                    next.emplace_back(json::view(p.name));
                    schema(p.value, reachable, next, through);
                }
            } else if (is_schema_map(key) && m.value.IsObject()) {
                for (const auto& p : m.value.GetObject()) schema(p.value, false, path, through.empty() ? std::string(key) : through);
            } else {
                any(m.value, path, through.empty() ? std::string(key) : through);
            }
        }
    }

    // Under any other keyword (items, allOf, $ref targets' $defs, unknown keywords...): nothing
    // below is statically reachable.
    void any(const JsonValue& v, const std::vector<std::string>& path, const std::string& through) {
        if (v.IsObject()) schema(v, false, path, through);
        else if (v.IsArray())
            for (const JsonValue& item : v.GetArray()) any(item, path, through);
    }

    void annotation(const JsonValue& property, const JsonValue& name, bool reachable, const std::vector<std::string>& path,
                    const std::string& through) {
        const std::string where = "x-mcp-header on " + pointer(path) + " ";
        if (!reachable) {
            invalid(where + "is not statically reachable from the schema root (only chains of `properties` are; " +
                    (path.empty() && through.empty() ? std::string("the root itself is no property")
                                                     : "this one passes through `" + through + "`") +
                    ")");
            return;
        }
        if (!name.IsString()) return invalid(where + "must be a string");
        const std::string_view text = json::view(name);
        if (std::string problem = name_problem(text); !problem.empty()) return invalid(where + problem);
        if (std::string problem = type_problem(property); !problem.empty()) return invalid(where + problem);
        const std::string folded = text::ascii_lower(text);
        for (const ParamHeader& earlier : result_.headers)
            if (text::ascii_lower(earlier.name) == folded)
                return invalid(where + "must be case-insensitively unique: '" + std::string(text) + "' is also on " +
                               pointer(earlier.path) + " as '" + earlier.name + "'");
        result_.headers.push_back({std::string(text), path});
    }

    void invalid(std::string reason) {
        if (result_.valid()) result_.invalid_reason = std::move(reason);
    }

    HeaderAnnotations result_;
};

// The value's header text, or false when it is to be omitted.
bool header_text(const JsonValue& v, std::string& out) {
    if (v.IsString()) {
        out.assign(v.GetString(), v.GetStringLength());
        return true;
    }
    if (v.IsBool()) {
        out = v.GetBool() ? "true" : "false";
        return true;
    }
    if (v.IsInt64()) {
        if (v.GetInt64() > kMaxSafeInteger || v.GetInt64() < -kMaxSafeInteger) return false;
        out = std::to_string(v.GetInt64());
        return true;
    }
    if (v.IsDouble()) {  // 42.0 is the integer 42 in JSON Schema
        const double d = v.GetDouble();
        if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > static_cast<double>(kMaxSafeInteger)) return false;
        out = std::to_string(static_cast<std::int64_t>(d));
        return true;
    }
    return false;  // null, objects, arrays, uint64 past the safe range
}

}  // namespace

HeaderAnnotations read_header_annotations(const JsonValue& input_schema) { return Reader().read(input_schema); }

std::vector<std::pair<std::string, std::string>> extract_param_headers(const std::vector<ParamHeader>& headers,
                                                                       const JsonValue& arguments) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const ParamHeader& header : headers) {
        const JsonValue* at = &arguments;
        for (const std::string& key : header.path) {
            at = at->IsObject() ? json::member(*at, key.c_str()) : nullptr;
            if (!at) break;
        }
        std::string text;
        if (at && header_text(*at, text)) out.emplace_back(header.name, std::move(text));
    }
    return out;
}

}  // namespace mcph::session
