#include "extensions/frontmatter.hpp"

#include "extensions/yaml_json.hpp"

#include <mcph/error.hpp>

#include <yaml-cpp/yaml.h>

namespace mcph::extensions {
namespace {

Error bad(const std::string& uri, const std::string& why) {
    return Error(ErrorKind::Protocol, "skill file '" + uri + "': " + why);
}

YamlToJson::OnViolation skill_errors(const std::string& uri, const FrontmatterLimits& limits) {
    return [&uri, &limits](YamlToJson::Violation v, const YAML::Node&, const std::string& key) {
        switch (v) {
            case YamlToJson::Violation::TooManyNodes:
                throw bad(uri, "frontmatter has more than " + std::to_string(limits.max_nodes) + " nodes (aliases expanded)");
            case YamlToJson::Violation::TooDeep:
                throw bad(uri, "frontmatter nests deeper than " + std::to_string(limits.max_depth) + " levels");
            case YamlToJson::Violation::NonScalarKey: throw bad(uri, "frontmatter has a key that is not a scalar");
            case YamlToJson::Violation::RepeatedKey: throw bad(uri, "frontmatter repeats the key '" + key + "'");
        }
    };
}

}  // namespace

SplitSkillFile split_frontmatter(std::string_view text, const std::string& uri, const FrontmatterLimits& limits) {
    text = without_bom(text);
    std::size_t next = 0;
    if (line_at(text, 0, next) != "---") throw bad(uri, "SKILL.md does not open with a YAML frontmatter block ('---')");
    const std::size_t yaml_begin = next;
    for (std::size_t pos = yaml_begin; pos < text.size() && pos - yaml_begin <= limits.max_bytes; pos = next)
        if (is_closing_frontmatter_line(line_at(text, pos, next))) return {text.substr(yaml_begin, pos - yaml_begin), text.substr(next)};
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
    YamlToJson converter({limits.max_nodes, limits.max_depth}, out.GetAllocator(), skill_errors(uri, limits));
    JsonValue object = converter.convert(root, 0);
    static_cast<JsonValue&>(out).Swap(object);
    return out;
}

}  // namespace mcph::extensions
