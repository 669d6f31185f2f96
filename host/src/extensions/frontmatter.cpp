#include "extensions/frontmatter.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>

namespace mcph::extensions {
namespace {

// One line of `text` from `pos` (without its "\n" or "\r\n"); `next` is where the line after starts.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
    std::size_t end = text.find('\n', pos);
    next = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(pos, (end == std::string_view::npos ? text.size() : end) - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

Error bad(const std::string& uri, const std::string& why) {
    return Error(ErrorKind::Protocol, "skill file '" + uri + "': " + why);
}

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

// A plain scalar under the YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
JsonValue resolve_plain(const std::string& s, Json::AllocatorType& a) {
    if (is_core_null(s)) return JsonValue(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return JsonValue(true);
    if (s == "false" || s == "False" || s == "FALSE") return JsonValue(false);
    if (is_core_int(s)) {
        const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
        std::int64_t value = 0;
        auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
        if (ec == std::errc() && end == s.data() + s.size()) return JsonValue(value);
    }
    if (is_core_float(s)) {
        double value = 0;
        const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
        auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
        if (ec == std::errc() && end == s.data() + s.size() && std::isfinite(value)) return JsonValue(value);
    }
    // Octal, hex, .inf and .nan have no faithful JSON form: they compare as their text.
    return json::string_value(s, a);
}

class Converter {
public:
    Converter(const std::string& uri, const FrontmatterLimits& limits, Json::AllocatorType& a)
        : uri_(uri), limits_(limits), a_(a) {}

    JsonValue convert(const YAML::Node& node, std::size_t depth) {
        if (++nodes_ > limits_.max_nodes)
            throw bad(uri_, "frontmatter has more than " + std::to_string(limits_.max_nodes) + " nodes (aliases expanded)");
        if (depth > limits_.max_depth)
            throw bad(uri_, "frontmatter nests deeper than " + std::to_string(limits_.max_depth) + " levels");
        switch (node.Type()) {
            case YAML::NodeType::Null:
            case YAML::NodeType::Undefined: return JsonValue(rapidjson::kNullType);
            case YAML::NodeType::Scalar: return scalar(node);
            case YAML::NodeType::Sequence: {
                JsonValue out(rapidjson::kArrayType);
                for (const YAML::Node& item : node) out.PushBack(convert(item, depth + 1), a_);
                return out;
            }
            case YAML::NodeType::Map: {
                JsonValue out(rapidjson::kObjectType);
                for (const auto& kv : node) {
                    if (!kv.first.IsScalar()) throw bad(uri_, "frontmatter has a key that is not a scalar");
                    const std::string& key = kv.first.Scalar();
                    if (json::member(out, key.c_str()))
                        throw bad(uri_, "frontmatter repeats the key '" + key + "'");
                    out.AddMember(json::string_value(key, a_), convert(kv.second, depth + 1), a_);
                }
                return out;
            }
        }
        return JsonValue(rapidjson::kNullType);
    }

private:
    JsonValue scalar(const YAML::Node& node) {
        const std::string& tag = node.Tag();
        // "?" marks a plain scalar, "!" a quoted one; explicit tags other than str resolve as plain.
        if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::string_value(node.Scalar(), a_);
        return resolve_plain(node.Scalar(), a_);
    }

    const std::string& uri_;
    const FrontmatterLimits& limits_;
    Json::AllocatorType& a_;
    std::size_t nodes_ = 0;
};

// The closing delimiter: "---", then nothing but blanks.
bool is_closing_line(std::string_view line) {
    if (line.substr(0, 3) != "---") return false;
    return line.find_first_not_of(" \t", 3) == std::string_view::npos;
}

}  // namespace

SplitSkillFile split_frontmatter(std::string_view text, const std::string& uri, const FrontmatterLimits& limits) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
    std::size_t next = 0;
    if (line_at(text, 0, next) != "---") throw bad(uri, "SKILL.md does not open with a YAML frontmatter block ('---')");
    const std::size_t yaml_begin = next;
    for (std::size_t pos = yaml_begin; pos < text.size() && pos - yaml_begin <= limits.max_bytes; pos = next)
        if (is_closing_line(line_at(text, pos, next))) return {text.substr(yaml_begin, pos - yaml_begin), text.substr(next)};
    if (text.size() - yaml_begin > limits.max_bytes)
        throw bad(uri, "SKILL.md frontmatter is not closed within " + std::to_string(limits.max_bytes) + " bytes");
    throw bad(uri, "SKILL.md frontmatter is not closed (no second '---' line)");
}

Json parse_frontmatter(std::string_view yaml, const std::string& uri, const FrontmatterLimits& limits) {
    if (yaml.size() > limits.max_bytes)
        throw bad(uri, "SKILL.md frontmatter is over " + std::to_string(limits.max_bytes) + " bytes");
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml));  // yaml-cpp guards its own recursion (DeepRecursion)
    } catch (const YAML::Exception& e) {
        throw bad(uri, std::string("SKILL.md frontmatter is not valid YAML: ") + e.what());
    }
    if (!root.IsMap()) throw bad(uri, "SKILL.md frontmatter is not a YAML mapping");
    Json out;
    Converter converter(uri, limits, out.GetAllocator());
    JsonValue object = converter.convert(root, 0);
    static_cast<JsonValue&>(out).Swap(object);
    return out;
}

}  // namespace mcph::extensions
