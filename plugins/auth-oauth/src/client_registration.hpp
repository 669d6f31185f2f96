// Who we are to the authorization server, in the order the MCP spec and our config imply:
//   1. pre-registered: config clientId (+ clientSecret / privateKeyPem);
//   2. a client ID metadata document: config clientMetadataUrl, when the AS advertises
//      client_id_metadata_document_supported;
//   3. a client registered earlier by us (secret store), if it fits this AS and redirect URI;
//   4. dynamic client registration (RFC 7591) at registration_endpoint, persisted.
#pragma once

#include "config.hpp"
#include "http_client.hpp"
#include "metadata.hpp"
#include "token_store.hpp"

#include <string>
#include <vector>

namespace mcph::oauth {

ClientIdentity resolve_client(const OAuthConfig& config, const AuthServerMetadata& as, const TokenStore& store,
                              HttpClient& http, const std::string& redirect_uri,
                              const std::vector<std::string>& scopes);

// SEP-837 `application_type`: "native" for an http loopback redirect URI (RFC 8252: an app on
// this device), "web" otherwise.
const char* application_type(const std::string& redirect_uri);

// The RFC 7591 registration body we send (separate for tests).
std::string registration_request(const OAuthConfig& config, const AuthServerMetadata& as,
                                 const std::string& redirect_uri, const std::vector<std::string>& scopes);

}  // namespace mcph::oauth
