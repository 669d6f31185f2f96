// `mcph migrate-local`: the user's explicit move of an in-repository local settings file (where
// older versions kept it) to the local settings in the config home (config_locations.hpp). Until
// then that file only has project trust; after the move it is the user's.
#pragma once

#include "config/config_locations.hpp"

#include <filesystem>

namespace mcph::config {

// Moves locations.legacy_local_settings_file() to locations.local_settings_file() (0600, written
// atomically), then deletes the old file (and its .mcph folder when it is left empty). Throws
// mcph::Error: NotFound when there is no such file; Usage when it is not a regular file of the
// current user inside the project, is not a JSON object, or the new file already exists (then
// nothing is changed: merge the two by hand).
std::filesystem::path migrate_legacy_local_settings(const ConfigLocations& locations);

}  // namespace mcph::config
