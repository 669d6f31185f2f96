// Requests to the token endpoint — code exchange, refresh, client credentials — with client
// authentication applied the way the client identity says (client_secret_basic,
// client_secret_post, none, private_key_jwt), and responses normalised (errors.hpp).
#pragma once

#include "http_client.hpp"
#include "metadata.hpp"
#include "token_store.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mcph::oauth {

struct TokenResponse {
    std::string access_token;
    std::string refresh_token;
    std::string scope;
    int64_t expires_in = -1;  // -1: not given
    std::string token_type = "Bearer";  // "Bearer" or "DPoP" (RFC 9449 §5)
};

// A token endpoint answer: success, or OAuthError(kind) carrying the normalised OAuth code —
// including for HTTP 200 with an `error` member, and for HTML or other non-JSON bodies.
TokenResponse parse_token_response(const HttpResponse& r, std::string_view what, FailureKind kind);

// How to authenticate at the token endpoint, from what we hold and what the AS supports:
// an override wins; a private key means private_key_jwt; a secret means client_secret_basic when
// supported (the RFC 8414 default), else client_secret_post; otherwise none.
std::string choose_auth_method(const AuthServerMetadata& as, bool has_secret, bool has_private_key,
                               const std::string& override_method);

struct TokenEndpoint {
    std::string url;
    std::string issuer;    // the JWT assertion audience
    std::string resource;  // RFC 8707
};

class DpopSession;  // dpop.hpp

class TokenClient {
public:
    // The private key (PEM) and algorithm are used only for private_key_jwt.
    TokenClient(HttpClient& http, std::string private_key_pem = {}, std::string signing_algorithm = "ES256")
        : http_(http), private_key_pem_(std::move(private_key_pem)), signing_algorithm_(std::move(signing_algorithm)) {}

    // RFC 9449: every request from here on carries a fresh DPoP proof, and a use_dpop_nonce
    // answer is retried with the server's nonce (at most kMaxNonceRetries times per request).
    void use_dpop(DpopSession* dpop) { dpop_ = dpop; }
    static constexpr int kMaxNonceRetries = 2;

    TokenResponse exchange_code(const TokenEndpoint& ep, const ClientIdentity& client, const std::string& code,
                                const std::string& verifier, const std::string& redirect_uri);
    TokenResponse refresh(const TokenEndpoint& ep, const ClientIdentity& client, const std::string& refresh_token);
    TokenResponse client_credentials(const TokenEndpoint& ep, const ClientIdentity& client,
                                     const std::vector<std::string>& scopes);

    // Any other grant (e.g. RFC 7523 jwt-bearer): `fields` plus resource and client
    // authentication, POSTed to the token endpoint; the answer parsed as a token response.
    TokenResponse request(const TokenEndpoint& ep, const ClientIdentity& client,
                          std::vector<std::pair<std::string, std::string>> fields, std::string_view what,
                          FailureKind kind);
    // The same request, returning the raw response (for token types parse_token_response
    // rejects, such as RFC 8693 exchanges).
    HttpResponse post(const TokenEndpoint& ep, const ClientIdentity& client,
                      std::vector<std::pair<std::string, std::string>> fields, std::string_view what,
                      FailureKind kind);

private:
    HttpResponse post_once(const TokenEndpoint& ep, const ClientIdentity& client,
                           std::vector<std::pair<std::string, std::string>> fields, const HeaderPairs& extra,
                           std::string_view what, FailureKind kind);

    HttpClient& http_;
    DpopSession* dpop_ = nullptr;
    std::string private_key_pem_;
    std::string signing_algorithm_;
};

}  // namespace mcph::oauth
