// "roots": the directories a server is offered in roots/list (client/roots in the spec), written
// in a server entry or, as the default for every server, in the user's or local settings.
//
// Each entry, after ${VAR} expansion (env_expansion.hpp), is a path: "~" and "~/..." are the
// home directory ($HOME), a relative path is taken from `base` (the defining file's directory for
// a project file, the project root for local settings; see layered_config.cpp), and the result is
// resolved with every symlink (realpath) and must be an existing directory. When `confined_to` is
// not empty (a repository's file) the resolved directory must lie inside it: a committed
// "roots": ["~/.ssh"] (or a symlink to it) must not point an approved filesystem server at the
// user's keys. An empty list means "no roots" (roots/list answers an empty list).
#pragma once

#include "config/env_expansion.hpp"

#include <mcph/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcph::config {

// At most this many roots per list: a list is a handful of folders, and each one is a realpath.
inline constexpr std::size_t kMaxRoots = 256;

// The "roots" member of `holder` as written: nullopt when absent. Throws mcph::Error(Usage)
// "<where>roots must be an array of directory paths" for any other shape (not an array, a
// non-string or empty item, more than kMaxRoots).
std::optional<std::vector<std::string>> roots_member(const JsonValue& holder, const std::string& where);

// The written roots resolved as described above, in order, duplicates dropped. Throws
// mcph::Error(Usage) naming `where`, the key and the entry: missing, not a directory, outside
// `confined_to`, "~" without HOME.
std::vector<std::filesystem::path> resolve_roots(const std::vector<std::string>& written, const std::filesystem::path& base,
                                                 const std::filesystem::path& confined_to, const VariableLookup& lookup,
                                                 const std::string& where);

}  // namespace mcph::config
