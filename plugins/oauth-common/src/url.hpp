// URL handling on libcurl's URL API: parsing, origins, the well-known discovery URLs in the
// MCP spec's priority order, and the RFC 8707 / RFC 9728 resource comparison.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::oauth {

struct Url {
    std::string scheme;  // lower-case
    std::string host;    // lower-case; IPv6 in brackets as curl gives it
    std::string port;    // explicit or the scheme default
    std::string path;    // "/" at least
    std::string query;   // without '?'
    bool default_port() const;
    std::string origin() const;  // scheme://host[:port] (port only when not the default)
};

std::optional<Url> parse_url(std::string_view text);

// The canonical resource identifier of an MCP server URL (RFC 8707 / MCP "canonical server
// URI"): lower-case scheme and host, no fragment, no default port. Unparsable input is returned
// unchanged.
std::string canonical_resource(std::string_view server_url);

// RFC 9728 §3.3 as the MCP SDKs apply it: the metadata's `resource` must have the server's
// origin, and its path must be a prefix of the server's path on a segment boundary.
bool resource_matches(std::string_view server_url, std::string_view resource);

bool is_loopback_host(std::string_view host);
// https, or http to a loopback host (RFC 8252 §8.3 / OAuth 2.1 §1.5).
bool is_secure_endpoint(std::string_view url);

// Protected resource metadata candidates: the header's URL if any, then the path-aware
// well-known URL (when the server URL has a path), then the root one.
std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url,
                                                          std::string_view header_url);

// Authorization server metadata candidates for an issuer (MCP 2025-11-25 "Authorization Server
// Metadata Discovery"): with a path, RFC 8414 path-inserted, OIDC path-inserted, OIDC
// path-appended; without, RFC 8414 then OIDC.
std::vector<std::string> authorization_server_metadata_urls(std::string_view issuer);

// `base`'s origin + path (2025-03-26 fallback: /authorize, /token, /register).
std::string origin_join(std::string_view base_url, std::string_view path);

// Query string → decoded name/value map (first occurrence wins).
std::map<std::string, std::string> parse_query(std::string_view query);

// Appends name=value pairs to a URL that may already carry a query.
std::string append_query(std::string_view url, const std::string& encoded_pairs);

}  // namespace mcph::oauth
