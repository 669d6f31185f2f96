#include "endpoint_url.hpp"

#include "curl_handles.hpp"

#include <strings.h>

#include <new>

namespace mcph::sse {
namespace {

using mcph::http::UrlHandle;

// One component of a parsed URL ("" when absent).
std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
    char* raw = nullptr;
    if (curl_url_get(u, which, &raw, flags) != CURLUE_OK || !raw) return {};
    std::string out(raw);
    curl_free(raw);
    return out;
}

UrlHandle new_url() {
    UrlHandle u(curl_url());
    if (!u) throw std::bad_alloc();
    return u;
}

bool has_forbidden_bytes(std::string_view s) {
    return s.find_first_of(std::string_view("\0\r\n \t", 5)) != std::string_view::npos;
}

bool is_http_scheme(const std::string& scheme) {
    return strcasecmp(scheme.c_str(), "http") == 0 || strcasecmp(scheme.c_str(), "https") == 0;
}

struct Origin {
    std::string scheme, host, port;
    bool operator==(const Origin& o) const {
        return strcasecmp(scheme.c_str(), o.scheme.c_str()) == 0 && strcasecmp(host.c_str(), o.host.c_str()) == 0 &&
               port == o.port;
    }
    std::string text() const { return scheme + "://" + host + ":" + port; }
};

Origin origin_of(CURLU* u) {
    return Origin{part(u, CURLUPART_SCHEME), part(u, CURLUPART_HOST), part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT)};
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::string check_http_url(const std::string& url) {
    UrlHandle u = new_url();
    if (has_forbidden_bytes(url) || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        return "is not a valid URL: " + url;
    std::string scheme = part(u.get(), CURLUPART_SCHEME);
    if (!is_http_scheme(scheme)) return "must use http or https, not '" + scheme + "'";
    if (part(u.get(), CURLUPART_HOST).empty()) return "needs a host: " + url;
    return {};
}

ResolvedEndpoint resolve_endpoint(const std::string& base, std::string_view reference) {
    ResolvedEndpoint out;
    std::string ref(trim(reference));
    if (ref.empty()) {
        out.error = "the endpoint event is empty";
        return out;
    }
    UrlHandle b = new_url();
    if (curl_url_set(b.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK) {
        out.error = "the SSE URL cannot be parsed: " + base;
        return out;
    }
    Origin expected = origin_of(b.get());
    // Setting a URL on a handle that already holds one resolves a relative reference against it
    // (RFC 3986 section 5), exactly what a browser does with new URL(ref, base).
    UrlHandle e(curl_url_dup(b.get()));
    if (!e) throw std::bad_alloc();
    if (has_forbidden_bytes(ref) || curl_url_set(e.get(), CURLUPART_URL, ref.c_str(), 0) != CURLUE_OK) {
        out.error = "the endpoint '" + ref + "' is not a valid URL";
        return out;
    }
    Origin got = origin_of(e.get());
    if (!(got == expected)) {
        out.error = "refusing the endpoint '" + ref + "': its origin " + got.text() +
                    " differs from the SSE URL's origin " + expected.text();
        return out;
    }
    out.url = part(e.get(), CURLUPART_URL);
    if (out.url.empty()) out.error = "the endpoint '" + ref + "' cannot be resolved";
    return out;
}

}  // namespace mcph::sse
