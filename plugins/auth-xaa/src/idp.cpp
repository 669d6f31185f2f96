#include "idp.hpp"

#include "encoding.hpp"
#include "errors.hpp"
#include "issuer.hpp"
#include "json_fields.hpp"
#include "loopback_server.hpp"
#include "pkce.hpp"
#include "token_store.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

namespace mcph::xaa {

using oauth::FailureKind;
using oauth::OAuthError;
using oauth::now_seconds;

namespace {

std::optional<std::string> optional_string(const rapidjson::Value& obj, const char* name) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || !it->value.IsString()) return std::nullopt;
    return std::string(it->value.GetString(), it->value.GetStringLength());
}

// OpenID Connect Discovery §4: any terminating "/" of the issuer is removed before the
// well-known suffix is appended. Only the URL is built this way; the issuer itself stays exact.
std::string discovery_url(std::string issuer) {
    while (!issuer.empty() && issuer.back() == '/') issuer.pop_back();
    return issuer + "/.well-known/openid-configuration";
}

std::optional<rapidjson::Document> jwt_payload(const std::string& jwt) {
    size_t a = jwt.find('.');
    size_t b = a == std::string::npos ? a : jwt.find('.', a + 1);
    if (b == std::string::npos) return std::nullopt;
    auto raw = oauth::base64url_decode(std::string_view(jwt).substr(a + 1, b - a - 1));
    if (!raw) return std::nullopt;
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, *raw) || !doc.IsObject()) return std::nullopt;
    return doc;
}

}  // namespace

IdpEndpoints idp_endpoints(oauth::HttpClient& http, const IdpConfig& idp, bool need_authorization_endpoint) {
    IdpEndpoints ep;
    ep.issuer = idp.issuer;
    ep.token_endpoint = idp.token_endpoint;
    if (!ep.token_endpoint.empty() && !need_authorization_endpoint) return ep;
    const std::string url = discovery_url(idp.issuer);
    oauth::HttpResponse r = http.get(url, "IdP OpenID configuration", FailureKind::metadata_unreachable);
    if (r.status != 200)
        throw OAuthError(FailureKind::metadata_invalid, "IdP OpenID configuration at " + url + " answered HTTP " +
                                                            std::to_string(r.status));
    oauth::require_json(r, "IdP OpenID configuration", FailureKind::metadata_invalid);
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, r.body) || !doc.IsObject())
        throw OAuthError(FailureKind::metadata_invalid, "IdP OpenID configuration at " + url + " is not a JSON object");
    // The issuer first: a document naming another issuer (or none) contributes nothing.
    check_metadata_issuer(idp.issuer, optional_string(doc, "issuer"), url);
    if (ep.token_endpoint.empty()) ep.token_endpoint = oauth::string_member(doc, "token_endpoint");
    ep.authorization_endpoint = oauth::string_member(doc, "authorization_endpoint");
    if (auto it = doc.FindMember("authorization_response_iss_parameter_supported");
        it != doc.MemberEnd() && it->value.IsBool())
        ep.iss_parameter_supported = it->value.GetBool();
    if (ep.token_endpoint.empty())
        throw OAuthError(FailureKind::metadata_invalid, "IdP OpenID configuration at " + url + " has no token_endpoint");
    if (need_authorization_endpoint && ep.authorization_endpoint.empty())
        throw OAuthError(FailureKind::metadata_invalid,
                         "IdP OpenID configuration at " + url + " has no authorization_endpoint");
    return ep;
}

std::string id_token_key(const IdpConfig& idp, const std::string& token_endpoint) {
    // The resolved token endpoint is part of the key: the id_token is only ever presented where
    // it was obtained for. Two configs naming one issuer but different endpoints (a document
    // pointing "tokenEndpoint" at its own server) share nothing. The issuer is exact, as
    // everywhere else: "https://idp/" and "https://idp" are two issuers.
    return "mcph.xaa.idp." +
           oauth::hex(oauth::sha256(idp.issuer + "\n" + idp.client_id + "\n" + token_endpoint)) + ".id_token";
}

std::optional<CachedIdToken> load_id_token(const oauth::TokenStore& store, const IdpConfig& idp,
                                           const std::string& token_endpoint) {
    auto raw = store.get(id_token_key(idp, token_endpoint));
    if (!raw) return std::nullopt;
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, *raw) || !doc.IsObject()) return std::nullopt;
    CachedIdToken t;
    t.id_token = oauth::string_member(doc, "id_token");
    if (auto it = doc.FindMember("expires_at"); it != doc.MemberEnd() && it->value.IsInt64())
        t.expires_at = it->value.GetInt64();
    if (t.id_token.empty()) return std::nullopt;
    return t;
}

void save_id_token(const oauth::TokenStore& store, const IdpConfig& idp, const std::string& token_endpoint,
                   const CachedIdToken& t) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("id_token");
    w.String(t.id_token.c_str(), static_cast<rapidjson::SizeType>(t.id_token.size()));
    w.Key("expires_at");
    w.Int64(t.expires_at);
    w.EndObject();
    store.set(id_token_key(idp, token_endpoint), buf.GetString());
}

void erase_id_token(const oauth::TokenStore& store, const IdpConfig& idp, const std::string& token_endpoint) {
    store.erase(id_token_key(idp, token_endpoint));
}

int64_t jwt_expiry(const std::string& jwt) {
    auto doc = jwt_payload(jwt);
    if (!doc) return 0;
    auto it = doc->FindMember("exp");
    if (it == doc->MemberEnd()) return 0;
    if (it->value.IsInt64()) return it->value.GetInt64();
    if (it->value.IsDouble()) return static_cast<int64_t>(it->value.GetDouble());
    return 0;
}

CachedIdToken interactive_login(const mcph_host_services* host, oauth::HttpClient& http, const IdpConfig& idp,
                                const IdpEndpoints& ep, long timeout_ms, const LogFn& log,
                                const oauth::CancelScope& cancel) {
    if (!host || host->struct_size <= offsetof(mcph_host_services, open_url) || !host->open_url)
        throw OAuthError(FailureKind::user_cancelled, "no id_token: sign in to the IdP (the application cannot open a browser)");
    http.check_url(ep.authorization_endpoint);
    oauth::LoopbackServer server(idp.callback_port, idp.callback_path);
    const std::string redirect_uri = server.redirect_uri();
    oauth::Pkce pkce = oauth::make_pkce();
    const std::string state = oauth::make_state();
    const std::string nonce = oauth::make_state();
    std::string url = ep.authorization_endpoint;
    url += url.find('?') == std::string::npos ? '?' : '&';
    url += oauth::form_body({{"response_type", "code"},
                             {"client_id", idp.client_id},
                             {"redirect_uri", redirect_uri},
                             {"scope", "openid"},
                             {"state", state},
                             {"nonce", nonce},
                             {"code_challenge", pkce.challenge},
                             {"code_challenge_method", "S256"}});
    server.start(state);
    if (cancel.cancellation) cancel.cancellation->check(cancel.started);  // no browser for a closed server
    log(MCPH_LOG_INFO, "opening the sign-in page of the IdP " + idp.issuer);
    mcph_error err = mcph::plugin::make_error();
    if (host->open_url(host->host_data, mcph::plugin::str(url), &err) != MCPH_OK)
        throw OAuthError(FailureKind::user_cancelled, std::string("the application did not open the IdP sign-in page: ") +
                                                          (err.message[0] ? err.message : "refused"));
    oauth::CallbackResult cb = server.wait(std::chrono::milliseconds(timeout_ms), cancel);
    // RFC 9207 before the callback's content, error included: on a mismatch the IdP's error
    // text is never shown (it may come from another issuer).
    check_callback_iss(idp.issuer, cb.iss_present ? std::optional<std::string>(cb.iss) : std::nullopt,
                       ep.iss_parameter_supported);
    if (!cb.error.empty())
        throw OAuthError(cb.error == "access_denied" ? FailureKind::user_cancelled : FailureKind::token_exchange_failed,
                         "the IdP returned " + shown(cb.error) +
                             (cb.error_description.empty() ? "" : " — " + shown(cb.error_description)),
                         cb.error);

    std::vector<std::pair<std::string, std::string>> fields{{"grant_type", "authorization_code"},
                         {"code", cb.code},
                         {"redirect_uri", redirect_uri},
                         {"code_verifier", pkce.verifier},
                         {"client_id", idp.client_id}};
    if (!idp.client_secret.empty()) fields.emplace_back("client_secret", idp.client_secret);
    oauth::HttpResponse r = http.post(ep.token_endpoint, "application/x-www-form-urlencoded", oauth::form_body(fields), {},
                                      "IdP token endpoint", FailureKind::token_exchange_failed);
    if (auto e = oauth::oauth_error_in(r.body))
        throw OAuthError(FailureKind::token_exchange_failed, "IdP token endpoint refused the code: " + e->error, e->error);
    oauth::require_json(r, "IdP token endpoint", FailureKind::token_exchange_failed);
    rapidjson::Document doc;
    json_bounds::parse(doc, r.body);  // require_json above: it parses
    CachedIdToken t;
    t.id_token = oauth::string_member(doc, "id_token");
    if (r.status != 200 || t.id_token.empty())
        throw OAuthError(FailureKind::token_exchange_failed, "IdP token endpoint at " + r.url + " returned no id_token");
    auto payload = jwt_payload(t.id_token);
    if (!payload || oauth::string_member(*payload, "nonce") != nonce)
        throw OAuthError(FailureKind::state_mismatch, "the IdP's id_token does not carry this sign-in's nonce");
    check_id_token_iss(idp.issuer, optional_string(*payload, "iss"));
    t.expires_at = jwt_expiry(t.id_token);
    if (t.expires_at != 0 && t.expires_at <= now_seconds())
        throw OAuthError(FailureKind::token_exchange_failed, "the IdP issued an id_token that has already expired");
    return t;
}

}  // namespace mcph::xaa
