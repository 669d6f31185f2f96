#include "environment.hpp"

#include "resource_limits.hpp"

#include <cstdlib>

extern char** environ;  // POSIX: declared by no header

namespace mcph::stdio {

namespace {
// Enough to find programs, locate the home directory and keep locale/terminal behaviour sane.
// The same list the TypeScript MCP SDK uses on POSIX, plus LANG/LC_* and TMPDIR/TZ.
const char* const kInherited[] = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
                                  "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", nullptr};

bool is_exported_function(std::string_view value) { return value.substr(0, 2) == "()"; }

bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

bool listed(const std::vector<std::string>& names, std::string_view name) {
    for (std::string_view pattern : names) {
        if (!pattern.empty() && pattern.back() == '*') {
            if (name.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1)) return true;
        } else if (name == pattern) {
            return true;
        }
    }
    return false;
}

// Every NAME=value of environ that `inherit` takes (not the allow-list: the caller adds that).
void add_from_environ(const InheritEnv& inherit, EnvMap& env) {
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const std::size_t eq = text.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;  // not NAME=value: nothing to pass on
        const std::string_view name = text.substr(0, eq);
        const std::string_view value = text.substr(eq + 1);
        // The CLI's note of its own start-up limit, for this plugin only: not the user's environment.
        if (name == kInheritedNofileVariable || is_exported_function(value)) continue;
        if (inherit.mode == InheritEnv::Mode::AllowListNamed && !listed(inherit.names, name)) continue;
        env.emplace(name, value);  // the first of duplicate names wins, as getenv() answers
    }
}
}  // namespace

bool valid_inherit_name(std::string_view name) {
    if (name.size() > kMaxInheritNameBytes) return false;
    if (!name.empty() && name.back() == '*') name.remove_suffix(1);
    if (name.empty() || !name_start(name.front())) return false;
    for (char c : name)
        if (!name_char(c)) return false;
    return true;
}

const char* const* inherited_variable_names() { return kInherited; }

EnvMap child_environment(const EnvMap& configured, const InheritEnv& inherit) {
    EnvMap env;
    for (const char* const* name = kInherited; *name; ++name) {
        const char* value = std::getenv(*name);
        if (value && !is_exported_function(value)) env[*name] = value;
    }
    if (inherit.mode != InheritEnv::Mode::AllowList) add_from_environ(inherit, env);
    for (const auto& [key, value] : configured) env[key] = value;
    return env;
}

}  // namespace mcph::stdio
