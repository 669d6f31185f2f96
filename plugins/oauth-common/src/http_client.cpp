#include "http_client.hpp"

#include "url.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>
#include <rapidjson/document.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace mcph::oauth {

namespace {

constexpr size_t kMaxBody = 1 << 20;
constexpr int kMaxRedirects = 5;

struct EasyDeleter {
    void operator()(CURL* e) const noexcept { curl_easy_cleanup(e); }
};
struct SlistDeleter {
    void operator()(curl_slist* s) const noexcept { curl_slist_free_all(s); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

void append(HeaderList& list, const std::string& line) {
    curl_slist* grown = curl_slist_append(list.get(), line.c_str());
    if (!grown) throw std::bad_alloc();
    (void)list.release();
    list.reset(grown);
}

struct Sink {
    std::string body;
    bool overflow = false;
};

size_t on_write(char* data, size_t size, size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    size_t n = size * count;
    if (sink->body.size() + n > kMaxBody) {
        sink->overflow = true;
        return 0;  // aborts the transfer
    }
    sink->body.append(data, n);
    return n;
}

// Response headers, bounded like the body. A status line starts a new response (a 100 or a
// proxy's CONNECT answer came first): only the final response's headers are kept.
constexpr size_t kMaxHeaders = 100;
constexpr size_t kMaxHeaderLine = 8192;

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* out = static_cast<HeaderPairs*>(user);
    const size_t n = size * count;
    std::string_view line(data, n);
    if (line.substr(0, 5) == "HTTP/") {
        out->clear();
        return n;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || n > kMaxHeaderLine || out->size() >= kMaxHeaders) return n;
    auto trim = [](std::string_view v) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r' || v.back() == '\n'))
            v.remove_suffix(1);
        return v;
    };
    out->emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
    return n;
}

std::string media_type(CURL* easy) {
    char* raw = nullptr;
    if (curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &raw) != CURLE_OK || !raw) return {};
    std::string out;
    for (const char* p = raw; *p && *p != ';'; ++p)
        if (!std::isspace(static_cast<unsigned char>(*p)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    return out;
}

std::string lowercase_scheme(const std::string& url) {
    std::string out;
    for (char c : url.substr(0, url.find(':'))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_redirect(long status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// A proxy from the environment (libcurl honours these by default). Through one, the socket goes to
// the proxy and the proxy resolves the target, so the address check below has nothing to judge;
// the URL check still applies. Upper-case HTTP_PROXY is ignored by libcurl (CGI "httpoxy").
bool environment_proxy(const std::string& scheme) {
    for (const std::string& name : {scheme + "_proxy", std::string("HTTPS_PROXY"), std::string("all_proxy"),
                                    std::string("ALL_PROXY")}) {
        if (name == "HTTPS_PROXY" && scheme != "https") continue;
        const char* v = std::getenv(name.c_str());
        if (v && *v) return true;
    }
    return false;
}

// The address libcurl is about to connect to, as the URL the host's policy is asked about:
// "https://203.0.113.7:443/", "http://[::1]:8080/".
std::string address_url(const std::string& scheme, const curl_sockaddr& address) {
    char ip[INET6_ADDRSTRLEN] = {0};
    unsigned port = 0;
    if (address.family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&address.addr);
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        port = ntohs(in->sin_port);
        return scheme + "://" + ip + ":" + std::to_string(port) + "/";
    }
    if (address.family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address.addr);
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        port = ntohs(in6->sin6_port);
        return scheme + "://[" + std::string(ip) + "]:" + std::to_string(port) + "/";
    }
    return {};
}

}  // namespace

// What the open-socket callback needs: the policy to ask, and where to leave a refusal.
struct HttpClient::SocketGuard {
    const HttpClient* client;
    std::string scheme;
    std::string refusal;  // the last address the policy refused, with its reason
};

namespace {

// CURLOPT_OPENSOCKETFUNCTION: runs for every address libcurl tries, after resolving and before
// connect — the address checked is the address connected, so a name that resolves to 127.0.0.1
// (or re-resolves there after the URL was checked: DNS rebinding) never gets a SYN.
curl_socket_t open_checked_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
    auto* guard = static_cast<HttpClient::SocketGuard*>(user);
    if (purpose == CURLSOCKTYPE_IPCXN) {
        const std::string target = address_url(guard->scheme, *address);
        std::string why = target.empty() ? "not an IP address" : guard->client->policy_refusal(target);
        if (!why.empty()) {
            guard->refusal = target + ": " + why;
            return CURL_SOCKET_BAD;  // libcurl moves on to the next address, if any
        }
    }
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace

HttpClient::HttpClient(const mcph_host_services* host, std::string server_url, long timeout_ms)
    : host_(host), server_url_(std::move(server_url)), timeout_ms_(timeout_ms) {}

bool HttpClient::has_host_policy() const {
    return host_ && host_->struct_size > offsetof(mcph_host_services, check_fetch_url) && host_->check_fetch_url;
}

std::string HttpClient::policy_refusal(const std::string& url) const {
    if (!has_host_policy()) return {};
    mcph_error err = mcph::plugin::make_error();
    if (host_->check_fetch_url(host_->host_data, mcph::plugin::str(url), mcph::plugin::str(server_url_), &err) == MCPH_OK)
        return {};
    return err.message[0] ? err.message : "refused by the host's fetch policy";
}

void HttpClient::check_url(const std::string& url) const {
    if (has_host_policy()) {
        std::string why = policy_refusal(url);
        if (!why.empty()) throw OAuthError(FailureKind::fetch_refused, "refused to fetch " + url + ": " + why);
        return;
    }
    // No host policy: still never leave https except for loopback.
    if (!is_secure_endpoint(url)) throw OAuthError(FailureKind::fetch_refused, "refused to fetch non-https " + url);
}

HttpResponse HttpClient::get(const std::string& url, std::string_view what, FailureKind unreachable) {
    std::string current = url;
    for (int hop = 0; hop <= kMaxRedirects; ++hop) {
        std::string next;
        HttpResponse r = perform(current, nullptr, {}, {}, what, unreachable, &next);
        if (!is_redirect(r.status)) return r;
        if (next.empty()) return r;  // a redirect without Location: let the caller judge the status
        current = next;
    }
    throw OAuthError(unreachable, std::string(what) + " at " + url + ": more than 5 redirects");
}

HttpResponse HttpClient::post(const std::string& url, const std::string& content_type, const std::string& body,
                              const HeaderPairs& headers, std::string_view what, FailureKind unreachable) {
    return perform(url, &body, content_type, headers, what, unreachable, nullptr);
}

HttpResponse HttpClient::perform(const std::string& url, const std::string* post_body, const std::string& content_type,
                                 const HeaderPairs& headers, std::string_view what, FailureKind unreachable,
                                 std::string* redirect_to) {
    check_url(url);
    EasyHandle easy(curl_easy_init());
    if (!easy) throw std::bad_alloc();
    CURL* e = easy.get();
    Sink sink;
    char errbuf[CURL_ERROR_SIZE] = {0};
    HeaderList list;
    append(list, "Accept: application/json");
    for (const auto& [name, value] : headers) append(list, name + ": " + value);
    if (post_body) {
        append(list, "Content-Type: " + content_type);
        append(list, "Expect:");  // no 100-continue round trip
    }
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);  // hops are checked one by one above
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms_);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms_ < 10000 ? timeout_ms_ : 10000L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "mcph-auth-oauth/0.1");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &sink);
    HeaderPairs response_headers;
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &response_headers);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    SocketGuard guard{this, lowercase_scheme(url), {}};
    if (has_host_policy() && !environment_proxy(guard.scheme)) {
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_checked_socket);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &guard);
    }
    if (post_body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, post_body->c_str());
    }
    CURLcode rc = curl_easy_perform(e);
    if (sink.overflow) throw OAuthError(FailureKind::metadata_invalid, std::string(what) + " at " + url + " exceeds 1 MiB");
    if (rc != CURLE_OK && !guard.refusal.empty())
        throw OAuthError(FailureKind::fetch_refused,
                         std::string(what) + " at " + url + ": refused to connect to " + guard.refusal);
    if (rc != CURLE_OK) {
        std::string detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        throw OAuthError(unreachable, std::string(what) + " at " + url + " is unreachable: " + detail);
    }
    HttpResponse r;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
    r.content_type = media_type(e);
    r.body = std::move(sink.body);
    r.url = url;
    r.headers = std::move(response_headers);
    if (redirect_to && is_redirect(r.status)) {
        char* next = nullptr;  // libcurl resolves a relative Location against the request URL
        if (curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &next) == CURLE_OK && next) *redirect_to = next;
    }
    return r;
}

std::string HttpResponse::header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
        if (n.size() != name.size()) continue;
        bool same = true;
        for (size_t i = 0; i < n.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(n[i])) == std::tolower(static_cast<unsigned char>(name[i]));
        if (same) return v;
    }
    return {};
}

void require_json(const HttpResponse& r, std::string_view what, FailureKind kind) {
    rapidjson::Document doc;
    if (json_bounds::parse(doc, r.body) && doc.IsObject()) return;
    std::string type = r.content_type.empty() ? "no content type" : r.content_type;
    throw OAuthError(kind, std::string(what) + " at " + r.url + " answered HTTP " + std::to_string(r.status) + " with " +
                               type + " instead of a JSON object");
}

}  // namespace mcph::oauth
