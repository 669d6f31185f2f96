#include "environment.hpp"

#include <cstdlib>

namespace mcph::stdio {

namespace {
// Enough to find programs, locate the home directory and keep locale/terminal behaviour sane.
// The same list the TypeScript MCP SDK uses on POSIX, plus LANG/LC_* and TMPDIR/TZ.
const char* const kInherited[] = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
                                  "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", nullptr};
}  // namespace

const char* const* inherited_variable_names() { return kInherited; }

EnvMap child_environment(const EnvMap& configured) {
    EnvMap env;
    for (const char* const* name = kInherited; *name; ++name) {
        const char* value = std::getenv(*name);
        // Skip values starting with "()": exported bash functions are code, not configuration.
        if (value && std::string_view(value).substr(0, 2) != "()") env[*name] = value;
    }
    for (const auto& [key, value] : configured) env[key] = value;
    return env;
}

}  // namespace mcph::stdio
