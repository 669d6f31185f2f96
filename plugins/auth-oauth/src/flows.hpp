// Getting a new token set: the authorization code flow with PKCE through the loopback server
// and host->open_url, or the client_credentials grant (no browser). Also the refresh grant.
// These functions own no shared state; OAuthAuth serialises them.
#pragma once

#include "cancellation.hpp"
#include "config.hpp"
#include "discovery.hpp"
#include "dpop.hpp"
#include "http_client.hpp"
#include "token_store.hpp"

#include <mcph/plugin_api.h>

#include <functional>
#include <string>
#include <vector>

namespace mcph::oauth {

struct FlowContext {
    const mcph_host_services* host;
    const OAuthConfig& config;
    HttpClient& http;
    const TokenStore& store;
    std::function<void(mcph_log_level, const std::string&)> log;  // never given secrets
    DpopSession* dpop = nullptr;  // the server's DPoP state; which requests use it: dpop_for below
    CancelScope cancel = {};       // the public call this flow runs for: a cancel ends its browser wait
};

// The DPoP session for token requests to this AS (RFC 9449), or nullptr: by the config's policy
// and the AS's dpop_signing_alg_values_supported. Throws OAuthError(dpop_unsupported).
DpopSession* dpop_for(const FlowContext& ctx, const AuthServerMetadata& as);

// Runs the configured grant against the discovered server with these scopes.
StoredTokens acquire_tokens(const FlowContext& ctx, const Discovery& d, const std::vector<std::string>& scopes);

// The refresh grant for `current`; keeps the old refresh token when the AS does not rotate it.
StoredTokens refresh_tokens(const FlowContext& ctx, const StoredTokens& current);

// The authorization request URL (separate for tests).
std::string authorization_url(const AuthServerMetadata& as, const std::string& client_id,
                              const std::string& redirect_uri, const std::string& code_challenge,
                              const std::string& state, const std::string& resource,
                              const std::vector<std::string>& scopes);

}  // namespace mcph::oauth
