// DPoP (RFC 9449): proof-of-possession for access tokens.
//
// Each server gets its own ES256 (P-256) key pair, made with OpenSSL and kept in the host's
// secret store under its own key, so a restart keeps the key its tokens are bound to (a DPoP
// refresh token of a public client is useless with any other key). Every HTTP request that
// carries or obtains a DPoP-bound token gets a fresh proof JWT: header {typ, alg, jwk}, claims
// jti (random), iat, htm, htu (no query, no fragment), ath (resource requests) and nonce (when
// the server gave one). Nonces are remembered per role (authorization server / resource server)
// and origin: RFC 9449 §8 and §9 are separate nonce spaces.
//
// The private key never leaves this file except as the PEM written to the secret store; no
// message, log line or describe() field contains it.
#pragma once

#include "metadata.hpp"
#include "token_store.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::oauth {

// The `dpop` config key: "auto" (when the AS lists ES256 in dpop_signing_alg_values_supported),
// true (required: an AS without it is an error), false (never for new tokens).
enum class DpopPolicy { automatic, required, off };

// A DPoP key pair. Immutable after construction, so proofs may be signed from any thread.
class DpopKey {
public:
    static DpopKey generate();
    // nullopt unless `pem` is a P-256 EC private key.
    static std::optional<DpopKey> from_pem(std::string_view pem);

    std::string private_pem() const;                               // PKCS#8, for the secret store only
    const std::string& public_jwk() const { return jwk_; }         // {"crv","kty","x","y"}
    const std::string& thumbprint() const { return thumbprint_; }  // RFC 7638, base64url SHA-256

    struct Claims {
        std::string method;        // htm
        std::string url;           // htu before stripping
        std::string access_token;  // ath when not empty
        std::string nonce;         // when not empty
        int64_t issued_at = 0;     // iat; now when 0
        std::string jti;           // random when empty
    };
    std::string proof(const Claims& claims) const;

private:
    struct Pkey;
    explicit DpopKey(std::shared_ptr<Pkey> key);
    std::shared_ptr<Pkey> key_;
    std::string x_, y_;  // base64url coordinates
    std::string jwk_, thumbprint_;
};

// The htu of a request URL: without query and fragment (RFC 9449 §4.2).
std::string dpop_htu(std::string_view url);
// ath: base64url SHA-256 of the access token (RFC 9449 §4.2).
std::string dpop_ath(std::string_view access_token);
// True for a nonce a server may send: 1*NQCHAR (RFC 9449 §8.1), at most kMaxNonce bytes.
bool valid_dpop_nonce(std::string_view nonce);
inline constexpr size_t kMaxDpopNonce = 1024;

enum class DpopRole { authorization_server, resource_server };

// The DPoP state of one server: the key (loaded or made on first use) and the nonces given.
// Thread-safe. `store_key` names the key's own record in the secret store. When the host offers
// secret_lock (ABI 1.2), the key is created under that lock, so two processes signing in at
// once bind their tokens to one key instead of overwriting each other's.
class DpopSession {
public:
    DpopSession(const mcph_host_services* host, const TokenStore& store, std::string store_key, DpopPolicy policy);

    DpopPolicy policy() const { return policy_; }
    // Whether tokens from this AS are requested with DPoP: by policy and the AS's metadata.
    // Throws OAuthError(dpop_unsupported) when required and the AS does not list ES256.
    bool use_with(const AuthServerMetadata& as) const;

    // The key, read from the secret store or made and stored there (blocking).
    std::shared_ptr<const DpopKey> key();
    // The key when already at hand, without touching the store; nullptr otherwise.
    std::shared_ptr<const DpopKey> loaded_key() const;

    // A fresh proof for a request to `url` with the nonce known for (role, origin of url).
    std::string proof(const DpopKey& key, DpopRole role, std::string_view method, std::string_view url,
                      std::string_view access_token = {}) const;

    // Remembers a nonce a server sent. False (and nothing kept) when it is not a valid nonce.
    bool remember_nonce(DpopRole role, std::string_view url, std::string_view nonce);
    std::string nonce(DpopRole role, std::string_view url) const;

    // Logout: the key is erased from the store (the next login binds to a new key), nonces dropped.
    void forget();

private:
    static std::string nonce_key(DpopRole role, std::string_view url);
    static constexpr size_t kMaxOrigins = 16;

    std::shared_ptr<const DpopKey> load_or_create() const;

    const mcph_host_services* host_;
    const TokenStore& store_;
    std::string store_key_;
    DpopPolicy policy_;
    std::mutex load_mu_;  // serialises loading/creating the key (held across store I/O)
    mutable std::mutex mu_;  // key_ and nonces_; never held across I/O
    std::shared_ptr<const DpopKey> key_;
    std::map<std::string, std::string> nonces_;
};

}  // namespace mcph::oauth
