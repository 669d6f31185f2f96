// Where each configuration scope lives on disk (seed 000 §18.6). Pure path arithmetic plus the
// directory walk that finds project files; nothing here reads a file's contents.
//
//   enterprise  <managed_dir>/managed-mcp.json           exclusive when present
//   managed     <managed_dir>/managed-settings.json      servers and allow/deny policy
//   user        <config_home>/settings.json
//   project     every .mcp.json from the project root down to cwd (closer to cwd wins)
//   local       <project_root>/.mcph/settings.local.json (not committed)
//   plugin      <plugin_dir>/*.mcp.json
//   approvals   <config_home>/approvals.json             never in the project
#pragma once

#include "config/env_expansion.hpp"

#include <filesystem>
#include <vector>

namespace mcph::config {

namespace fs = std::filesystem;

struct ConfigLocations {
    fs::path managed_dir;   // $MCPH_MANAGED_DIR, else /etc/mcph
    fs::path config_home;   // $MCPH_CONFIG_HOME, else $XDG_CONFIG_HOME/mcph, else $HOME/.config/mcph
    fs::path cwd;           // absolute, symlinks resolved
    fs::path project_root;  // nearest ancestor of cwd (inclusive) holding a .git dir or file; cwd when none
    // Folders whose *.mcp.json files are plugin contributions. from_environment leaves this empty:
    // the plugin loader knows where its plugins live and fills it in.
    std::vector<fs::path> plugin_dirs;

    fs::path enterprise_file() const { return managed_dir / "managed-mcp.json"; }
    fs::path managed_settings_file() const { return managed_dir / "managed-settings.json"; }
    fs::path user_settings_file() const { return config_home / "settings.json"; }
    fs::path local_settings_file() const { return project_root / ".mcph" / "settings.local.json"; }
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
// submodule has a .git file); `dir` itself when there is none.
fs::path find_project_root(const fs::path& dir);

}  // namespace mcph::config
