#include "xaa_config.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>

#include <rapidjson/document.h>

namespace mcph::xaa {

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "xaa config: " + what);
}

std::string optional_string(const rapidjson::Value& obj, const char* name, const char* prefix = "") {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || it->value.IsNull()) return {};
    if (!it->value.IsString()) bad(std::string(prefix) + name + " must be a string");
    return std::string(it->value.GetString(), it->value.GetStringLength());
}

long optional_ms(const rapidjson::Value& obj, const char* name, long fallback) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || it->value.IsNull()) return fallback;
    if (!it->value.IsInt64() || it->value.GetInt64() <= 0 || it->value.GetInt64() > 86400000)
        bad(std::string(name) + " must be a positive number of milliseconds");
    return static_cast<long>(it->value.GetInt64());
}

}  // namespace

XaaConfig parse_config(std::string_view json) {
    XaaConfig c;
    rapidjson::Document doc;
    if (json.empty() || !json_bounds::parse(doc, json) || !doc.IsObject()) bad("not a JSON object");

    c.client_id = optional_string(doc, "clientId");
    c.client_secret = optional_string(doc, "clientSecret");
    c.auth_timeout_ms = optional_ms(doc, "authTimeoutMs", c.auth_timeout_ms);
    c.http_timeout_ms = optional_ms(doc, "httpTimeoutMs", c.http_timeout_ms);
    if (auto it = doc.FindMember("scopes"); it != doc.MemberEnd() && !it->value.IsNull()) {
        if (!it->value.IsArray()) bad("scopes must be an array of strings");
        std::vector<std::string> scopes;
        for (const auto& s : it->value.GetArray()) {
            if (!s.IsString() || s.GetStringLength() == 0) bad("scopes must be an array of non-empty strings");
            scopes.emplace_back(s.GetString(), s.GetStringLength());
        }
        c.scopes = std::move(scopes);
    }
    if (c.client_id.empty()) bad("clientId (the client at the MCP server's authorization server) is required");

    auto idp = doc.FindMember("idp");
    if (idp == doc.MemberEnd() || !idp->value.IsObject())
        bad("idp (or the document's xaaIdp) must be an object with issuer and clientId");
    const auto& v = idp->value;
    c.idp.issuer = optional_string(v, "issuer", "idp.");
    c.idp.client_id = optional_string(v, "clientId", "idp.");
    c.idp.client_secret = optional_string(v, "clientSecret", "idp.");
    c.idp.token_endpoint = optional_string(v, "tokenEndpoint", "idp.");
    c.idp.id_token = optional_string(v, "idToken", "idp.");
    if (auto it = v.FindMember("callbackPort"); it != v.MemberEnd() && !it->value.IsNull()) {
        if (!it->value.IsInt() || it->value.GetInt() < 0 || it->value.GetInt() > 65535)
            bad("idp.callbackPort must be an integer 0..65535");
        c.idp.callback_port = static_cast<uint16_t>(it->value.GetInt());
    }
    if (std::string p = optional_string(v, "callbackPath", "idp."); !p.empty()) {
        if (p[0] != '/' || p.find_first_of("?# ") != std::string::npos) bad("idp.callbackPath must be a path like /callback");
        c.idp.callback_path = p;
    }
    if (c.idp.issuer.empty()) bad("idp.issuer is required");
    if (c.idp.client_id.empty()) bad("idp.clientId is required");
    return c;
}

}  // namespace mcph::xaa
