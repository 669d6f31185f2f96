// The enterprise IdP side: its endpoints (configured, else OpenID Connect discovery), the
// id_token cache shared by every XAA server in the host's secret store, and the interactive
// OIDC sign-in (authorization code + PKCE through host->open_url and a loopback redirect).
#pragma once

#include "cancellation.hpp"
#include "http_client.hpp"
#include "token_store.hpp"
#include "xaa_config.hpp"

#include <mcph/plugin_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mcph::xaa {

struct IdpEndpoints {
    std::string issuer;
    std::string authorization_endpoint;  // empty when only the token endpoint is configured
    std::string token_endpoint;
    // RFC 9207: the IdP's OpenID configuration advertises authorization_response_iss_parameter_supported
    // (false when only the token endpoint is configured and no document was read).
    bool iss_parameter_supported = false;
};

// `need_authorization_endpoint`: discovery is done even with a configured token endpoint.
// The document must name `idp.issuer` exactly (issuer.hpp), else nothing from it is used.
IdpEndpoints idp_endpoints(oauth::HttpClient& http, const IdpConfig& idp, bool need_authorization_endpoint);

// Secret-store key of the cached id_token: the same for every server using this IdP + client +
// resolved token endpoint (the endpoint the id_token is presented to).
std::string id_token_key(const IdpConfig& idp, const std::string& token_endpoint);

struct CachedIdToken {
    std::string id_token;
    int64_t expires_at = 0;  // the id_token's exp; 0 = unknown
};
std::optional<CachedIdToken> load_id_token(const oauth::TokenStore& store, const IdpConfig& idp,
                                           const std::string& token_endpoint);
void save_id_token(const oauth::TokenStore& store, const IdpConfig& idp, const std::string& token_endpoint,
                   const CachedIdToken& t);
void erase_id_token(const oauth::TokenStore& store, const IdpConfig& idp, const std::string& token_endpoint);

// The `exp` claim of a JWT (0 when absent or unreadable); no signature check — the IdP that
// issued it is the one that verifies it in the exchange.
int64_t jwt_expiry(const std::string& jwt);

using LogFn = std::function<void(mcph_log_level, const std::string&)>;

// Sign in at the IdP in the user's browser; returns the id_token (throws OAuthError).
CachedIdToken interactive_login(const mcph_host_services* host, oauth::HttpClient& http, const IdpConfig& idp,
                                const IdpEndpoints& ep, long timeout_ms, const LogFn& log,
                                const oauth::CancelScope& cancel = {});

}  // namespace mcph::xaa
