// Test helpers: make an EC P-256 key pair and verify an ES256 compact JWS with OpenSSL.
#pragma once

#include <string>

namespace oauth_test {

struct KeyPair {
    std::string private_pem;  // PKCS#8
    std::string public_pem;
};
KeyPair make_p256_key();
// True when `jwt` is a well-formed ES256 JWS whose signature verifies with `public_pem`;
// `claims_json` receives the decoded payload.
bool verify_es256(const std::string& jwt, const std::string& public_pem, std::string* claims_json);

}  // namespace oauth_test
