// URL work for the legacy SSE transport, all through libcurl's URL API (curl_url), never by hand:
// validating the configured URL, resolving the `endpoint` event against it, and the same-origin
// rule that keeps a server from steering our POSTs (and the auth headers on them) elsewhere.
#pragma once

#include <string>
#include <string_view>

namespace mcph::sse {

// "" when `url` is an absolute http(s) URL with a host; otherwise why not ("is not a valid URL: x").
std::string check_http_url(const std::string& url);

struct ResolvedEndpoint {
    std::string url;    // absolute, normalised by libcurl; empty on error
    std::string error;  // why the endpoint is refused; empty on success
};

// Resolves the data of an `endpoint` event (absolute, or relative to the SSE URL `base`) and
// refuses it unless it has the same origin as `base`: scheme, host and port (default ports made
// explicit, so http://h/ and http://h:80/ agree).
ResolvedEndpoint resolve_endpoint(const std::string& base, std::string_view reference);

}  // namespace mcph::sse
