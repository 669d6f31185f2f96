// The server's "oauth" object when it says "xaa": true (the host merges the document-level
// "xaaIdp" object into "idp"), parsed and validated at create time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::xaa {

// The enterprise identity provider, shared by every XAA server of the document.
struct IdpConfig {
    std::string issuer;
    std::string client_id;
    std::string client_secret;   // optional (public IdP clients)
    std::string token_endpoint;  // optional: else from OIDC discovery
    std::string id_token;        // optional: an id_token the application already holds
    uint16_t callback_port = 0;  // interactive login: 0 = any free port
    std::string callback_path = "/callback";
};

struct XaaConfig {
    std::string client_id;  // the client at the MCP server's authorization server
    std::string client_secret;
    IdpConfig idp;
    std::optional<std::vector<std::string>> scopes;  // override of the scope selection
    long auth_timeout_ms = 300000;
    long http_timeout_ms = 30000;
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) on a bad or incomplete config.
// Unknown members are ignored (the object is shared with the host's own keys, e.g. "xaa").
XaaConfig parse_config(std::string_view json);

}  // namespace mcph::xaa
