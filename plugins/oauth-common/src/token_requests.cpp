#include "token_requests.hpp"

#include "dpop.hpp"
#include "encoding.hpp"
#include "json_fields.hpp"
#include "jwt_assertion.hpp"
#include "scopes.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <cctype>
#include <chrono>
#include <cstdlib>

namespace mcph::oauth {

namespace {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

}  // namespace

TokenResponse parse_token_response(const HttpResponse& r, std::string_view what, FailureKind kind) {
    // Some servers (Slack) answer 200 with {"error": ...}: an error whatever the status.
    if (auto e = oauth_error_in(r.body)) {
        std::string msg = std::string(what) + " at " + r.url + " refused the request (HTTP " + std::to_string(r.status) +
                          "): " + e->error;
        if (!e->description.empty()) msg += " — " + e->description;
        throw OAuthError(kind, msg, e->error);
    }
    require_json(r, what, kind);
    if (r.status < 200 || r.status >= 300)
        throw OAuthError(kind, std::string(what) + " at " + r.url + " answered HTTP " + std::to_string(r.status));
    rapidjson::Document doc;
    json_bounds::parse(doc, r.body);  // require_json above: it parses
    TokenResponse t;
    t.access_token = string_member(doc, "access_token");
    t.refresh_token = string_member(doc, "refresh_token");
    t.scope = string_member(doc, "scope");
    if (t.access_token.empty())
        throw OAuthError(kind, std::string(what) + " at " + r.url + " returned no access_token");
    std::string type = string_member(doc, "token_type");
    if (iequals(type, "dpop")) t.token_type = "DPoP";
    else if (!type.empty() && !iequals(type, "bearer"))
        throw OAuthError(kind, std::string(what) + " at " + r.url + " issued an unsupported token_type " + type);
    if (auto it = doc.FindMember("expires_in"); it != doc.MemberEnd()) {
        if (it->value.IsInt64()) t.expires_in = it->value.GetInt64();
        else if (it->value.IsDouble()) t.expires_in = static_cast<int64_t>(it->value.GetDouble());
        else if (it->value.IsString()) t.expires_in = std::strtoll(it->value.GetString(), nullptr, 10);
    }
    return t;
}

std::string choose_auth_method(const AuthServerMetadata& as, bool has_secret, bool has_private_key,
                               const std::string& override_method) {
    if (!override_method.empty()) return override_method;
    if (has_private_key) return "private_key_jwt";
    if (has_secret) {
        if (as.supports_auth_method("client_secret_basic")) return "client_secret_basic";
        if (as.supports_auth_method("client_secret_post")) return "client_secret_post";
        if (as.supports_auth_method("none")) return "none";
        return "client_secret_basic";
    }
    return "none";
}

TokenResponse TokenClient::exchange_code(const TokenEndpoint& ep, const ClientIdentity& client, const std::string& code,
                                         const std::string& verifier, const std::string& redirect_uri) {
    return request(ep, client,
                   {{"grant_type", "authorization_code"},
                    {"code", code},
                    {"code_verifier", verifier},
                    {"redirect_uri", redirect_uri}},
                   "token endpoint", FailureKind::token_exchange_failed);
}

TokenResponse TokenClient::refresh(const TokenEndpoint& ep, const ClientIdentity& client,
                                   const std::string& refresh_token) {
    return request(ep, client, {{"grant_type", "refresh_token"}, {"refresh_token", refresh_token}},
                   "token endpoint (refresh)", FailureKind::refresh_failed);
}

TokenResponse TokenClient::client_credentials(const TokenEndpoint& ep, const ClientIdentity& client,
                                              const std::vector<std::string>& scopes) {
    std::vector<std::pair<std::string, std::string>> fields{{"grant_type", "client_credentials"}};
    if (!scopes.empty()) fields.emplace_back("scope", join_scopes(scopes));
    return request(ep, client, std::move(fields), "token endpoint (client_credentials)",
                   FailureKind::token_exchange_failed);
}

TokenResponse TokenClient::request(const TokenEndpoint& ep, const ClientIdentity& client,
                                   std::vector<std::pair<std::string, std::string>> fields, std::string_view what,
                                   FailureKind kind) {
    TokenResponse t = parse_token_response(post(ep, client, std::move(fields), what, kind), what, kind);
    // A DPoP-bound token is useless without the key its proof showed: we sent none.
    if (t.token_type == "DPoP" && !dpop_)
        throw OAuthError(kind, std::string(what) + " at " + ep.url + " issued a DPoP token to a request without a DPoP proof");
    return t;
}

namespace {
bool asks_for_dpop_nonce(const HttpResponse& r) {
    auto e = oauth_error_in(r.body);
    return r.status == 400 && e && e->error == "use_dpop_nonce";
}
}  // namespace

HttpResponse TokenClient::post(const TokenEndpoint& ep, const ClientIdentity& client,
                               std::vector<std::pair<std::string, std::string>> fields, std::string_view what,
                               FailureKind kind) {
    if (!dpop_) return post_once(ep, client, std::move(fields), {}, what, kind);
    std::shared_ptr<const DpopKey> key = dpop_->key();
    for (int attempt = 0;; ++attempt) {
        // A fresh proof (and client assertion) each time: a server may refuse a replayed jti.
        HeaderPairs proof{{"DPoP", dpop_->proof(*key, DpopRole::authorization_server, "POST", ep.url)}};
        HttpResponse r = post_once(ep, client, fields, proof, what, kind);
        const std::string nonce = r.header("DPoP-Nonce");  // RFC 9449 §8.2: any answer may carry a new one
        const bool kept = !nonce.empty() && dpop_->remember_nonce(DpopRole::authorization_server, ep.url, nonce);
        if (!asks_for_dpop_nonce(r)) return r;
        if (!kept)
            throw OAuthError(kind, std::string(what) + " at " + ep.url +
                                       " asked for a DPoP nonce (use_dpop_nonce) without a usable DPoP-Nonce header");
        if (attempt == kMaxNonceRetries)
            throw OAuthError(kind, std::string(what) + " at " + ep.url + " still answered use_dpop_nonce after " +
                                       std::to_string(kMaxNonceRetries) + " retries with its nonce",
                             "use_dpop_nonce");
    }
}

HttpResponse TokenClient::post_once(const TokenEndpoint& ep, const ClientIdentity& client,
                                    std::vector<std::pair<std::string, std::string>> fields, const HeaderPairs& extra,
                                    std::string_view what, FailureKind kind) {
    if (!ep.resource.empty()) fields.emplace_back("resource", ep.resource);  // RFC 8707, every request
    HeaderPairs headers = extra;
    const std::string& method = client.auth_method;
    if (method == "client_secret_basic") {
        // RFC 6749 §2.3.1: id and secret are form-encoded before base64.
        headers.emplace_back("Authorization", "Basic " + base64_encode(form_encode(client.client_id) + ":" +
                                                                       form_encode(client.client_secret)));
    } else if (method == "client_secret_post") {
        fields.emplace_back("client_id", client.client_id);
        fields.emplace_back("client_secret", client.client_secret);
    } else if (method == "private_key_jwt") {
        AssertionClaims claims;
        claims.client_id = client.client_id;
        // The AS's issuer identifies it (RFC 7523 §3); the token endpoint only when no issuer is known.
        claims.audience = ep.issuer.empty() ? ep.url : ep.issuer;
        claims.issued_at = now_seconds();
        fields.emplace_back("client_id", client.client_id);
        fields.emplace_back("client_assertion_type", kJwtBearerAssertionType);
        fields.emplace_back("client_assertion",
                            make_client_assertion(private_key_pem_, signing_algorithm_, claims));
    } else if (!client.client_id.empty()) {  // RFC 7523 §3.1: a jwt-bearer request may name no client
        fields.emplace_back("client_id", client.client_id);
    }
    return http_.post(ep.url, "application/x-www-form-urlencoded", form_body(fields), headers, what,
                      kind == FailureKind::refresh_failed ? FailureKind::refresh_failed
                                                          : FailureKind::token_exchange_failed);
}

}  // namespace mcph::oauth
