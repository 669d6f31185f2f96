#include "xaa_config.hpp"

#include <mcph/plugin_helper.hpp>

namespace mcph::xaa {

namespace {

using mcph::plugin::ArrayRules;
using mcph::plugin::ConfigObject;
using mcph::plugin::ConfigReader;
using mcph::plugin::StringRules;

long ms(ConfigReader& r, const char* key, long fallback) { return r.integer<long>(key, 1, 86400000, fallback); }

// The "idp" object (the host merged the document's "xaaIdp" into it).
IdpConfig read_idp(ConfigObject& v) {
    IdpConfig idp;
    idp.issuer = v.string("issuer").value_or("");
    idp.client_id = v.string("clientId").value_or("");
    idp.client_secret = v.string("clientSecret").value_or("");
    idp.token_endpoint = v.string("tokenEndpoint").value_or("");
    idp.id_token = v.string("idToken").value_or("");
    idp.callback_port = v.integer<std::uint16_t>("callbackPort", 0, 65535, idp.callback_port);
    if (std::string p = v.string("callbackPath").value_or(""); !p.empty()) {
        if (p[0] != '/' || p.find_first_of("?# ") != std::string::npos)
            v.fail("callbackPath", "must be a path like /callback");
        idp.callback_path = p;
    }
    if (idp.issuer.empty()) v.fail("issuer", "is required", mcph::plugin::ConfigErrorKind::missing, "a string");
    if (idp.client_id.empty()) v.fail("clientId", "is required", mcph::plugin::ConfigErrorKind::missing, "a string");
    return idp;
}

}  // namespace

XaaConfig parse_config(std::string_view json) {
    XaaConfig c;
    ConfigReader r(json, "xaa");  // "" is refused (not JSON): XAA cannot work without its IdP

    c.client_id = r.string("clientId").value_or("");
    c.client_secret = r.string("clientSecret").value_or("");
    c.auth_timeout_ms = ms(r, "authTimeoutMs", c.auth_timeout_ms);
    c.http_timeout_ms = ms(r, "httpTimeoutMs", c.http_timeout_ms);
    c.scopes = r.string_array("scopes", ArrayRules{/*non_empty=*/false, StringRules{/*non_empty=*/true}});
    if (c.client_id.empty())
        r.fail("clientId", "(the client at the MCP server's authorization server) is required",
               mcph::plugin::ConfigErrorKind::missing, "a string");

    std::optional<ConfigObject> idp = r.object("idp");
    if (!idp)
        r.fail("idp", "(or the document's xaaIdp) must be an object with issuer and clientId",
               mcph::plugin::ConfigErrorKind::missing, "an object");
    else
        c.idp = read_idp(*idp);
    r.throw_if_error();
    return c;
}

}  // namespace mcph::xaa
