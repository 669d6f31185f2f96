// Whether a file on disk may be trusted at all, before anything in it is read: who owns it and who
// else could have written it (issue #9 items 2 and 10). A file another user planted — in a shared
// folder, or beside the user's own config — must not decide which commands run as this user.
//
//   Owner::CurrentUser         the user's own files: settings, approvals, credentials, project files
//   Owner::CurrentUserOrRoot   the administrator's files (/etc/mcph): root writes them
// Any file writable by "other" is refused; a config-home file (or folder) also when group-writable
// (the ssh rule for ~/.ssh: a group member could otherwise approve servers or plant tokens).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace mcph::config {

enum class Owner { CurrentUser, CurrentUserOrRoot };

struct TrustRule {
    Owner owner = Owner::CurrentUser;
    bool group_may_write = true;  // false for the config home's private files
};

// The effective uid the checks compare against (geteuid()).
uid_t current_uid();

// Why `st` (of `path`) must not be trusted under `rule`, or nullopt when it may be.
std::optional<std::string> distrust_reason(const std::filesystem::path& path, const struct stat& st, TrustRule rule);

// The same for a path: stat()ed (symlinks followed: the target is what gets read). nullopt also when
// the path does not exist (absence is for the reader to handle).
std::optional<std::string> distrust_reason(const std::filesystem::path& path, TrustRule rule);

// Reads a whole file only if it may be trusted: opened first, then judged by fstat of what was
// opened (so the file cannot be swapped between the check and the read). nullopt when it does not
// exist. Throws mcph::Error(Usage) naming the file: distrust_reason, or why it cannot be read.
std::optional<std::string> read_trusted_file(const std::filesystem::path& path, TrustRule rule);

// Throws mcph::Error(Usage) with distrust_reason when there is one.
void require_trusted(const std::filesystem::path& path, TrustRule rule);

// True when `path`, with every symlink resolved, lies inside `root` (also resolved). Used for files
// inside a repository: a committed symlink must not make mcph read or write a file outside it.
bool resolves_inside(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace mcph::config
