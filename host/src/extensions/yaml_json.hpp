// YAML (yaml-cpp, Debian's libyaml-cpp) to JSON, bounded, for the two file formats that carry YAML
// frontmatter: SKILL.md (frontmatter.cpp) and agent definition files (agent_file.cpp). The
// conversion rules live here once; each format words its own errors (a skill file names its URI, an
// agent file the line of the bad entry), so a broken rule is reported through `Violation` and the
// caller throws.
#pragma once

#include <mcph/json.hpp>

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mcph::extensions {

// One line of `text` from `pos` (without "\n" or "\r\n"); `next` is where the line after starts.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next);
// The closing frontmatter delimiter: "---", then nothing but blanks.
bool is_closing_frontmatter_line(std::string_view line);
// A leading UTF-8 byte order mark removed.
std::string_view without_bom(std::string_view text);

// A plain scalar by the YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution):
// null, booleans, integers, finite floats; octal, hex, .inf and .nan have no faithful JSON form
// and stay text. A quoted scalar (tag "!") or one tagged str is always a string.
JsonValue scalar_to_json(const YAML::Node& node, Json::AllocatorType& a);

struct YamlBounds {
    std::size_t max_nodes;  // after alias expansion: a "billion laughs" stops here
    std::size_t max_depth;
};

class YamlToJson {
public:
    enum class Violation { TooManyNodes, TooDeep, NonScalarKey, RepeatedKey };
    // Must throw; `at` is the node concerned, `key` the repeated key (RepeatedKey only).
    using OnViolation = std::function<void(Violation, const YAML::Node& at, const std::string& key)>;

    YamlToJson(YamlBounds bounds, Json::AllocatorType& a, OnViolation on_violation)
        : bounds_(bounds), a_(a), on_violation_(std::move(on_violation)) {}

    JsonValue convert(const YAML::Node& node, std::size_t depth);
    // Counts one node against the bounds without converting it (fields the caller reads itself).
    void count(const YAML::Node& node, std::size_t depth);
    // Every node below `node`, counted (a huge alias tree in a field nobody reads still costs).
    void walk(const YAML::Node& node, std::size_t depth);

private:
    [[noreturn]] void violated(Violation v, const YAML::Node& at, const std::string& key = {});

    YamlBounds bounds_;
    Json::AllocatorType& a_;
    OnViolation on_violation_;
    std::size_t nodes_ = 0;
};

}  // namespace mcph::extensions
