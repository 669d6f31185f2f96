// The child's environment: which of the host's variables it starts with ("inheritEnv"), then the
// configured ones on top.
//
// By default a server must not see the host's secrets (API keys, tokens in the environment) unless
// its config passes them explicitly, so we start from an allow-list instead of a copy of environ.
// "inheritEnv" widens that on purpose: the whole environment (Claude Code's behaviour), or the
// allow-list plus named variables (proxy settings, one token).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::stdio {

using EnvMap = std::map<std::string, std::string>;

// "inheritEnv": false (the default) | true | ["NAME", "PREFIX_*", ...].
struct InheritEnv {
    enum class Mode {
        AllowList,       // false: inherited_variable_names() only
        Everything,      // true: every variable of the host
        AllowListNamed,  // [names]: the allow-list plus these names
    };
    Mode mode = Mode::AllowList;
    // AllowListNamed: exact names, or prefixes written with one trailing '*' ("LC_*").
    std::vector<std::string> names;
};

// Bounds of an "inheritEnv" list: a list is a handful of names; thousands are a mistake or an attack.
inline constexpr std::size_t kMaxInheritNames = 256;
inline constexpr std::size_t kMaxInheritNameBytes = 256;

// An entry of an "inheritEnv" list: a POSIX-shell variable name ([A-Za-z_][A-Za-z0-9_]*), which may
// end in one '*' to mean every name with that prefix ("LC_*"); a bare "*" is refused (that is
// `true`). Length is checked against kMaxInheritNameBytes.
bool valid_inherit_name(std::string_view name);

// The variable names inherited from the host when set, whatever the mode.
const char* const* inherited_variable_names();

// What `inherit` takes from the host's environment, then `configured` on top (configured values
// win). In every mode a value starting with "()" (an exported bash function: code, not
// configuration) is left out, and so is the CLI's own MCPH_CHILD_NOFILE_SOFT (resource_limits.hpp).
EnvMap child_environment(const EnvMap& configured, const InheritEnv& inherit = {});

}  // namespace mcph::stdio
