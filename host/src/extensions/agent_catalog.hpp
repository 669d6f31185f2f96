// Where sub-agent definition files are found, who may have written them, and which definition of a
// name is in effect (docs/agents.md). Lowest precedence first — a later source replaces an earlier
// definition of the same name, and says so (AgentDefinition::shadows):
//
//   built-in  Host::register_agent                               AgentSource::BuiltIn
//   plugin    <plugin dir>/agents/<plugin>/*.md                  AgentSource::Plugin, tagged <plugin>
//   user      <config home>/agents/*.md                          AgentSource::User
//   project   <dir>/.claude/agents/*.md then <dir>/.mcph/agents/*.md for every dir from the
//             repository root down to cwd (the walk of the project's .mcp.json files: closer wins)
//                                                                AgentSource::Project
//   policy    <managed dir>/agents/*.md (the administrator's)    AgentSource::Policy
//
// Trust, as for config files (file_trust.hpp): a file another user owns, or others may write, is
// refused (a problem naming it); user files also when group-writable or when the config home is not
// the user's own; a project file also when a symlink leads out of the repository. Project files
// need the user's approval of their content (approval_store.hpp); until then the agent is listed
// with approved = false and its reason.
//
// One bad file costs only itself: it is an AgentProblem naming the file and line, and every other
// agent still loads. Every read is bounded (AgentFileLimits; at most kMaxAgentFiles per folder).
#pragma once

#include "config/approval_store.hpp"
#include "config/config_locations.hpp"
#include "config/file_trust.hpp"
#include "extensions/agent_file.hpp"

#include <mcph/host.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcph::extensions {

inline constexpr std::size_t kMaxAgentFiles = 1000;

struct AgentFolder {
    std::filesystem::path dir;
    AgentSource source = AgentSource::User;
    std::string plugin;                  // Plugin folders: the plugin's name
    config::TrustRule rule;              // who may have written its files
    std::filesystem::path confined_to;   // project folders: the repository root
    std::optional<std::string> distrust; // why none of its files may be read (an untrusted config home)
};

// Every folder to read, lowest precedence first (see above). Folders that do not exist are kept:
// reading them finds nothing.
std::vector<AgentFolder> agent_folders(const config::ConfigLocations& locations);

// The file's text if it may be trusted under the folder's rules; throws mcph::Error(Usage) naming
// the file and the reason (owner, mode, symlink out of the project, size, not a regular file).
std::string read_agent_file(const std::filesystem::path& file, const AgentFolder& folder, const AgentFileLimits& limits = {});

// The catalog: `builtins` first, then every folder's files (sorted by name within a folder).
// Project agents are checked against `approvals` (null: none approved) under `project_root`.
AgentCatalog load_agent_catalog(const std::vector<AgentFolder>& folders, const std::vector<AgentDefinition>& builtins,
                                const config::ApprovalStore* approvals, const std::string& project_root,
                                const AgentFileLimits& limits = {});

}  // namespace mcph::extensions
