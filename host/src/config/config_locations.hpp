// Where each configuration scope lives on disk (seed 000 §18.6). Pure path arithmetic plus the
// directory walk that finds project files; nothing here reads a file's contents.
//
//   enterprise  <managed_dir>/managed-mcp.json           exclusive when present
//   managed     <managed_dir>/managed-settings.json      servers and allow/deny policy
//               <managed_dir>/managed-settings-endpoint.json  where to fetch more of the same
//               (config/managed_endpoint.hpp)
//   webapp      the "connectors" setting of the user or managed settings (config/connectors.hpp);
//               the last good list cached in <config_home>/cache/
//   user        <config_home>/settings.json
//   project     every .mcp.json from the project root down to cwd (closer to cwd wins)
//   local       <config_home>/projects/<name>-<hash of project_root>/settings.local.json
//               (the user's settings for one project: kept outside the work tree, as Claude Code
//               keeps its local scope in the user's home — a file inside the repository can be
//               committed by anyone, so it can never be the user's own)
//   legacy      <project_root>/.mcph/settings.local.json  read with project trust only (see
//               layered_config.hpp); `mcph migrate-local` moves it to the local file above
//   plugin      <plugin_dir>/*.mcp.json
//   approvals   <config_home>/approvals.json             never in the project
#pragma once

#include "config/env_expansion.hpp"

#include <filesystem>
#include <vector>

namespace mcph::config {

namespace fs = std::filesystem;

// <config_home>/projects/<last component of root>-<16 hex of sha256(root)>/settings.local.json:
// one folder per project, readable by a person, never colliding.
fs::path local_settings_file_for(const fs::path& config_home, const fs::path& project_root);

struct ConfigLocations {
    fs::path managed_dir;   // $MCPH_MANAGED_DIR, else /etc/mcph
    fs::path config_home;   // $MCPH_CONFIG_HOME, else $XDG_CONFIG_HOME/mcph, else $HOME/.config/mcph
    fs::path cwd;           // absolute, symlinks resolved
    // Nearest ancestor of cwd (inclusive) holding a .git dir or file; cwd when none. The walk stops
    // at a folder or .git another user owns (find_project_root).
    fs::path project_root;
    // Folders whose *.mcp.json files are plugin contributions. from_environment leaves this empty:
    // the plugin loader knows where its plugins live and fills it in.
    std::vector<fs::path> plugin_dirs;

    fs::path enterprise_file() const { return managed_dir / "managed-mcp.json"; }
    fs::path managed_settings_file() const { return managed_dir / "managed-settings.json"; }
    fs::path managed_endpoint_file() const { return managed_dir / "managed-settings-endpoint.json"; }
    fs::path user_settings_file() const { return config_home / "settings.json"; }
    fs::path local_settings_file() const { return local_settings_file_for(config_home, project_root); }
    // The pre-1.0 place of the local settings, inside the work tree: never trusted as local scope.
    fs::path legacy_local_settings_file() const { return project_root / ".mcph" / "settings.local.json"; }
    fs::path approvals_file() const { return config_home / "approvals.json"; }

    // Every existing .mcp.json from project_root down to cwd, farthest first, so that merging them
    // in order lets the closer file win (the .gitignore / .eslintrc lookup developers know).
    std::vector<fs::path> project_files() const;

    // From the process environment.
    static ConfigLocations from_environment(fs::path cwd = fs::current_path());
    // From any variable source (tests pass a map instead of touching the real environment).
    static ConfigLocations from_variables(const VariableLookup& env, fs::path cwd);
};

// The nearest ancestor of `dir` (inclusive) holding a .git directory or file (a worktree or
// submodule has a .git file); `dir` itself when there is none. As git does since CVE-2022-24765
// (safe.directory), the walk stops at a folder owned by another user, and a .git owned by another
// user is not a project: someone who can create folders above you (a sticky /tmp, a shared mount)
// must not be able to make their files your project's configuration.
fs::path find_project_root(const fs::path& dir);

// $MCPH_CONFIG_HOME, else $XDG_CONFIG_HOME/mcph (absolute only), else <home>/.config/mcph, where
// home is $HOME or, when unset, the password database's entry for the current uid — never a shared
// folder such as /tmp. Throws mcph::Error(Usage) when no home can be found.
fs::path config_home_from(const VariableLookup& env);

}  // namespace mcph::config
