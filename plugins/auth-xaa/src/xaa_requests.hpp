// The two requests of Enterprise-Managed Authorization (SEP-990 / ID-JAG):
//   1. RFC 8693 token exchange at the IdP: the user's id_token for an Identity Assertion
//      JWT Authorization Grant (ID-JAG) whose audience is the MCP server's authorization server;
//   2. RFC 7523 jwt-bearer grant at that authorization server: the ID-JAG for an access token,
//      with the client authentication the AS metadata allows.
// The form fields are built by pure functions (unit-tested); responses are normalised through
// oauth-common (an `error` member is an error whatever the status; HTML is reported clearly).
#pragma once

#include "http_client.hpp"
#include "metadata.hpp"
#include "token_requests.hpp"
#include "token_store.hpp"
#include "xaa_config.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mcph::xaa {

using Fields = std::vector<std::pair<std::string, std::string>>;

inline constexpr const char* kTokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
inline constexpr const char* kJwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";
inline constexpr const char* kIdJagType = "urn:ietf:params:oauth:token-type:id-jag";
inline constexpr const char* kIdTokenType = "urn:ietf:params:oauth:token-type:id_token";

// Fields of the token-exchange request (client_id and, when configured, client_secret included).
Fields token_exchange_fields(const IdpConfig& idp, const std::string& id_token, const std::string& audience,
                             const std::string& resource, const std::string& scope);

struct IdJag {
    std::string assertion;
    int64_t expires_in = -1;
};

// Parses the exchange answer: access_token is the ID-JAG; issued_token_type, when present, must
// be the id-jag type. Throws OAuthError(token_exchange_failed) with the normalised OAuth code.
IdJag parse_token_exchange_response(const oauth::HttpResponse& r);

IdJag request_id_jag(oauth::HttpClient& http, const std::string& token_endpoint, const IdpConfig& idp,
                     const std::string& id_token, const std::string& audience, const std::string& resource,
                     const std::string& scope);

// How we authenticate at the MCP server's AS: client_secret_basic when it is supported (the
// RFC 8414 default), else client_secret_post; `none` without a secret.
oauth::ClientIdentity as_client(const XaaConfig& config, const oauth::AuthServerMetadata& as);

// Fields of the jwt-bearer grant (client authentication and resource are added by TokenClient).
Fields jwt_bearer_fields(const std::string& assertion, const std::string& scope);

oauth::TokenResponse jwt_bearer_grant(oauth::HttpClient& http, const oauth::TokenEndpoint& ep,
                                      const oauth::ClientIdentity& client, const std::string& assertion,
                                      const std::string& scope);

}  // namespace mcph::xaa
