// The child's environment: a small allow-list of the host's variables plus the configured ones.
//
// A server must not see the host's secrets (API keys, tokens in the environment) unless its
// config passes them explicitly, so we start from an allow-list instead of a copy of environ.
#pragma once

#include <map>
#include <string>

namespace mcph::stdio {

using EnvMap = std::map<std::string, std::string>;

// The variable names inherited from the host when set.
const char* const* inherited_variable_names();

// The allow-listed host variables, then `configured` on top (configured values win).
EnvMap child_environment(const EnvMap& configured);

}  // namespace mcph::stdio
