// PKCE (RFC 7636, S256 only) and the `state` value of one authorisation request.
#pragma once

#include <string>
#include <string_view>

namespace mcph::oauth {

struct Pkce {
    std::string verifier;   // 43 characters of base64url (32 random bytes)
    std::string challenge;  // BASE64URL(SHA256(verifier))
};

Pkce make_pkce();
std::string pkce_challenge(std::string_view verifier);
std::string make_state();  // 32 random bytes, base64url

}  // namespace mcph::oauth
