// RFC 7523 client assertions for private_key_jwt: a compact JWS signed with OpenSSL.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mcph::oauth {

inline constexpr const char* kJwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

struct AssertionClaims {
    std::string client_id;  // iss and sub
    std::string audience;   // the authorization server (issuer) or its token endpoint
    int64_t issued_at = 0;  // unix seconds
    int64_t lifetime_seconds = 300;
    std::string jti;        // unique; random when empty
};

// ES256 (P-256, raw r||s signature per RFC 7518 §3.4) or RS256. Throws OAuthError(config_invalid)
// on an unusable key.
std::string make_client_assertion(std::string_view private_key_pem, std::string_view algorithm,
                                  const AssertionClaims& claims);

// The JWS ES256 signature (raw r||s, 64 bytes, RFC 7518 §3.4) of `signing_input` with a P-256 key.
// Shared with DPoP proofs (dpop.cpp).
std::string es256_signature(EVP_PKEY* key, std::string_view signing_input);

}  // namespace mcph::oauth
