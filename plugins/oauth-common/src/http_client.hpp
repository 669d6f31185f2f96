// Blocking HTTP for discovery, registration and token requests (libcurl easy interface, on the
// calling thread: these calls are rare and the ABI lets get_headers/handle_challenge block).
//
// Redirects are followed by hand, at most five hops, and every URL — the first and each hop — is
// put to the host's safe-fetch policy (check_fetch_url) before it is fetched, so a metadata
// document cannot walk us into a private network. The address each connection actually goes to is
// put to the same policy (as "scheme://<address>:<port>/", from libcurl's open-socket callback,
// before the connect): a DNS name that resolves — or rebinds — to 127.0.0.1 or 10.x is refused
// there. Asking the host's check_fetch_url again, rather than classifying addresses here, keeps
// one policy (the host's, which knows whether the server is local) and needs no new ABI field;
// an older host answers the address URLs with the rules it has. Bodies are capped at 1 MiB.
#pragma once

#include "errors.hpp"

#include <mcph/plugin_api.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::oauth {

using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
    long status = 0;
    std::string content_type;  // lower-case media type without parameters
    std::string body;
    std::string url;  // the URL that produced this response (after redirects)
    HeaderPairs headers;  // of the final response, names as sent; at most 100, each at most 8 KiB

    // The first header of that name (ASCII case-insensitive); "" when absent (DPoP-Nonce).
    std::string header(std::string_view name) const;
};

class HttpClient {
public:
    HttpClient(const mcph_host_services* host, std::string server_url, long timeout_ms);

    // GET, following redirects. `what` names the document in error messages; a connection
    // failure throws OAuthError(`unreachable`).
    HttpResponse get(const std::string& url, std::string_view what, FailureKind unreachable);
    // POST without following redirects (a redirected token request is an error, not a hop).
    HttpResponse post(const std::string& url, const std::string& content_type, const std::string& body,
                      const HeaderPairs& headers, std::string_view what, FailureKind unreachable);

    // Throws OAuthError(fetch_refused) unless the host's policy allows `url`.
    void check_url(const std::string& url) const;

    // The host policy's reason for refusing `url`, "" when allowed or when there is no host policy.
    std::string policy_refusal(const std::string& url) const;

    struct SocketGuard;  // the open-socket callback's state (http_client.cpp)

private:
    bool has_host_policy() const;
    HttpResponse perform(const std::string& url, const std::string* post_body, const std::string& content_type,
                         const HeaderPairs& headers, std::string_view what, FailureKind unreachable,
                         std::string* redirect_to);

    const mcph_host_services* host_;
    std::string server_url_;
    long timeout_ms_;
};

// The response body as a JSON object, or a clear error naming the endpoint, its status and
// content type (an HTML login page is the classic case). Returns the raw body on success.
void require_json(const HttpResponse& r, std::string_view what, FailureKind kind);

}  // namespace mcph::oauth
