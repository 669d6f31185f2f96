#include "config/remote_fetch.hpp"

#include "config/atomic_write.hpp"
#include "config/file_trust.hpp"
#include "json/json_access.hpp"
#include "plugins/fetch_policy.hpp"
#include "tools/sha256.hpp"
#include "url/redact.hpp"

#include <mcph/error.hpp>

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace mcph::config {
namespace {

using Easy = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using Headers = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Body {
    std::string text;
    std::size_t max_bytes = 0;
    bool too_large = false;
};

size_t on_data(char* data, size_t size, size_t count, void* user) {
    auto* body = static_cast<Body*>(user);
    const size_t n = size * count;
    if (body->text.size() + n > body->max_bytes) {
        body->too_large = true;
        return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    body->text.append(data, n);
    return n;
}

template <class T>
void setopt(CURL* e, CURLoption option, T value) {
    curl_easy_setopt(e, option, value);
}

[[noreturn]] void fail(const FetchRequest& r, ErrorKind kind, const std::string& why) {
    throw Error(kind, r.what + " (" + url::redact_url(r.url) + "): " + why);
}

}  // namespace

std::string fetch_document(const FetchRequest& request) {
    // The endpoint is the user's or the administrator's own choice, so a private or loopback
    // address is theirs to name (the URL stands for "the server" here); the scheme rule still holds.
    if (std::string refused = plugins::check_fetch_url(request.url, request.url); !refused.empty())
        fail(request, ErrorKind::Usage, refused);
    global_init();
    Easy easy(curl_easy_init(), curl_easy_cleanup);
    if (!easy) fail(request, ErrorKind::Connection, "cannot create an HTTP request");
    CURL* e = easy.get();
    Body body;
    body.max_bytes = request.max_bytes;
    Headers headers(nullptr, curl_slist_free_all);
    auto add_header = [&](const std::string& line) {
        curl_slist* head = curl_slist_append(headers.get(), line.c_str());  // the same head, or null on failure
        if (!head) fail(request, ErrorKind::Connection, "cannot build the request headers");
        (void)headers.release();
        headers.reset(head);
    };
    for (const auto& [name, value] : request.headers) {
        // A line break would start a header (or a request) of its own.
        if (name.empty() || (name + value).find_first_of(std::string("\r\n\0", 3)) != std::string::npos)
            fail(request, ErrorKind::Usage, "header '" + name + "' has an empty name or a line break");
        add_header(name + ": " + value);
    }
    add_header("Accept: application/json");
    setopt(e, CURLOPT_URL, request.url.c_str());
    setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
    setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    setopt(e, CURLOPT_NOSIGNAL, 1L);
    setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
    setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.timeout.count()));
    setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_bytes));
    setopt(e, CURLOPT_HTTPHEADER, headers.get());
    setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    setopt(e, CURLOPT_WRITEDATA, &body);
    setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // any encoding libcurl decodes; the cap is on the decoded body
    const CURLcode rc = curl_easy_perform(e);
    if (body.too_large || rc == CURLE_FILESIZE_EXCEEDED)
        fail(request, ErrorKind::Connection, "the answer is larger than the " + std::to_string(request.max_bytes) + "-byte limit");
    if (rc == CURLE_OPERATION_TIMEDOUT)
        fail(request, ErrorKind::Connection, "no complete answer within the " + std::to_string(request.timeout.count()) +
                                                 " ms timeout");
    if (rc != CURLE_OK) fail(request, ErrorKind::Connection, curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
        fail(request, ErrorKind::Connection,
             "HTTP status " + std::to_string(status) + (status >= 300 && status < 400 ? " (redirects are not followed)" : ""));
    return std::move(body.text);
}

std::map<std::string, std::string> parse_header_map(const JsonValue& value, const std::string& origin, const std::string& field) {
    if (!value.IsObject()) throw Error(ErrorKind::Usage, origin + ": " + field + " must be an object of header names to strings");
    std::map<std::string, std::string> out;
    for (const auto& m : value.GetObject()) {
        const std::string name(json::view(m.name));
        if (!m.value.IsString()) throw Error(ErrorKind::Usage, origin + ": " + field + "." + name + " must be a string");
        const std::string text(json::view(m.value));
        if (name.empty() || (name + text).find_first_of(std::string("\r\n\0", 3)) != std::string::npos)
            throw Error(ErrorKind::Usage, origin + ": " + field + " has a header with an empty name or a line break");
        out[name] = text;
    }
    return out;
}

std::chrono::milliseconds parse_timeout_ms(const JsonValue& value, const std::string& origin, const std::string& field) {
    constexpr int64_t kMin = 100, kMax = 60000;
    if (!value.IsInt64() || value.GetInt64() < kMin || value.GetInt64() > kMax)
        throw Error(ErrorKind::Usage, origin + ": " + field + " must be a whole number of milliseconds from " +
                                          std::to_string(kMin) + " to " + std::to_string(kMax));
    return std::chrono::milliseconds(value.GetInt64());
}

std::string parse_endpoint_url(const JsonValue& value, const std::string& origin, const std::string& field) {
    if (!value.IsString() || value.GetStringLength() == 0) throw Error(ErrorKind::Usage, origin + ": " + field + " must be a non-empty URL");
    std::string out(json::view(value));
    if (std::string refused = plugins::check_fetch_url(out, out); !refused.empty())
        throw Error(ErrorKind::Usage, origin + ": " + field + ": " + refused);
    return out;
}

std::filesystem::path cache_file_for(const std::filesystem::path& config_home, const std::string& kind, const std::string& url) {
    return config_home / "cache" / (kind + "-" + tools::sha256_hex(url).substr(0, 16) + ".json");
}

void write_cache(const std::filesystem::path& file, const std::string& body) { write_file_atomically(file, body, 0600); }

std::optional<std::string> read_cache(const std::filesystem::path& file) {
    return read_trusted_file(file, TrustRule{Owner::CurrentUser, false});
}

}  // namespace mcph::config
