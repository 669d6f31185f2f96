#include "config.hpp"

#include "scopes.hpp"
#include "url.hpp"

#include <mcph/plugin_helper.hpp>

namespace mcph::oauth {

namespace {

using mcph::plugin::ArrayRules;
using mcph::plugin::ConfigReader;
using mcph::plugin::StringRules;

long ms(ConfigReader& r, const char* key, long fallback) { return r.integer<long>(key, 1, 86400000, fallback); }

// Exactly one of assertionFile (a path), assertionEnv (a variable name), assertionCommand (argv).
AssertionSourceConfig assertion_source(ConfigReader& r) {
    AssertionSourceConfig a;
    a.file = r.string("assertionFile").value_or("");
    a.env = r.string("assertionEnv").value_or("");
    a.command = r.string_array("assertionCommand", ArrayRules{/*non_empty=*/true, StringRules{/*non_empty=*/true}})
                    .value_or(std::vector<std::string>{});
    a.timeout = std::chrono::milliseconds(ms(r, "assertionTimeoutMs", static_cast<long>(a.timeout.count())));
    int given = !a.file.empty() + !a.env.empty() + !a.command.empty();
    if (given > 1) r.fail("", "give only one of assertionFile, assertionEnv and assertionCommand");
    return a;
}

// "scopes": an array of strings, or one space-separated string.
std::optional<std::vector<std::string>> read_scopes(ConfigReader& r) {
    const rapidjson::Value* v = r.value("scopes");
    if (!v) return std::nullopt;
    if (v->IsString()) return split_scopes(std::string(v->GetString(), v->GetStringLength()));
    if (v->IsArray()) return r.string_array("scopes");
    r.fail("scopes", "must be an array of strings or a space-separated string", mcph::plugin::ConfigErrorKind::wrong_type,
           "an array of strings or a string");
    return std::nullopt;
}

Grant read_grant(ConfigReader& r, const AssertionSourceConfig& assertion) {
    std::string grant = r.string("grant").value_or("");
    if (grant.empty()) grant = assertion.configured() ? "jwt_bearer" : "authorization_code";
    if (grant == "client_credentials") return Grant::client_credentials;
    if (grant == "jwt_bearer") return Grant::jwt_bearer;
    if (grant != "authorization_code")
        r.fail("grant", "must be \"authorization_code\", \"client_credentials\" or \"jwt_bearer\"");
    return Grant::authorization_code;
}

// "dpop": "auto" | true | false (RFC 9449).
DpopPolicy read_dpop(ConfigReader& r, DpopPolicy fallback) {
    const rapidjson::Value* v = r.value("dpop");
    if (!v) return fallback;
    if (v->IsBool()) return v->GetBool() ? DpopPolicy::required : DpopPolicy::off;
    if (v->IsString() && std::string_view(v->GetString(), v->GetStringLength()) == "auto") return DpopPolicy::automatic;
    r.fail("dpop", "must be \"auto\", true or false", mcph::plugin::ConfigErrorKind::wrong_type, "\"auto\", true or false");
    return fallback;
}

}  // namespace

OAuthConfig parse_config(std::string_view json) {
    OAuthConfig c;
    if (json.empty()) return c;
    ConfigReader r(json, "oauth");

    c.client_id = r.string("clientId").value_or("");
    c.client_secret = r.string("clientSecret").value_or("");
    c.client_metadata_url = r.string("clientMetadataUrl").value_or("");
    if (!c.client_metadata_url.empty()) {
        auto u = parse_url(c.client_metadata_url);
        // CIMD requires an https URL with a path (draft-ietf-oauth-client-id-metadata-document).
        if (!u || u->scheme != "https" || u->path == "/") r.fail("clientMetadataUrl", "must be an https URL with a path");
    }
    c.callback_port = r.integer<std::uint16_t>("callbackPort", 0, 65535, c.callback_port);
    if (std::string p = r.string("callbackPath").value_or(""); !p.empty()) {
        if (p[0] != '/' || p.find_first_of("?# ") != std::string::npos)
            r.fail("callbackPath", "must be a path like /callback");
        c.callback_path = p;
    }
    c.scopes = read_scopes(r);
    c.assertion = assertion_source(r);
    c.grant = read_grant(r, c.assertion);
    if (c.grant == Grant::jwt_bearer && !c.assertion.configured())
        r.fail("", "the jwt_bearer grant needs assertionFile, assertionEnv or assertionCommand");
    if (c.grant != Grant::jwt_bearer && c.assertion.configured())
        r.fail("", "assertionFile, assertionEnv and assertionCommand are for the jwt_bearer grant");

    c.private_key_pem = r.string("privateKeyPem").value_or("");
    if (std::string alg = r.string("signingAlgorithm").value_or(""); !alg.empty()) c.signing_algorithm = alg;
    if (c.signing_algorithm != "ES256" && c.signing_algorithm != "RS256")
        r.fail("signingAlgorithm", "must be ES256 or RS256");
    c.token_endpoint_auth_method = r.string("tokenEndpointAuthMethod").value_or("");
    if (!c.token_endpoint_auth_method.empty() && c.token_endpoint_auth_method != "client_secret_basic" &&
        c.token_endpoint_auth_method != "client_secret_post" && c.token_endpoint_auth_method != "none" &&
        c.token_endpoint_auth_method != "private_key_jwt")
        r.fail("tokenEndpointAuthMethod",
               "must be client_secret_basic, client_secret_post, private_key_jwt or none");
    c.auth_timeout_ms = ms(r, "authTimeoutMs", c.auth_timeout_ms);
    c.http_timeout_ms = ms(r, "httpTimeoutMs", c.http_timeout_ms);
    if (std::string n = r.string("clientName").value_or(""); !n.empty()) c.client_name = n;
    c.dpop = read_dpop(r, c.dpop);

    if (c.grant == Grant::client_credentials) {
        if (c.client_id.empty()) r.fail("", "the client_credentials grant needs clientId");
        if (c.client_secret.empty() && c.private_key_pem.empty())
            r.fail("", "the client_credentials grant needs clientSecret or privateKeyPem");
    }
    r.throw_if_error();
    return c;
}

}  // namespace mcph::oauth
