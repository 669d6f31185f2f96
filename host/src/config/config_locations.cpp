#include "config/config_locations.hpp"

#include "tools/sha256.hpp"

#include <mcph/error.hpp>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <vector>

namespace mcph::config {
namespace {

// An unset variable and an empty one mean the same here: `FOO= mcph` must not point at "/".
std::optional<std::string> non_empty(const VariableLookup& env, std::string_view name) {
    std::optional<std::string> value = env(name);
    if (value && value->empty()) return std::nullopt;
    return value;
}

// $HOME, or the password database when HOME is unset (e.g. under some service managers). Never a
// shared folder such as /tmp: the config home holds approvals, which must be the user's own.
fs::path home_directory(const VariableLookup& env) {
    if (auto home = non_empty(env, "HOME")) return *home;
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_dir &&
        *found->pw_dir)
        return found->pw_dir;
    throw Error(ErrorKind::Usage, "cannot find your home directory: set HOME or MCPH_CONFIG_HOME");
}

}  // namespace

fs::path config_home_from(const VariableLookup& env) {
    if (auto dir = non_empty(env, "MCPH_CONFIG_HOME")) return fs::path(*dir);
    // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    if (auto xdg = non_empty(env, "XDG_CONFIG_HOME"); xdg && fs::path(*xdg).is_absolute()) return fs::path(*xdg) / "mcph";
    return home_directory(env) / ".config" / "mcph";
}

namespace {

// Absolute with symlinks resolved, so one project always has the same key in the approval store
// however the user reached it.
fs::path resolved(const fs::path& dir) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    if (ec) return fs::absolute(dir).lexically_normal();
    return out;
}

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// lstat: a .git symlink or a folder symlink is judged by who made the link, not by its target.
bool owned_by_someone_else(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && st.st_uid != ::geteuid();
}

}  // namespace

fs::path find_project_root(const fs::path& dir) {
    std::error_code ec;
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
        if (owned_by_someone_else(p)) break;  // not ours: neither it nor anything above is our project
        const fs::path git = p / ".git";
        if (fs::exists(fs::symlink_status(git, ec))) {
            if (owned_by_someone_else(git)) break;
            return p;
        }
        if (p == p.parent_path()) break;  // the filesystem root
    }
    return dir;
}

fs::path local_settings_file_for(const fs::path& config_home, const fs::path& project_root) {
    std::string name = project_root.filename().string();
    if (name.empty() || name == "." || name == "..") name = "root";
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    if (name.size() > 40) name.resize(40);
    const std::string hash = tools::sha256_hex(project_root.string()).substr(0, 16);
    return config_home / "projects" / (name + "-" + hash) / "settings.local.json";
}

std::vector<fs::path> ConfigLocations::project_files() const {
    std::vector<fs::path> out;
    const fs::path below = cwd.lexically_relative(project_root);
    // A hand-built ConfigLocations whose cwd is not inside project_root: only cwd's own file.
    if (below.empty() || *below.begin() == "..") {
        if (is_file(cwd / ".mcp.json")) out.push_back(cwd / ".mcp.json");
        return out;
    }
    fs::path dir = project_root;
    if (is_file(dir / ".mcp.json")) out.push_back(dir / ".mcp.json");
    for (const fs::path& part : below) {
        if (part == ".") continue;
        dir /= part;
        if (is_file(dir / ".mcp.json")) out.push_back(dir / ".mcp.json");
    }
    return out;
}

ConfigLocations ConfigLocations::from_environment(fs::path cwd) {
    return from_variables(lookup_process_environment, std::move(cwd));
}

ConfigLocations ConfigLocations::from_variables(const VariableLookup& env, fs::path cwd) {
    ConfigLocations out;
    out.managed_dir = non_empty(env, "MCPH_MANAGED_DIR").value_or("/etc/mcph");
    out.config_home = config_home_from(env);
    out.cwd = resolved(cwd);
    out.project_root = find_project_root(out.cwd);
    return out;
}

}  // namespace mcph::config
