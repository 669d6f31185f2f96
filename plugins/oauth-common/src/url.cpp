#include "url.hpp"

#include "encoding.hpp"

#include <curl/curl.h>

#include <cctype>
#include <memory>

namespace mcph::oauth {

namespace {

struct UrlDeleter {
    void operator()(CURLU* u) const noexcept { curl_url_cleanup(u); }
};
struct CurlFree {
    void operator()(char* p) const noexcept { curl_free(p); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
    char* raw = nullptr;
    if (curl_url_get(u, which, &raw, flags) != CURLUE_OK || !raw) return {};
    std::unique_ptr<char, CurlFree> owned(raw);
    return std::string(raw);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string default_port_for(const std::string& scheme) {
    if (scheme == "https") return "443";
    if (scheme == "http") return "80";
    return {};
}

std::string with_trailing_slash(std::string p) {
    if (p.empty() || p.back() != '/') p += '/';
    return p;
}

}  // namespace

bool Url::default_port() const { return port == default_port_for(scheme); }

std::string Url::origin() const {
    std::string out = scheme + "://" + host;
    if (!default_port()) out += ":" + port;
    return out;
}

std::optional<Url> parse_url(std::string_view text) {
    UrlHandle u(curl_url());
    if (!u) return std::nullopt;
    std::string s(text);
    if (curl_url_set(u.get(), CURLUPART_URL, s.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) return std::nullopt;
    Url out;
    out.scheme = lower(part(u.get(), CURLUPART_SCHEME));
    out.host = lower(part(u.get(), CURLUPART_HOST));
    out.port = part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
    out.path = part(u.get(), CURLUPART_PATH);
    if (out.path.empty()) out.path = "/";
    out.query = part(u.get(), CURLUPART_QUERY);
    if (out.scheme.empty() || out.host.empty()) return std::nullopt;
    return out;
}

std::string canonical_resource(std::string_view server_url) {
    auto u = parse_url(server_url);
    if (!u) return std::string(server_url);
    std::string out = u->origin();
    // "https://h" and "https://h/" name the same resource; keep the form without the lone slash.
    if (u->path != "/") out += u->path;
    if (!u->query.empty()) out += "?" + u->query;
    return out;
}

bool resource_matches(std::string_view server_url, std::string_view resource) {
    auto server = parse_url(server_url);
    auto res = parse_url(resource);
    if (!server || !res) return false;
    if (server->origin() != res->origin()) return false;
    return with_trailing_slash(server->path).rfind(with_trailing_slash(res->path), 0) == 0;
}

bool is_loopback_host(std::string_view host_in) {
    std::string host = lower(std::string(host_in));
    if (host == "localhost" || host == "[::1]" || host == "::1") return true;
    if (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0) return true;
    return host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string::npos;
}

bool is_secure_endpoint(std::string_view url) {
    auto u = parse_url(url);
    if (!u) return false;
    if (u->scheme == "https") return true;
    return u->scheme == "http" && is_loopback_host(u->host);
}

std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url,
                                                          std::string_view header_url) {
    std::vector<std::string> out;
    if (!header_url.empty()) out.emplace_back(header_url);
    auto u = parse_url(server_url);
    if (!u) return out;
    std::string path = u->path;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path != "/") out.push_back(u->origin() + "/.well-known/oauth-protected-resource" + path);
    out.push_back(u->origin() + "/.well-known/oauth-protected-resource");
    return out;
}

std::vector<std::string> authorization_server_metadata_urls(std::string_view issuer) {
    std::vector<std::string> out;
    auto u = parse_url(issuer);
    if (!u) return out;
    std::string path = u->path;
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::string origin = u->origin();
    if (path.empty()) {
        out.push_back(origin + "/.well-known/oauth-authorization-server");
        out.push_back(origin + "/.well-known/openid-configuration");
    } else {
        out.push_back(origin + "/.well-known/oauth-authorization-server" + path);
        out.push_back(origin + "/.well-known/openid-configuration" + path);
        out.push_back(origin + path + "/.well-known/openid-configuration");
    }
    return out;
}

std::string origin_join(std::string_view base_url, std::string_view path) {
    auto u = parse_url(base_url);
    if (!u) return std::string(path);
    return u->origin() + std::string(path);
}

std::map<std::string, std::string> parse_query(std::string_view query) {
    std::map<std::string, std::string> out;
    size_t i = 0;
    while (i <= query.size()) {
        size_t amp = query.find('&', i);
        if (amp == std::string_view::npos) amp = query.size();
        std::string_view pair = query.substr(i, amp - i);
        if (!pair.empty()) {
            size_t eq = pair.find('=');
            std::string name = form_decode(pair.substr(0, eq));
            std::string value = eq == std::string_view::npos ? std::string() : form_decode(pair.substr(eq + 1));
            out.emplace(std::move(name), std::move(value));
        }
        i = amp + 1;
    }
    return out;
}

std::string append_query(std::string_view url, const std::string& encoded_pairs) {
    std::string out(url);
    size_t hash = out.find('#');
    if (hash != std::string::npos) out.resize(hash);
    if (encoded_pairs.empty()) return out;
    if (out.find('?') == std::string::npos) out += '?';
    else if (out.back() != '?' && out.back() != '&') out += '&';
    return out + encoded_pairs;
}

}  // namespace mcph::oauth
