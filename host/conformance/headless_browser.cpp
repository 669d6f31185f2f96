#include "headless_browser.hpp"

#include <curl/curl.h>

#include <iostream>
#include <memory>

namespace mcph::conformance {
namespace {

size_t discard(char*, size_t size, size_t count, void*) { return size * count; }

// One GET without following redirects: returns the Location of a 3xx, or "" otherwise.
std::string get_once(const std::string& url, long* status) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> easy(curl_easy_init(), curl_easy_cleanup);
    if (!easy) return {};
    curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy.get(), CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
    *status = 0;
    if (curl_easy_perform(easy.get()) != CURLE_OK) return {};
    curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, status);
    char* location = nullptr;
    if (*status >= 300 && *status < 400 && curl_easy_getinfo(easy.get(), CURLINFO_REDIRECT_URL, &location) == CURLE_OK &&
        location)
        return location;
    return {};
}

}  // namespace

bool open_headless(const std::string& url) {
    std::string next = url;
    for (int hop = 0; hop < 10; ++hop) {
        long status = 0;
        std::string location = get_once(next, &status);
        if (location.empty()) return status >= 200 && status < 400;
        next = location;
    }
    std::cerr << "mcph-conformance: too many redirects opening the authorization URL\n";
    return false;
}

}  // namespace mcph::conformance
