// Replacing a configuration file so that a crash or power loss at any moment leaves either the old
// content or the new one, never a torn or missing file (seed 000 §18.6: write, flush, rename).
//
// Steps: a temp file is created beside the target (mkstemp, same directory so rename is atomic),
// filled, fdatasync'ed, given its final mode, closed, renamed over the target, and the directory is
// fsync'ed so the rename itself survives a power loss. On any failure before the rename the temp
// file is removed and the target is untouched. A crash (not an exception) may leave a stale
// ".<name>.tmp-XXXXXX" beside the target; it is never read.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::config {

enum class WriteStep { TempCreated, DataWritten, DataSynced, ModeSet, Renamed, DirSynced };

// Called after each step: tests crash (_exit) or throw there to prove the guarantees above.
using WriteFaultHook = std::function<void(WriteStep)>;

// Writes `content` to `path` atomically. An existing file keeps its permission bits; a new one gets
// exactly `mode_for_new_file` (the umask is not applied: callers choose 0600 for private files).
// Missing parent directories are created (0700). When `path` is a symlink, its target is replaced
// and the link kept (dotfile repositories symlink settings files). Throws mcph::Error(Usage)
// naming the path and the errno text; an exception from the hook propagates after the same cleanup.
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           mode_t mode_for_new_file = 0644, const WriteFaultHook* hook = nullptr);

// Creates `dir` and any missing ancestors with mode 0700 (existing folders are left as they are).
// Throws mcph::Error(Usage) naming the folder.
void create_private_directories(const std::filesystem::path& dir);

// The reading counterpart: the whole file, or nullopt when it does not exist. Throws
// mcph::Error(Usage) naming the path when it exists but cannot be read (permissions, a folder...).
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

}  // namespace mcph::config
