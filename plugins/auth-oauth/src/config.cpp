#include "config.hpp"

#include "scopes.hpp"
#include "url.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>

#include <rapidjson/document.h>

namespace mcph::oauth {

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "oauth config: " + what);
}

std::string optional_string(const rapidjson::Value& obj, const char* name) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || it->value.IsNull()) return {};
    if (!it->value.IsString()) bad(std::string(name) + " must be a string");
    return std::string(it->value.GetString(), it->value.GetStringLength());
}

long optional_ms(const rapidjson::Value& obj, const char* name, long fallback) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || it->value.IsNull()) return fallback;
    if (!it->value.IsInt64() || it->value.GetInt64() <= 0 || it->value.GetInt64() > 86400000)
        bad(std::string(name) + " must be a positive number of milliseconds");
    return static_cast<long>(it->value.GetInt64());
}

// Exactly one of assertionFile (a path), assertionEnv (a variable name), assertionCommand (argv).
AssertionSourceConfig assertion_source(const rapidjson::Value& doc) {
    AssertionSourceConfig a;
    a.file = optional_string(doc, "assertionFile");
    a.env = optional_string(doc, "assertionEnv");
    if (auto it = doc.FindMember("assertionCommand"); it != doc.MemberEnd() && !it->value.IsNull()) {
        if (!it->value.IsArray() || it->value.Empty()) bad("assertionCommand must be a non-empty array of strings (argv)");
        for (const auto& v : it->value.GetArray()) {
            if (!v.IsString() || v.GetStringLength() == 0) bad("assertionCommand must be a non-empty array of strings (argv)");
            a.command.emplace_back(v.GetString(), v.GetStringLength());
        }
    }
    a.timeout = std::chrono::milliseconds(optional_ms(doc, "assertionTimeoutMs", a.timeout.count()));
    int given = !a.file.empty() + !a.env.empty() + !a.command.empty();
    if (given > 1) bad("give only one of assertionFile, assertionEnv and assertionCommand");
    return a;
}

}  // namespace

OAuthConfig parse_config(std::string_view json) {
    OAuthConfig c;
    if (json.empty()) return c;
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, json) || !doc.IsObject()) bad("not a JSON object");

    c.client_id = optional_string(doc, "clientId");
    c.client_secret = optional_string(doc, "clientSecret");
    c.client_metadata_url = optional_string(doc, "clientMetadataUrl");
    if (!c.client_metadata_url.empty()) {
        auto u = parse_url(c.client_metadata_url);
        // CIMD requires an https URL with a path (draft-ietf-oauth-client-id-metadata-document).
        if (!u || u->scheme != "https" || u->path == "/") bad("clientMetadataUrl must be an https URL with a path");
    }
    if (auto it = doc.FindMember("callbackPort"); it != doc.MemberEnd() && !it->value.IsNull()) {
        if (!it->value.IsInt() || it->value.GetInt() < 0 || it->value.GetInt() > 65535)
            bad("callbackPort must be an integer 0..65535");
        c.callback_port = static_cast<uint16_t>(it->value.GetInt());
    }
    if (std::string p = optional_string(doc, "callbackPath"); !p.empty()) {
        if (p[0] != '/' || p.find_first_of("?# ") != std::string::npos) bad("callbackPath must be a path like /callback");
        c.callback_path = p;
    }
    if (auto it = doc.FindMember("scopes"); it != doc.MemberEnd() && !it->value.IsNull()) {
        std::vector<std::string> scopes;
        if (it->value.IsString()) {
            scopes = split_scopes(it->value.GetString());
        } else if (it->value.IsArray()) {
            for (const auto& v : it->value.GetArray()) {
                if (!v.IsString()) bad("scopes must be strings");
                scopes.emplace_back(v.GetString(), v.GetStringLength());
            }
        } else {
            bad("scopes must be an array of strings or a space-separated string");
        }
        c.scopes = std::move(scopes);
    }
    c.assertion = assertion_source(doc);
    std::string grant = optional_string(doc, "grant");
    if (grant.empty()) grant = c.assertion.configured() ? "jwt_bearer" : "authorization_code";
    if (grant == "authorization_code") c.grant = Grant::authorization_code;
    else if (grant == "client_credentials") c.grant = Grant::client_credentials;
    else if (grant == "jwt_bearer") c.grant = Grant::jwt_bearer;
    else bad("grant must be \"authorization_code\", \"client_credentials\" or \"jwt_bearer\"");
    if (c.grant == Grant::jwt_bearer && !c.assertion.configured())
        bad("the jwt_bearer grant needs assertionFile, assertionEnv or assertionCommand");
    if (c.grant != Grant::jwt_bearer && c.assertion.configured())
        bad("assertionFile, assertionEnv and assertionCommand are for the jwt_bearer grant");

    c.private_key_pem = optional_string(doc, "privateKeyPem");
    if (std::string alg = optional_string(doc, "signingAlgorithm"); !alg.empty()) c.signing_algorithm = alg;
    if (c.signing_algorithm != "ES256" && c.signing_algorithm != "RS256")
        bad("signingAlgorithm must be ES256 or RS256");
    c.token_endpoint_auth_method = optional_string(doc, "tokenEndpointAuthMethod");
    if (!c.token_endpoint_auth_method.empty() && c.token_endpoint_auth_method != "client_secret_basic" &&
        c.token_endpoint_auth_method != "client_secret_post" && c.token_endpoint_auth_method != "none" &&
        c.token_endpoint_auth_method != "private_key_jwt")
        bad("tokenEndpointAuthMethod must be client_secret_basic, client_secret_post, private_key_jwt or none");
    c.auth_timeout_ms = optional_ms(doc, "authTimeoutMs", c.auth_timeout_ms);
    c.http_timeout_ms = optional_ms(doc, "httpTimeoutMs", c.http_timeout_ms);
    if (std::string n = optional_string(doc, "clientName"); !n.empty()) c.client_name = n;
    if (auto it = doc.FindMember("dpop"); it != doc.MemberEnd() && !it->value.IsNull()) {
        if (it->value.IsBool()) c.dpop = it->value.GetBool() ? DpopPolicy::required : DpopPolicy::off;
        else if (it->value.IsString() && std::string_view(it->value.GetString()) == "auto") c.dpop = DpopPolicy::automatic;
        else bad("dpop must be \"auto\", true or false");
    }

    if (c.grant == Grant::client_credentials) {
        if (c.client_id.empty()) bad("the client_credentials grant needs clientId");
        if (c.client_secret.empty() && c.private_key_pem.empty())
            bad("the client_credentials grant needs clientSecret or privateKeyPem");
    }
    return c;
}

}  // namespace mcph::oauth
