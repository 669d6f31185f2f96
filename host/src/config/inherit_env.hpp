// "inheritEnv" of a stdio server: false (the default: a small allow-list of the host's variables),
// true (the whole environment, Claude Code's behaviour) or ["NAME", "PREFIX_*", ...] (the
// allow-list plus those). The stdio plugin decides what the child receives (its README); the host
// checks the value when it loads a config, so a bad one is a problem of that server (or of that
// settings file) only, and gives servers that do not set it the default of the user's settings.
//
// Trust: a per-server value is part of the entry, so of what an approval hashes. The default is
// read only from the administrator's managed settings (which win) and the user's own files
// (settings.json, the local settings of a project): a repository must not be able to hand the
// user's secrets to the servers it names.
#pragma once

#include "config/server_config.hpp"

#include <mcph/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace mcph::config {

// The same bounds as the plugin's (plugins/transport-stdio/src/environment.hpp): a list is a
// handful of names.
inline constexpr std::size_t kMaxInheritEnvNames = 256;
inline constexpr std::size_t kMaxInheritEnvNameBytes = 256;

// Why `value` is not a valid inheritEnv, as the end of a sentence that starts with the key
// ("must be true, false or an array of variable names", "entry 1 'A=B' is not a variable name
// ..."); nullopt when it is valid. A name is [A-Za-z_][A-Za-z0-9_]*, optionally ending in one '*'
// (a prefix: "LC_*"); a bare "*" is refused (that is `true`).
std::optional<std::string> inherit_env_problem(const JsonValue& value);

// A stdio server without an inheritEnv of its own takes `value_json` (checked by
// inherit_env_problem) from the settings file `from`: it is written into the config the plugin
// receives, and kept in inherit_env_json / inherit_env_from. Returns false (nothing changed) for
// another transport or an entry that sets its own.
bool apply_inherit_env_default(ServerConfig& server, const std::string& value_json, const std::string& from);

}  // namespace mcph::config
