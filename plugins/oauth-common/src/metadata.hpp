// The two metadata documents of MCP authorization, parsed: RFC 9728 protected resource
// metadata and RFC 8414 / OpenID Connect authorization server metadata.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::oauth {

struct ProtectedResourceMetadata {
    std::string url;  // where it was found
    std::string resource;
    std::vector<std::string> authorization_servers;
    std::vector<std::string> scopes_supported;
};

struct AuthServerMetadata {
    bool from_document = false;  // false: the 2025-03-26 /authorize /token /register fallback
    std::string url;             // where it was found
    std::string issuer;
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string registration_endpoint;
    std::vector<std::string> scopes_supported;
    std::vector<std::string> code_challenge_methods_supported;
    std::vector<std::string> token_endpoint_auth_methods_supported;
    std::vector<std::string> grant_types_supported;
    std::vector<std::string> dpop_signing_alg_values_supported;  // RFC 9449 §5.1
    bool client_id_metadata_document_supported = false;
    // RFC 9207: the AS promises `iss` in every authorization response, so one without it is refused.
    bool authorization_response_iss_parameter_supported = false;

    bool supports_s256() const;
    bool supports_auth_method(std::string_view method) const;  // RFC 8414 default: client_secret_basic
};

// Parse; nullopt when the body is not a JSON object. Missing members stay empty.
std::optional<ProtectedResourceMetadata> parse_protected_resource_metadata(std::string_view json);
std::optional<AuthServerMetadata> parse_auth_server_metadata(std::string_view json);

bool contains(const std::vector<std::string>& list, std::string_view value);

}  // namespace mcph::oauth
