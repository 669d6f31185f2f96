// Byte encodings and digests the OAuth flows need, all on OpenSSL: base64 (Basic auth),
// base64url without padding (PKCE, JWT), SHA-256, hex, CSPRNG bytes, and form encoding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::oauth {

std::string base64_encode(std::string_view bytes);     // standard alphabet, padded
std::string base64url_encode(std::string_view bytes);  // RFC 4648 §5, no padding
std::optional<std::string> base64url_decode(std::string_view text);

std::string sha256(std::string_view bytes);  // 32 raw bytes
std::string hex(std::string_view bytes);     // lower-case

// Cryptographically secure random bytes (RAND_bytes). Throws on RNG failure.
std::string random_bytes(size_t count);

// application/x-www-form-urlencoded for one value (unreserved kept, everything else %XX).
std::string form_encode(std::string_view value);
std::string form_body(const std::vector<std::pair<std::string, std::string>>& fields);
// Percent-decoding for query values ('+' is a space).
std::string form_decode(std::string_view value);

}  // namespace mcph::oauth
