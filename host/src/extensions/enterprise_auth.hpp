// The Enterprise-Managed Authorization extension (io.modelcontextprotocol/enterprise-managed-
// authorization, SEP-990 in ext-auth), client side: only its declaration. The flow itself (the
// IdP's id_token exchanged for an ID-JAG, the ID-JAG for an access token) is the "xaa" auth
// plugin's; the host declares the extension for exactly the servers configured with that backend,
// so a server is never told the client can do enterprise auth when it would not.
#pragma once

#include "config/server_config.hpp"

#include <mcph/json.hpp>

namespace mcph::extensions {

// The extension's identifier: the key under the client capabilities' "extensions" (the
// initialize request's capabilities in the legacy era, every request's
// _meta["io.modelcontextprotocol/clientCapabilities"] in the 2026 era).
inline constexpr const char* kEnterpriseAuthExtension = "io.modelcontextprotocol/enterprise-managed-authorization";

// {"io.modelcontextprotocol/enterprise-managed-authorization":{}} for a server whose auth backend
// is "xaa", {} otherwise; merged into the client capabilities' "extensions" object.
Json enterprise_auth_client_extensions(const config::ServerConfig& server);

}  // namespace mcph::extensions
