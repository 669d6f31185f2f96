// SHA-256 through OpenSSL (a fixed dependency): used for deterministic name suffixes and
// content signatures, never for security decisions here.
#pragma once

#include <string>
#include <string_view>

namespace mcph::tools {

std::string sha256_hex(std::string_view data);

}  // namespace mcph::tools
