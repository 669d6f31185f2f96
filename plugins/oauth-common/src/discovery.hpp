// Discovery: from a 401's WWW-Authenticate to the authorization server's endpoints.
//
//   1. Protected resource metadata (RFC 9728): the header's resource_metadata URL, else the
//      path-aware well-known URL, else the root one. It must have a `resource`, and that must
//      match the server URL.
//   2. The issuer is recorded: the PRM's first `authorization_servers` entry, or (no PRM, the
//      2025-03-26 rule) the MCP server's origin. Authorization server metadata (RFC 8414 / OIDC)
//      for it, in the spec's priority order; its `issuer` must equal the recorded one exactly.
//   3. Only when there is no PRM and no metadata: /authorize, /token and /register at the
//      origin (2025-03-26). A PRM-named AS without metadata is an error.
// Endpoints must be https (or loopback); PKCE S256 must be advertised when metadata exists.
#pragma once

#include "http_client.hpp"
#include "metadata.hpp"

#include <optional>
#include <string>

namespace mcph::oauth {

struct Discovery {
    std::optional<ProtectedResourceMetadata> resource_metadata;
    std::string issuer;  // recorded before any AS document was read; server.issuer equals it
    AuthServerMetadata server;
    std::string resource;  // the RFC 8707 `resource` value to send
};

Discovery discover(HttpClient& http, const std::string& server_url, const std::string& resource_metadata_url);

// Step 1 alone (checked), and the issuer step 2 would record from its result: lets a caller
// holding tokens notice that the resource now names another authorization server.
std::optional<ProtectedResourceMetadata> discover_resource(HttpClient& http, const std::string& server_url,
                                                           const std::string& resource_metadata_url);
std::string chosen_issuer(const std::optional<ProtectedResourceMetadata>& prm, const std::string& server_url);

// The checks of steps 1–3 on already-parsed documents (separated for unit tests).
void check_resource(const std::string& server_url, const ProtectedResourceMetadata& prm);
void check_server(const AuthServerMetadata& as, bool need_authorization_endpoint);
void check_issuer(const std::string& expected_issuer, const AuthServerMetadata& as);

}  // namespace mcph::oauth
