#include "flows.hpp"

#include "client_registration.hpp"
#include "encoding.hpp"
#include "loopback_server.hpp"
#include "pkce.hpp"
#include "scopes.hpp"
#include "token_requests.hpp"
#include "url.hpp"
#include "workload_assertion.hpp"

#include <mcph/plugin_helper.hpp>

#include <chrono>

namespace mcph::oauth {

namespace {

StoredTokens to_stored(const TokenResponse& t, const TokenEndpoint& ep, const ClientIdentity& client,
                       const std::vector<std::string>& requested, const std::string& previous_refresh) {
    StoredTokens s;
    s.access_token = t.access_token;
    s.refresh_token = t.refresh_token.empty() ? previous_refresh : t.refresh_token;
    s.scope = t.scope.empty() ? join_scopes(requested) : t.scope;
    s.expires_at = t.expires_in > 0 ? now_seconds() + t.expires_in : 0;
    s.token_endpoint = ep.url;
    s.issuer = ep.issuer;
    s.resource = ep.resource;
    s.client = client;
    s.token_type = t.token_type;
    return s;
}

// RFC 9207 mix-up defence, against the issuer recorded at discovery (exact comparison): a
// present `iss` must be it, whether or not the AS advertised the parameter; an AS that did
// advertise it must send it. A present but empty `iss=` is a value, and not this issuer's.
void check_response_issuer(const Discovery& d, const CallbackResult& cb) {
    if (!cb.iss_present) {
        if (d.server.authorization_response_iss_parameter_supported)
            throw OAuthError(FailureKind::state_mismatch,
                             "the authorization response carried no iss although " + d.issuer +
                                 " advertises authorization_response_iss_parameter_supported (RFC 9207); refused");
        return;
    }
    if (cb.iss != d.issuer)
        throw OAuthError(FailureKind::state_mismatch, "the authorization response names another issuer than " +
                                                          d.issuer + " (RFC 9207 mix-up defence); refused");
}

void open_browser(const FlowContext& ctx, const std::string& url) {
    const mcph_host_services* h = ctx.host;
    if (!h || h->struct_size <= offsetof(mcph_host_services, open_url) || !h->open_url)
        throw OAuthError(FailureKind::user_cancelled, "the application cannot open the authorization URL");
    mcph_error err = mcph::plugin::make_error();
    mcph_status st = h->open_url(h->host_data, mcph::plugin::str(url), &err);
    if (st != MCPH_OK)
        throw OAuthError(FailureKind::user_cancelled,
                         std::string("the application did not open the authorization URL: ") +
                             (err.message[0] ? err.message : "refused"));
}

StoredTokens authorization_code(const FlowContext& ctx, const Discovery& d, const std::vector<std::string>& scopes) {
    check_server(d.server, true);
    DpopSession* dpop = dpop_for(ctx, d.server);  // before the browser: a required-but-absent DPoP fails now
    LoopbackServer server(ctx.config.callback_port, ctx.config.callback_path);
    std::string redirect_uri = server.redirect_uri();
    ClientIdentity client = resolve_client(ctx.config, d.server, ctx.store, ctx.http, redirect_uri, scopes);
    Pkce pkce = make_pkce();
    std::string state = make_state();
    std::string url = authorization_url(d.server, client.client_id, redirect_uri, pkce.challenge, state, d.resource, scopes);
    server.start(state);
    if (ctx.cancel.cancellation) ctx.cancel.cancellation->check(ctx.cancel.started);  // no browser for a closed server
    ctx.log(MCPH_LOG_INFO, "opening the authorization page of " + d.server.issuer + " (client " + client.source + ")");
    open_browser(ctx, url);
    CallbackResult cb = server.wait(std::chrono::milliseconds(ctx.config.auth_timeout_ms), ctx.cancel);
    // RFC 9207 before anything else in the response, errors included: a response that may come
    // from another AS (a mix-up) is refused without showing its error text, which that AS wrote.
    check_response_issuer(d, cb);
    if (!cb.error.empty()) {
        FailureKind kind = cb.error == "access_denied" ? FailureKind::user_cancelled : FailureKind::token_exchange_failed;
        throw OAuthError(kind,
                         "the authorization server returned " + cb.error +
                             (cb.error_description.empty() ? "" : " — " + cb.error_description),
                         cb.error);
    }
    if (cb.code.empty()) throw OAuthError(FailureKind::token_exchange_failed, "the callback carried no code");
    TokenEndpoint ep{d.server.token_endpoint, d.issuer, d.resource};  // stored under the recorded issuer
    TokenClient tokens(ctx.http, ctx.config.private_key_pem, ctx.config.signing_algorithm);
    tokens.use_dpop(dpop);
    TokenResponse t = tokens.exchange_code(ep, client, cb.code, pkce.verifier, redirect_uri);
    return to_stored(t, ep, client, scopes, {});
}

StoredTokens client_credentials(const FlowContext& ctx, const Discovery& d, const std::vector<std::string>& scopes) {
    check_server(d.server, false);
    DpopSession* dpop = dpop_for(ctx, d.server);
    ClientIdentity client = resolve_client(ctx.config, d.server, ctx.store, ctx.http, {}, scopes);
    TokenEndpoint ep{d.server.token_endpoint, d.issuer, d.resource};  // stored under the recorded issuer
    TokenClient tokens(ctx.http, ctx.config.private_key_pem, ctx.config.signing_algorithm);
    tokens.use_dpop(dpop);
    return to_stored(tokens.client_credentials(ep, client, scopes), ep, client, scopes, {});
}

// RFC 7523 §2.1 with the workload's JWT. The platform rotates that JWT, so it is read for each
// request, and read once more when it is already expired or the AS answers invalid_grant (a
// rotation may have happened in between); the same JWT twice is not sent twice.
constexpr const char* kJwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";

bool assertion_expired(const std::string& jwt) {
    auto exp = jwt_expiry(jwt);
    return exp && *exp <= now_seconds();
}

std::string fresh_assertion(const FlowContext& ctx, const AssertionSource& source) {
    std::string jwt = source.read();
    if (!assertion_expired(jwt)) return jwt;
    ctx.log(MCPH_LOG_INFO, "the workload assertion from " + source.where() + " has expired; reading it again");
    jwt = source.read();
    if (assertion_expired(jwt))
        throw OAuthError(FailureKind::token_exchange_failed,
                         "the workload assertion from " + source.where() + " expired " +
                             std::to_string(now_seconds() - *jwt_expiry(jwt)) +
                             " s ago and reading it again gave no newer one");
    return jwt;
}

StoredTokens jwt_bearer(const FlowContext& ctx, const Discovery& d, const std::vector<std::string>& scopes) {
    check_server(d.server, false);
    DpopSession* dpop = dpop_for(ctx, d.server);
    if (!d.server.grant_types_supported.empty() && !contains(d.server.grant_types_supported, kJwtBearerGrant))
        throw OAuthError(FailureKind::token_exchange_failed, "authorization server " + d.issuer +
                                                                 " does not offer the jwt-bearer grant "
                                                                 "(grant_types_supported)");
    ClientIdentity client;  // RFC 7523 §3.1: client authentication is optional with this grant
    client.auth_method = "none";
    client.source = "workload";
    if (!ctx.config.client_id.empty()) client = resolve_client(ctx.config, d.server, ctx.store, ctx.http, {}, scopes);
    TokenEndpoint ep{d.server.token_endpoint, d.issuer, d.resource};  // stored under the recorded issuer
    TokenClient tokens(ctx.http, ctx.config.private_key_pem, ctx.config.signing_algorithm);
    tokens.use_dpop(dpop);
    AssertionSource source(ctx.config.assertion);
    auto request = [&](const std::string& jwt) {
        std::vector<std::pair<std::string, std::string>> fields{{"grant_type", kJwtBearerGrant}, {"assertion", jwt}};
        if (!scopes.empty()) fields.emplace_back("scope", join_scopes(scopes));
        return tokens.request(ep, client, std::move(fields), "token endpoint (jwt-bearer)",
                              FailureKind::token_exchange_failed);
    };
    std::string jwt = fresh_assertion(ctx, source);
    try {
        return to_stored(request(jwt), ep, client, scopes, {});
    } catch (const OAuthError& e) {
        if (e.oauth_code() != "invalid_grant") throw;  // invalid_scope, unauthorized_client: not the JWT
        std::string again = fresh_assertion(ctx, source);
        if (again == jwt)
            throw OAuthError(FailureKind::token_exchange_failed,
                             std::string(e.what()) + "; the workload assertion from " + source.where() +
                                 " was rejected and reading it again gave the same one",
                             e.oauth_code());
        ctx.log(MCPH_LOG_INFO, "the workload assertion from " + source.where() + " was rejected; trying the newer one");
        return to_stored(request(again), ep, client, scopes, {});
    }
}

}  // namespace

std::string authorization_url(const AuthServerMetadata& as, const std::string& client_id,
                              const std::string& redirect_uri, const std::string& code_challenge,
                              const std::string& state, const std::string& resource,
                              const std::vector<std::string>& scopes) {
    std::vector<std::pair<std::string, std::string>> q{{"response_type", "code"},
                                                       {"client_id", client_id},
                                                       {"redirect_uri", redirect_uri},
                                                       {"code_challenge", code_challenge},
                                                       {"code_challenge_method", "S256"},
                                                       {"state", state}};
    if (!resource.empty()) q.emplace_back("resource", resource);
    if (!scopes.empty()) q.emplace_back("scope", join_scopes(scopes));
    return append_query(as.authorization_endpoint, form_body(q));
}

DpopSession* dpop_for(const FlowContext& ctx, const AuthServerMetadata& as) {
    return ctx.dpop && ctx.dpop->use_with(as) ? ctx.dpop : nullptr;
}

StoredTokens acquire_tokens(const FlowContext& ctx, const Discovery& d, const std::vector<std::string>& scopes) {
    if (ctx.config.grant == Grant::client_credentials) return client_credentials(ctx, d, scopes);
    if (ctx.config.grant == Grant::jwt_bearer) return jwt_bearer(ctx, d, scopes);
    return authorization_code(ctx, d, scopes);
}

StoredTokens refresh_tokens(const FlowContext& ctx, const StoredTokens& current) {
    if (current.refresh_token.empty() || current.token_endpoint.empty())
        throw OAuthError(FailureKind::refresh_failed, "no refresh token");
    if (!is_secure_endpoint(current.token_endpoint))
        throw OAuthError(FailureKind::insecure_endpoint, "token endpoint " + current.token_endpoint + " is not https");
    TokenEndpoint ep{current.token_endpoint, current.issuer, current.resource};
    ClientIdentity client = current.client;
    // A configured secret may have been rotated since the tokens were stored.
    if (client.source == "preregistered" && !ctx.config.client_secret.empty()) client.client_secret = ctx.config.client_secret;
    TokenClient tokens(ctx.http, ctx.config.private_key_pem, ctx.config.signing_algorithm);
    // A DPoP-bound grant is refreshed with a proof by the same key (RFC 9449 §5): no metadata here.
    if (current.dpop_bound() || (ctx.dpop && ctx.dpop->policy() == DpopPolicy::required)) tokens.use_dpop(ctx.dpop);
    TokenResponse t = tokens.refresh(ep, client, current.refresh_token);
    StoredTokens s = to_stored(t, ep, client, split_scopes(current.scope), current.refresh_token);
    if (t.scope.empty()) s.scope = current.scope;
    return s;
}

}  // namespace mcph::oauth
