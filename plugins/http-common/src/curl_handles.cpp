#include "curl_handles.hpp"

#include <cctype>
#include <mutex>
#include <new>

namespace mcph::http {

MultiHandle::MultiHandle() : multi_(curl_multi_init()) {
    if (!multi_) throw std::bad_alloc();
}

MultiHandle::~MultiHandle() { curl_multi_cleanup(multi_); }

void global_init_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

EasyHandle new_easy() {
    EasyHandle e(curl_easy_init());
    if (!e) throw std::bad_alloc();
    return e;
}

void append_header(HeaderList& list, const std::string& name, const std::string& value) {
    // "Name;" is curl's spelling for a header with an empty value ("Name:" would remove it).
    std::string line = value.empty() ? name + ";" : name + ": " + value;
    curl_slist* grown = curl_slist_append(list.get(), line.c_str());
    if (!grown) throw std::bad_alloc();
    (void)list.release();
    list.reset(grown);
}

void suppress_header(HeaderList& list, const std::string& name) {
    curl_slist* grown = curl_slist_append(list.get(), (name + ":").c_str());  // "Name:" removes it
    if (!grown) throw std::bad_alloc();
    (void)list.release();
    list.reset(grown);
}

std::optional<std::string> response_header(CURL* easy, const char* name) {
    curl_header* h = nullptr;
    size_t count = 0;
    if (curl_easy_header(easy, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !h) return std::nullopt;
    count = h->amount;
    if (count > 1 && curl_easy_header(easy, name, count - 1, CURLH_HEADER, -1, &h) != CURLHE_OK) return std::nullopt;
    // Trimmed here: libcurl 7.88 hands an empty value back as "\r", which then looked like a
    // value with control characters instead of an empty one.
    std::string_view v(h->value ? h->value : "");
    size_t first = v.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::string();
    size_t last = v.find_last_not_of(" \t\r\n");
    return std::string(v.substr(first, last - first + 1));
}

long response_status(CURL* easy) {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

std::string content_type(CURL* easy) {
    char* raw = nullptr;
    if (curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &raw) != CURLE_OK || !raw) return {};
    std::string out;
    for (const char* p = raw; *p && *p != ';'; ++p)
        if (!std::isspace(static_cast<unsigned char>(*p))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    return out;
}

}  // namespace mcph::http
