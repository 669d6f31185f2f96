#include "tools/sha256.hpp"

#include <sha2.h>

#include <cstdint>

namespace mcph::tools {

// libmd (Debian libmd-dev), not OpenSSL's EVP_Digest: OpenSSL 3 initialises itself on the first
// EVP call (reads openssl.cnf, loads the default provider, builds its algorithm tables), which was
// 14% of a one-shot `mcph call`'s CPU for the one hash of a settings path; libmd's SHA256Data is a
// plain function. Same digest, lowercase hex.
std::string sha256_hex(std::string_view data) {
    char hex[SHA256_DIGEST_STRING_LENGTH];
    SHA256Data(reinterpret_cast<const std::uint8_t*>(data.data()), data.size(), hex);
    return std::string(hex, SHA256_DIGEST_STRING_LENGTH - 1);
}

}  // namespace mcph::tools
