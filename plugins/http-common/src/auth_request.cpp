#include "auth_request.hpp"

#include <string_view>

namespace mcph::http {
namespace {

std::string trimmed(const char* value) {
    std::string_view v(value ? value : "");
    const size_t first = v.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const size_t last = v.find_last_not_of(" \t\r\n");
    return std::string(v.substr(first, last - first + 1));
}

}  // namespace

mcph::plugin::HookRequest auth_request(std::string method, std::string url) {
    mcph::plugin::HookRequest r;
    r.method = std::move(method);
    r.url = std::move(url);
    return r;
}

// curl_easy_nextheader walks the last response's headers in order (request -1: after redirects);
// every WWW-Authenticate line is kept, since a server may send Bearer and DPoP challenges apart.
mcph::plugin::HookRequest auth_challenge_request(CURL* easy, std::string method, std::string url, long status) {
    mcph::plugin::HookRequest r = auth_request(std::move(method), std::move(url));
    r.http_status = static_cast<int>(status);
    size_t bytes = 0;
    for (curl_header* h = curl_easy_nextheader(easy, CURLH_HEADER, -1, nullptr); h;
         h = curl_easy_nextheader(easy, CURLH_HEADER, -1, h)) {
        std::string name = h->name ? h->name : "";
        std::string value = trimmed(h->value);
        bytes += name.size() + value.size();
        if (r.response_headers.size() >= kMaxAuthHeaders || bytes > kMaxAuthHeaderBytes) break;
        if (curl_strequal(name.c_str(), "WWW-Authenticate") && !value.empty())
            r.www_authenticate += (r.www_authenticate.empty() ? "" : ", ") + value;
        r.response_headers.emplace_back(std::move(name), std::move(value));
    }
    return r;
}

bool is_auth_challenge(CURL* easy, long status) {
    if (status == 401 || status == 403) return true;
    if (status < 400 || status >= 500) return false;
    curl_header* h = nullptr;
    return curl_easy_header(easy, "WWW-Authenticate", 0, CURLH_HEADER, -1, &h) == CURLHE_OK && h;
}

int challenge_retry_budget(const mcph::plugin::HookRequest& refusal) {
    for (const auto& [name, value] : refusal.response_headers)
        if (curl_strequal(name.c_str(), "DPoP-Nonce")) return 2;
    return 1;
}

}  // namespace mcph::http
