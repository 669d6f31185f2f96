// Discovery: from a 401's WWW-Authenticate to the authorization server's endpoints.
//
//   1. Protected resource metadata (RFC 9728): the header's resource_metadata URL, else the
//      path-aware well-known URL, else the root one. Its `resource` must match the server URL.
//   2. Authorization server metadata (RFC 8414 / OIDC) for the first authorization server, in
//      the spec's priority order.
//   3. No protected resource metadata: the 2025-03-26 rule — the MCP server's origin is the
//      authorization server; with no metadata there either, /authorize, /token and /register
//      at that origin.
// Endpoints must be https (or loopback); PKCE S256 must be advertised when metadata exists.
#pragma once

#include "http_client.hpp"
#include "metadata.hpp"

#include <optional>
#include <string>

namespace mcph::oauth {

struct Discovery {
    std::optional<ProtectedResourceMetadata> resource_metadata;
    AuthServerMetadata server;
    std::string resource;  // the RFC 8707 `resource` value to send
};

Discovery discover(HttpClient& http, const std::string& server_url, const std::string& resource_metadata_url);

// The checks of steps 1–3 on already-parsed documents (separated for unit tests).
void check_resource(const std::string& server_url, const ProtectedResourceMetadata& prm);
void check_server(const AuthServerMetadata& as, bool need_authorization_endpoint);

}  // namespace mcph::oauth
