// SHA-256 (libmd): deterministic name suffixes, content signatures,
// and the integrity check of skill files against their declared digests (extensions/skill_verify).
#pragma once

#include <string>
#include <string_view>

namespace mcph::tools {

std::string sha256_hex(std::string_view data);

}  // namespace mcph::tools
