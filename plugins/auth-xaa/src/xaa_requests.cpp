#include "xaa_requests.hpp"

#include "encoding.hpp"
#include "errors.hpp"
#include "json_fields.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <cstdlib>

namespace mcph::xaa {

using oauth::FailureKind;
using oauth::OAuthError;


Fields token_exchange_fields(const IdpConfig& idp, const std::string& id_token, const std::string& audience,
                             const std::string& resource, const std::string& scope) {
    Fields f{{"grant_type", kTokenExchangeGrant},
             {"requested_token_type", kIdJagType},
             {"subject_token", id_token},
             {"subject_token_type", kIdTokenType},
             {"audience", audience},
             {"resource", resource}};
    if (!scope.empty()) f.emplace_back("scope", scope);
    f.emplace_back("client_id", idp.client_id);
    if (!idp.client_secret.empty()) f.emplace_back("client_secret", idp.client_secret);
    return f;
}

IdJag parse_token_exchange_response(const oauth::HttpResponse& r) {
    const std::string what = "IdP token exchange";
    if (auto e = oauth::oauth_error_in(r.body)) {
        std::string msg = what + " at " + r.url + " refused the request (HTTP " + std::to_string(r.status) + "): " + e->error;
        if (!e->description.empty()) msg += " — " + e->description;
        throw OAuthError(FailureKind::token_exchange_failed, msg, e->error);
    }
    oauth::require_json(r, what, FailureKind::token_exchange_failed);
    if (r.status < 200 || r.status >= 300)
        throw OAuthError(FailureKind::token_exchange_failed, what + " at " + r.url + " answered HTTP " + std::to_string(r.status));
    rapidjson::Document doc;
    json_bounds::parse(doc, r.body);  // require_json above: it parses
    IdJag j;
    j.assertion = oauth::string_member(doc, "access_token");
    if (j.assertion.empty())
        throw OAuthError(FailureKind::token_exchange_failed, what + " at " + r.url + " returned no access_token (ID-JAG)");
    if (std::string type = oauth::string_member(doc, "issued_token_type"); !type.empty() && type != kIdJagType)
        throw OAuthError(FailureKind::token_exchange_failed, what + " at " + r.url + " issued " + type + ", not an ID-JAG");
    if (auto it = doc.FindMember("expires_in"); it != doc.MemberEnd()) {
        if (it->value.IsInt64()) j.expires_in = it->value.GetInt64();
        else if (it->value.IsString()) j.expires_in = std::strtoll(it->value.GetString(), nullptr, 10);
    }
    return j;
}

IdJag request_id_jag(oauth::HttpClient& http, const std::string& token_endpoint, const IdpConfig& idp,
                     const std::string& id_token, const std::string& audience, const std::string& resource,
                     const std::string& scope) {
    oauth::HttpResponse r = http.post(token_endpoint, "application/x-www-form-urlencoded",
                                      oauth::form_body(token_exchange_fields(idp, id_token, audience, resource, scope)),
                                      {}, "IdP token exchange", FailureKind::token_exchange_failed);
    return parse_token_exchange_response(r);
}

oauth::ClientIdentity as_client(const XaaConfig& config, const oauth::AuthServerMetadata& as) {
    oauth::ClientIdentity c;
    c.client_id = config.client_id;
    c.client_secret = config.client_secret;
    c.auth_method = oauth::choose_auth_method(as, !config.client_secret.empty(), false, {});
    c.source = "preregistered";
    c.issuer = as.issuer;
    return c;
}

Fields jwt_bearer_fields(const std::string& assertion, const std::string& scope) {
    Fields f{{"grant_type", kJwtBearerGrant}, {"assertion", assertion}};
    if (!scope.empty()) f.emplace_back("scope", scope);
    return f;
}

oauth::TokenResponse jwt_bearer_grant(oauth::HttpClient& http, const oauth::TokenEndpoint& ep,
                                      const oauth::ClientIdentity& client, const std::string& assertion,
                                      const std::string& scope) {
    oauth::TokenClient tokens(http);
    return tokens.request(ep, client, jwt_bearer_fields(assertion, scope), "token endpoint (jwt-bearer)",
                          FailureKind::token_exchange_failed);
}

}  // namespace mcph::xaa
