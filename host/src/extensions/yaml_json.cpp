#include "extensions/yaml_json.hpp"

#include "json/json_access.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace mcph::extensions {
namespace {

bool is_core_null(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

// The core schema's [-+]?[0-9]+ and [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, by hand:
// std::regex recurses per character and a 64 KiB scalar would overflow the stack.
std::size_t skip_digits(std::string_view s, std::size_t i) {
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i;
}

std::size_t skip_sign(std::string_view s, std::size_t i) { return i < s.size() && (s[i] == '-' || s[i] == '+') ? i + 1 : i; }

bool is_core_int(std::string_view s) {
    const std::size_t start = skip_sign(s, 0);
    const std::size_t end = skip_digits(s, start);
    return end > start && end == s.size();
}

bool is_core_float(std::string_view s) {
    std::size_t i = skip_sign(s, 0);
    const std::size_t int_end = skip_digits(s, i);
    std::size_t digits = int_end - i;
    i = int_end;
    if (i < s.size() && s[i] == '.') {
        const std::size_t frac_end = skip_digits(s, i + 1);
        digits += frac_end - (i + 1);
        i = frac_end;
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        const std::size_t exp_start = skip_sign(s, i + 1);
        const std::size_t exp_end = skip_digits(s, exp_start);
        if (exp_end == exp_start) return false;
        i = exp_end;
    }
    return i == s.size();
}

JsonValue resolve_plain(const std::string& s, Json::AllocatorType& a) {
    if (is_core_null(s)) return JsonValue(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return JsonValue(true);
    if (s == "false" || s == "False" || s == "FALSE") return JsonValue(false);
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const char* end = s.data() + s.size();
    if (is_core_int(s)) {
        std::int64_t value = 0;
        if (auto r = std::from_chars(begin, end, value); r.ec == std::errc() && r.ptr == end) return JsonValue(value);
    }
    if (is_core_float(s)) {
        double value = 0;
        if (auto r = std::from_chars(begin, end, value); r.ec == std::errc() && r.ptr == end && std::isfinite(value))
            return JsonValue(value);
    }
    return json::string_value(s, a);
}

}  // namespace

std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
    std::size_t end = text.find('\n', pos);
    next = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(pos, (end == std::string_view::npos ? text.size() : end) - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

bool is_closing_frontmatter_line(std::string_view line) {
    return line.substr(0, 3) == "---" && line.find_first_not_of(" \t", 3) == std::string_view::npos;
}

std::string_view without_bom(std::string_view text) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
    return text;
}

JsonValue scalar_to_json(const YAML::Node& node, Json::AllocatorType& a) {
    const std::string& tag = node.Tag();
    // "?" marks a plain scalar, "!" a quoted one; explicit tags other than str resolve as plain.
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::string_value(node.Scalar(), a);
    return resolve_plain(node.Scalar(), a);
}

void YamlToJson::violated(Violation v, const YAML::Node& at, const std::string& key) {
    on_violation_(v, at, key);
    throw std::logic_error("YamlToJson: the violation handler returned");  // it must throw
}

void YamlToJson::count(const YAML::Node& node, std::size_t depth) {
    if (++nodes_ > bounds_.max_nodes) violated(Violation::TooManyNodes, node);
    if (depth > bounds_.max_depth) violated(Violation::TooDeep, node);
}

void YamlToJson::walk(const YAML::Node& node, std::size_t depth) {
    count(node, depth);
    if (node.IsSequence())
        for (const YAML::Node& item : node) walk(item, depth + 1);
    if (node.IsMap())
        for (const auto& kv : node) {
            walk(kv.first, depth + 1);
            walk(kv.second, depth + 1);
        }
}

JsonValue YamlToJson::convert(const YAML::Node& node, std::size_t depth) {
    count(node, depth);
    switch (node.Type()) {
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined: return JsonValue(rapidjson::kNullType);
        case YAML::NodeType::Scalar: return scalar_to_json(node, a_);
        case YAML::NodeType::Sequence: {
            JsonValue out(rapidjson::kArrayType);
            for (const YAML::Node& item : node) out.PushBack(convert(item, depth + 1), a_);
            return out;
        }
        case YAML::NodeType::Map: {
            JsonValue out(rapidjson::kObjectType);
            for (const auto& kv : node) {
                if (!kv.first.IsScalar()) violated(Violation::NonScalarKey, kv.first);
                const std::string& key = kv.first.Scalar();
                if (json::member(out, key.c_str())) violated(Violation::RepeatedKey, kv.first, key);
                out.AddMember(json::string_value(key, a_), convert(kv.second, depth + 1), a_);
            }
            return out;
        }
    }
    return JsonValue(rapidjson::kNullType);
}

}  // namespace mcph::extensions
