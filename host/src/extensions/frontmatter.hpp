// The YAML frontmatter of a SKILL.md (the Agent Skills file format): the block between a first
// line `---` and the next line `---`, parsed with yaml-cpp (Debian's libyaml-cpp) into JSON so it
// compares with the frontmatter object a skills/list entry carries.
#pragma once

#include <mcph/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcph::extensions {

struct FrontmatterLimits {
    std::size_t max_bytes = 64 * 1024;  // the YAML text between the delimiters
    std::size_t max_nodes = 10'000;     // after alias expansion (a "billion laughs" stops here)
    std::size_t max_depth = 64;
};

// A SKILL.md split at its frontmatter delimiters. `yaml` and `body` view into the text given.
struct SplitSkillFile {
    std::string_view yaml;
    std::string_view body;
};

// Throws mcph::Error(Protocol) naming `uri` when the text does not open with a frontmatter block
// or the block exceeds limits.max_bytes.
SplitSkillFile split_frontmatter(std::string_view text, const std::string& uri, const FrontmatterLimits& limits = {});

// The YAML mapping as a JSON object. Plain scalars resolve by the YAML 1.2 core schema (null,
// booleans, integers, floats); quoted scalars stay strings. Throws mcph::Error(Protocol) naming
// `uri` for invalid YAML, a root that is not a mapping, a non-scalar key, or a bound exceeded.
Json parse_frontmatter(std::string_view yaml, const std::string& uri, const FrontmatterLimits& limits = {});

}  // namespace mcph::extensions
