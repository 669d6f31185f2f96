// Reading a configuration, settings, approvals or credentials file to its end, with a size bound.
// Such files come from outside: a hostile repository can commit a 10 GB `.mcp.json`, and a planted
// /proc-like or growing file has no end at all. Every input from outside has a bound (ARCHITECTURE
// §4), so a file larger than the limit is refused with an error naming it and the limit, before
// (and without) reading it whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace mcph::config {

// 16 MiB: far beyond any real configuration (a thousand servers with long argument lists and
// headers fit in well under 1 MiB), and small enough that holding it, and the parsed JSON, in
// memory is harmless.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{16} << 20;

// Reads the open descriptor `fd` (of `path`, for messages) to its end and closes it, whatever
// happens. Throws mcph::Error(Usage) naming `path`: when it holds more than `max_bytes` (judged
// from fstat first, so a huge file is refused without reading it, and again while reading, for a
// file that grows or is not a regular file), or when a read fails.
std::string read_to_end_and_close(int fd, const std::filesystem::path& path,
                                  std::size_t max_bytes = kMaxConfigFileBytes);

}  // namespace mcph::config
