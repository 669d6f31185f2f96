#include "client_registration.hpp"

#include "scopes.hpp"
#include "token_requests.hpp"
#include "url.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph::oauth {

namespace {

// The method we ask for at registration: a public client when the AS allows it (we cannot keep a
// secret safer than a PKCE verifier anyway), else what the AS supports.
std::string requested_auth_method(const AuthServerMetadata& as) {
    if (as.token_endpoint_auth_methods_supported.empty() || as.supports_auth_method("none")) return "none";
    if (as.supports_auth_method("client_secret_basic")) return "client_secret_basic";
    if (as.supports_auth_method("client_secret_post")) return "client_secret_post";
    return "none";
}

}  // namespace

const char* application_type(const std::string& redirect_uri) {
    auto u = parse_url(redirect_uri);
    return u && u->scheme == "http" && is_loopback_host(u->host) ? "native" : "web";
}

std::string registration_request(const OAuthConfig& config, const AuthServerMetadata& as,
                                  const std::string& redirect_uri, const std::vector<std::string>& scopes) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("client_name");
    w.String(config.client_name.c_str());
    w.Key("redirect_uris");
    w.StartArray();
    w.String(redirect_uri.c_str());
    w.EndArray();
    w.Key("grant_types");
    w.StartArray();
    w.String("authorization_code");
    w.String("refresh_token");  // SEP-2207: we want refresh tokens
    w.EndArray();
    w.Key("response_types");
    w.StartArray();
    w.String("code");
    w.EndArray();
    w.Key("token_endpoint_auth_method");
    w.String(requested_auth_method(as).c_str());
    w.Key("application_type");  // SEP-837 / OIDC Registration: what kind of redirect URI to expect
    w.String(application_type(redirect_uri));
    if (!scopes.empty()) {
        w.Key("scope");
        w.String(join_scopes(scopes).c_str());
    }
    w.EndObject();
    return buf.GetString();
}

ClientIdentity resolve_client(const OAuthConfig& config, const AuthServerMetadata& as, const TokenStore& store,
                              HttpClient& http, const std::string& redirect_uri,
                              const std::vector<std::string>& scopes) {
    ClientIdentity c;
    if (!config.client_id.empty()) {
        c.client_id = config.client_id;
        c.client_secret = config.client_secret;
        c.auth_method = choose_auth_method(as, !config.client_secret.empty(), !config.private_key_pem.empty(),
                                           config.token_endpoint_auth_method);
        c.source = "preregistered";
        return c;
    }
    if (!config.client_metadata_url.empty() && as.client_id_metadata_document_supported) {
        c.client_id = config.client_metadata_url;
        c.auth_method = config.token_endpoint_auth_method.empty() ? "none" : config.token_endpoint_auth_method;
        c.source = "cimd";
        return c;
    }
    if (auto stored = store.load_client();
        stored && stored->issuer == as.issuer && stored->redirect_uri == redirect_uri)
        return *stored;
    if (as.registration_endpoint.empty())
        throw OAuthError(FailureKind::registration_failed,
                         "authorization server " + as.issuer +
                             " offers neither dynamic client registration nor client ID metadata documents "
                             "(or no clientMetadataUrl is configured); configure oauth.clientId");

    HttpResponse r = http.post(as.registration_endpoint, "application/json",
                               registration_request(config, as, redirect_uri, scopes), {}, "registration endpoint",
                               FailureKind::registration_failed);
    if (auto e = oauth_error_in(r.body))
        throw OAuthError(FailureKind::registration_failed,
                         "registration endpoint at " + r.url + " refused the registration: " + e->error +
                             (e->description.empty() ? "" : " — " + e->description),
                         e->error);
    require_json(r, "registration endpoint", FailureKind::registration_failed);
    if (r.status < 200 || r.status >= 300)
        throw OAuthError(FailureKind::registration_failed,
                         "registration endpoint at " + r.url + " answered HTTP " + std::to_string(r.status));
    rapidjson::Document doc;
    json_bounds::parse(doc, r.body);  // require_json above: it parses
    auto str = [&](const char* name) {
        auto it = doc.FindMember(name);
        return it != doc.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString()) : std::string();
    };
    c.client_id = str("client_id");
    if (c.client_id.empty())
        throw OAuthError(FailureKind::registration_failed, "registration endpoint at " + r.url + " returned no client_id");
    c.client_secret = str("client_secret");
    c.auth_method = str("token_endpoint_auth_method");
    if (c.auth_method.empty() || (c.auth_method != "none" && c.client_secret.empty()))
        c.auth_method = choose_auth_method(as, !c.client_secret.empty(), false, {});
    if (!config.token_endpoint_auth_method.empty()) c.auth_method = config.token_endpoint_auth_method;
    c.source = "dcr";
    c.issuer = as.issuer;
    c.redirect_uri = redirect_uri;
    store.save_client(c);
    return c;
}

}  // namespace mcph::oauth
