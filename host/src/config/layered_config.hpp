// Every file is read as JSONC (config/jsonc.hpp): comments and trailing commas, as editors write.
// ${workspaceFolder} is the project root; ${input:id} is answered by `inputs` (config/inputs.hpp).
//
// The layered configuration of seed 000 §18.6: every scope read, ${VAR} expanded, merged by server
// name with whole-entry replacement, and the allow/deny policy gathered beside it.
//
// Precedence (lowest first, the Scope enum's order): plugin < webapp < user < project < local <
// dynamic < managed. Webapp (connectors synced from a web service, connectors.hpp) sits with plugin:
// a source the user did not write entry by entry, so anything they wrote by hand beats it. Enterprise is not "highest": when managed-mcp.json exists and is valid, it is the only
// source of servers (exclusive control, so nobody can add a server beside the administrator's). The
// policy is still gathered as usual, so a user can always deny more for themselves.
//
// Managed settings may also come from an endpoint (managed_endpoint.hpp, fetched once per
// process): its document is read after managed-settings.json, exactly as that file is.
//
// Failure handling, from strictest to most lenient:
//  - an administrator's file (managed-mcp.json, managed-settings.json, the endpoint file) that
//    exists but cannot be read or understood, including a bad policy rule or "connectors" setting
//    in it, or a configured managed endpoint that cannot be fetched or whose answer is malformed:
//    fail closed (policy.fail_closed, no servers at all) — a typo must not silently lift the
//    administrator's restrictions;
//  - the connector service unreachable: its cached list, marked stale (webapp); a malformed answer:
//    a ConfigProblem and the cached list (or none) — never more than the connectors are lost;
//  - any other file that cannot be read or parsed: a ConfigProblem, that file skipped;
//  - one bad entry (a missing ${VAR}, an unknown or unanswered ${input:id}, a failed validation): a
//    ConfigProblem, that entry skipped; a bad entry of VS Code's "inputs" costs only the servers
//    using it. If
//    a lower scope defines the same name, its definition stays in effect;
//  - a bad allowedMcpServers / deniedMcpServers / disabledMcpServers / enabledMcpServers list in a
//    user or local file: a ConfigProblem, that list ignored.
//  - a file another user owns, or others may write (file_trust.hpp), or a repository file that is a
//    symlink leading out of the project: a ConfigProblem naming it, the file not read (an
//    administrator's file: fail closed). A config home that others may write: its settings are not
//    read at all.
// A missing file is simply absent.
//
// Trust by location (issue #9): the local settings live in the config home, keyed by project root.
// A <project root>/.mcph/settings.local.json (where older versions kept them) is inside the work
// tree, where a commit can put it: its servers are read as project servers (approval needed), its
// lists are ignored, and a ConfigProblem says how to migrate it (`mcph migrate-local`).
//
// Policy (kept apart from the servers; governance/ applies it):
//  - denied: every deniedMcpServers of managed-mcp.json, managed-settings.json, user and local
//    settings, in that order. A project's .mcp.json carries no policy: a repository must not be able
//    to allow or un-deny itself.
//  - allowed: nullopt when no source defines allowedMcpServers, else the union of those defined.
//    With "allowManagedMcpServersOnly": true in managed-settings.json only the administrator's lists
//    (managed-mcp.json + managed-settings.json) count, and when they define none the list is empty:
//    nothing is allowed (the flag exists to stop users widening the list; "everything allowed"
//    would silently defeat it).
//  - "pluginOnlyMcpServers" in managed-settings.json becomes policy.plugin_only_agents.
// inheritEnv (config/inherit_env.hpp): a top-level "inheritEnv" of the user settings, or of the
// local settings (which win), is the default of every stdio server without its own. Anywhere else
// (a repository's .mcp.json, the legacy in-repository local file, --mcp-config, plugin files) it is
// ignored with a ConfigProblem: a repository must not hand the user's environment to its servers.
// Roots (config_roots.hpp): a server entry's "roots" is resolved where its file stands (a project
// file's must stay inside the repository, else that entry is a problem naming the path); "roots"
// at the top of the user or local settings is the default of every server without its own list
// (local over user). No list anywhere: ServerConfig::roots stays nullopt (the host then offers the
// working directory).
// Disabled: disabledMcpServers / enabledMcpServers in user then local settings set
// config.disabled for any server, whatever its scope; local wins over user, and within one file
// enabled wins over disabled. An explicit enable also overrides the definition's own "disabled".
#pragma once

#include "config/config_locations.hpp"
#include "config/config_source.hpp"
#include "config/env_expansion.hpp"
#include "config/inputs.hpp"
#include "governance/policy_rules.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcph::config {

// A runtime source (the API, --mcp-config): merged above local, in the order given.
struct DynamicConfig {
    std::string origin;     // e.g. "--mcp-config ./servers.json" or "api"
    std::string json_text;  // {"mcpServers":{...}} or {"servers":{...}}
    // The file the document was read from (answers to its inputs are kept under its canonical
    // path); empty when it is not a file (inline JSON, the API).
    std::string file = {};
};

// Servers a loaded plugin brings along (Scope::Plugin, the lowest precedence).
struct PluginContribution {
    std::string plugin_source;  // the plugin's name, kept on each server for dedup (seed 000 §18.7)
    std::string origin;
    std::string json_text;  // {"mcpServers":{...}} or {"servers":{...}}
};

struct ConfigProblem {
    std::string origin;   // the file or source
    std::string server;   // empty when the whole file or a list is at fault
    std::string message;
    std::string written = {};  // a server's problem: its entry as written (compact JSON); else empty
};

struct LayeredConfig {
    // In the order names were first defined, lowest scope first; a higher scope replaces an entry
    // in place, so `mcph list` is stable when a definition moves between scopes.
    std::vector<ConfiguredServer> servers;
    governance::PolicySettings policy;
    std::vector<ConfigProblem> problems;
    bool enterprise_exclusive = false;  // managed-mcp.json exists (even when it failed closed)
    // The webapp connector service, when one is configured and the load got as far as it.
    struct Webapp {
        std::string origin;       // the endpoint URL, credentials redacted
        bool stale = false;       // its servers are the cached list: the fetch failed
        std::string fetch_error;  // why (also when there was no cache to fall back on)
        std::filesystem::path cache_file;
    };
    std::optional<Webapp> webapp;
    // Managed settings fetched from an endpoint (managed_endpoint.hpp): its URL (redacted), whether
    // the cached copy stands in for it, and why the fetch failed.
    std::string managed_endpoint;
    bool managed_from_cache = false;
    std::string managed_fetch_error;
    std::filesystem::path project_root;
    std::filesystem::path legacy_local_file;  // <root>/.mcph/settings.local.json when it exists
};

// Reads every scope. Plugin servers come from `plugins` first, then from each `*.mcp.json` directly
// inside locations.plugin_dirs (sorted by file name; plugin_source is the name without ".mcp.json").
// Never throws for a problem in the configuration itself; see the rules above.
LayeredConfig load_layered_config(const ConfigLocations& locations, const std::vector<DynamicConfig>& dynamic,
                                  std::vector<PluginContribution> plugins,
                                  const VariableLookup& lookup = lookup_process_environment,
                                  const InputResolver& inputs = {});

// Only the given documents (Scope::Dynamic, merged in order), no files and no policy: for an
// application that configures its servers itself. Problems are reported as above.
LayeredConfig load_dynamic_config(const std::vector<DynamicConfig>& dynamic,
                                  const VariableLookup& lookup = lookup_process_environment,
                                  const InputResolver& inputs = {});

}  // namespace mcph::config
