#include "discovery.hpp"

#include "url.hpp"

namespace mcph::oauth {

namespace {

// 2xx with a JSON object: the document. 4xx/5xx: try the next candidate. Anything else (HTML
// with 200, say) is also "not here" for discovery, but remembered for the error message.
std::optional<HttpResponse> fetch_document(HttpClient& http, const std::string& url, std::string_view what,
                                           std::string& notes) {
    HttpResponse r = http.get(url, what, FailureKind::metadata_unreachable);
    if (r.status >= 200 && r.status < 300) {
        try {
            require_json(r, what, FailureKind::metadata_invalid);
            return r;
        } catch (const OAuthError& e) {
            notes += std::string(notes.empty() ? "" : "; ") + e.what();
            return std::nullopt;
        }
    }
    notes += std::string(notes.empty() ? "" : "; ") + url + " → HTTP " + std::to_string(r.status);
    return std::nullopt;
}

std::optional<ProtectedResourceMetadata> find_resource_metadata(HttpClient& http, const std::string& server_url,
                                                                const std::string& header_url) {
    std::string notes;
    for (const auto& url : protected_resource_metadata_urls(server_url, header_url)) {
        auto r = fetch_document(http, url, "protected resource metadata", notes);
        if (!r) continue;
        auto prm = parse_protected_resource_metadata(r->body);
        if (!prm) continue;
        prm->url = r->url;
        return prm;
    }
    return std::nullopt;
}

std::optional<AuthServerMetadata> find_server_metadata(HttpClient& http, const std::string& issuer) {
    std::string notes;
    for (const auto& url : authorization_server_metadata_urls(issuer)) {
        auto r = fetch_document(http, url, "authorization server metadata", notes);
        if (!r) continue;
        auto as = parse_auth_server_metadata(r->body);
        if (!as) continue;
        as->url = r->url;
        if (as->issuer.empty()) as->issuer = issuer;
        return as;
    }
    return std::nullopt;
}

}  // namespace

void check_resource(const std::string& server_url, const ProtectedResourceMetadata& prm) {
    if (prm.resource.empty()) return;  // RFC 9728 requires it, but absence names no other resource
    if (!resource_matches(server_url, prm.resource))
        throw OAuthError(FailureKind::resource_mismatch, "protected resource metadata at " + prm.url +
                                                             " is for resource " + prm.resource + ", not " +
                                                             server_url);
}

void check_server(const AuthServerMetadata& as, bool need_authorization_endpoint) {
    if (as.token_endpoint.empty())
        throw OAuthError(FailureKind::metadata_invalid, "authorization server metadata at " + as.url +
                                                            " has no token_endpoint");
    if (need_authorization_endpoint && as.authorization_endpoint.empty())
        throw OAuthError(FailureKind::metadata_invalid, "authorization server metadata at " + as.url +
                                                            " has no authorization_endpoint");
    for (const std::string* ep : {&as.authorization_endpoint, &as.token_endpoint, &as.registration_endpoint})
        if (!ep->empty() && !is_secure_endpoint(*ep))
            throw OAuthError(FailureKind::insecure_endpoint,
                             "authorization server endpoint " + *ep + " is neither https nor loopback");
    // MCP 2025-11-25: without S256 in the metadata, PKCE cannot be relied on: refuse.
    if (as.from_document && need_authorization_endpoint && !as.supports_s256())
        throw OAuthError(FailureKind::pkce_unsupported, "authorization server " + as.issuer +
                                                            " does not advertise PKCE S256 "
                                                            "(code_challenge_methods_supported)");
}

Discovery discover(HttpClient& http, const std::string& server_url, const std::string& resource_metadata_url) {
    Discovery d;
    d.resource_metadata = find_resource_metadata(http, server_url, resource_metadata_url);
    std::string issuer;
    if (d.resource_metadata) {
        check_resource(server_url, *d.resource_metadata);
        d.resource = d.resource_metadata->resource.empty() ? canonical_resource(server_url)
                                                           : d.resource_metadata->resource;
        if (!d.resource_metadata->authorization_servers.empty()) issuer = d.resource_metadata->authorization_servers[0];
    } else {
        d.resource = canonical_resource(server_url);
    }
    if (issuer.empty()) issuer = origin_join(server_url, "");  // 2025-03-26: the server's origin
    auto as = find_server_metadata(http, issuer);
    if (as) {
        d.server = std::move(*as);
    } else {
        // No metadata anywhere: the 2025-03-26 default endpoints at the issuer's origin.
        d.server.issuer = issuer;
        d.server.url = issuer;
        d.server.authorization_endpoint = origin_join(issuer, "/authorize");
        d.server.token_endpoint = origin_join(issuer, "/token");
        d.server.registration_endpoint = origin_join(issuer, "/register");
    }
    return d;
}

}  // namespace mcph::oauth
