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

// RFC 8414 §3.3: the document's `issuer` must be the very string the well-known URL was built
// from. A document claiming another issuer (a loopback AS saying it is accounts.google.com) is
// refused outright, not skipped: nothing in it may be used, and trying the next candidate would
// only hand the same origin a second chance. The claimed value is not echoed: it is the
// attacker's text.
std::optional<AuthServerMetadata> find_server_metadata(HttpClient& http, const std::string& issuer) {
    std::string notes;
    for (const auto& url : authorization_server_metadata_urls(issuer)) {
        auto r = fetch_document(http, url, "authorization server metadata", notes);
        if (!r) continue;
        auto as = parse_auth_server_metadata(r->body);
        if (!as) continue;
        as->url = r->url;
        check_issuer(issuer, *as);
        return as;
    }
    return std::nullopt;
}

}  // namespace

void check_issuer(const std::string& expected_issuer, const AuthServerMetadata& as) {
    if (as.issuer == expected_issuer) return;  // exact: no case folding, no trailing-slash games
    throw OAuthError(FailureKind::metadata_invalid,
                     "authorization server metadata at " + as.url +
                         (as.issuer.empty() ? std::string(" has no issuer") : std::string(" claims a different issuer")) +
                         " than " + expected_issuer + ", the issuer it was looked up for (RFC 8414 §3.3); refused");
}

void check_resource(const std::string& server_url, const ProtectedResourceMetadata& prm) {
    // RFC 9728 §3.3 requires `resource`; without it the document binds itself to nothing.
    if (prm.resource.empty())
        throw OAuthError(FailureKind::resource_mismatch,
                         "protected resource metadata at " + prm.url + " has no resource (RFC 9728 §3.3); refused");
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

std::string chosen_issuer(const std::optional<ProtectedResourceMetadata>& prm, const std::string& server_url) {
    if (prm && !prm->authorization_servers.empty()) return prm->authorization_servers[0];
    return origin_join(server_url, "");  // 2025-03-26: the server's origin
}

std::optional<ProtectedResourceMetadata> discover_resource(HttpClient& http, const std::string& server_url,
                                                           const std::string& resource_metadata_url) {
    auto prm = find_resource_metadata(http, server_url, resource_metadata_url);
    if (prm) check_resource(server_url, *prm);
    return prm;
}

Discovery discover(HttpClient& http, const std::string& server_url, const std::string& resource_metadata_url) {
    Discovery d;
    d.resource_metadata = discover_resource(http, server_url, resource_metadata_url);
    d.resource = d.resource_metadata ? d.resource_metadata->resource : canonical_resource(server_url);
    d.issuer = chosen_issuer(d.resource_metadata, server_url);
    auto as = find_server_metadata(http, d.issuer);
    if (as) {
        d.server = std::move(*as);
    } else if (d.resource_metadata) {
        // A PRM named this AS: it must describe itself. Guessing /authorize and /token would also
        // skip the PKCE S256 check, which only metadata can satisfy.
        throw OAuthError(FailureKind::metadata_unreachable,
                         "authorization server " + d.issuer + " (named by the protected resource metadata at " +
                             d.resource_metadata->url + ") serves no authorization server metadata");
    } else {
        // No metadata anywhere: the 2025-03-26 default endpoints at the server's origin.
        d.server.issuer = d.issuer;
        d.server.url = d.issuer;
        d.server.authorization_endpoint = origin_join(d.issuer, "/authorize");
        d.server.token_endpoint = origin_join(d.issuer, "/token");
        d.server.registration_endpoint = origin_join(d.issuer, "/register");
    }
    return d;
}

}  // namespace mcph::oauth
