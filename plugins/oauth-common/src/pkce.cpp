#include "pkce.hpp"

#include "encoding.hpp"

namespace mcph::oauth {

std::string pkce_challenge(std::string_view verifier) { return base64url_encode(sha256(verifier)); }

Pkce make_pkce() {
    Pkce p;
    // 32 bytes → 43 base64url characters: the minimum RFC 7636 allows, with 256 bits of entropy.
    p.verifier = base64url_encode(random_bytes(32));
    p.challenge = pkce_challenge(p.verifier);
    return p;
}

std::string make_state() { return base64url_encode(random_bytes(32)); }

}  // namespace mcph::oauth
