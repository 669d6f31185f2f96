// Edits one configuration file for `mcph add / remove / enable / disable`. The caller picks the file
// by scope (ConfigLocations says where each lives). Every edit is read-modify-write of the whole
// document: all other keys and servers are kept in their order, the result is pretty-printed
// (2-space indent) and written with write_file_atomically. A file that exists but is malformed is
// never touched: the edit throws mcph::Error(Usage) naming it, so a hand-edited file with a typo is
// not replaced by a fresh one that drops the user's other settings.
//
// No lock is taken: edits are interactive, and a lock file beside a project's .mcp.json would show
// up in the repository. Two simultaneous edits of one file cannot tear it (atomic rename) but the
// later one wins. The approval store, written without the user's attention, does lock.
#pragma once

#include "config/config_locations.hpp"

#include <mcph/json.hpp>

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace mcph::config {

// Adds `name` to the file's servers ("mcpServers", or "servers" when the file already uses the VS
// Code shape), creating {"mcpServers":{}} when the file does not exist. The entry is validated with
// parse_server_config first. An existing name is refused unless `replace`; a replaced entry keeps its
// position. New files are created with `mode_for_new_file` (0600 by default: entries often carry
// tokens in env or headers; git checks a committed .mcp.json out with the usual mode anyway).
void add_server_entry(const std::filesystem::path& file, const std::string& name, const JsonValue& entry, bool replace,
                      mode_t mode_for_new_file = 0600);

// Removes `name` from the file's servers. False (and no write) when the file or the name is absent.
bool remove_server_entry(const std::filesystem::path& file, const std::string& name);

// Records in a user or local settings file that `name` is disabled or enabled, whichever scope
// defines it: disabling adds it to "disabledMcpServers" and takes it out of "enabledMcpServers";
// enabling does the reverse (an explicit enable re-enables a server that a lower settings file or
// its own definition disables). No write when nothing changes.
void set_server_disabled(const std::filesystem::path& settings_file, const std::string& name, bool disabled);

// The file whose definition of `name` wins, searched from the highest precedence down: enterprise,
// managed, local, the legacy in-repository local file, project files (closest first), user, plugin
// folders. nullopt when no file defines
// it (it may still come from a dynamic source). Unreadable or malformed files are skipped here. The
// caller decides whether the file is one the user may edit (enterprise and managed are not).
std::optional<std::filesystem::path> file_defining(const ConfigLocations& locations, const std::string& name);

}  // namespace mcph::config
