// RAII owners for libcurl handles, plus the few libcurl look-ups the transport repeats.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <optional>
#include <string>

namespace mcph::http {

struct EasyDeleter {
    void operator()(CURL* e) const noexcept { curl_easy_cleanup(e); }
};
struct SlistDeleter {
    void operator()(curl_slist* s) const noexcept { curl_slist_free_all(s); }
};
struct UrlDeleter {
    void operator()(CURLU* u) const noexcept { curl_url_cleanup(u); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

// The multi handle. Destroy only after every easy handle was removed from it.
class MultiHandle {
public:
    MultiHandle();
    ~MultiHandle();
    MultiHandle(const MultiHandle&) = delete;
    MultiHandle& operator=(const MultiHandle&) = delete;
    CURLM* get() const { return multi_; }

private:
    CURLM* multi_;
};

// curl_global_init once per process; libcurl 7.84+ makes this thread-safe, the call_once keeps
// older builds right too.
void global_init_once();

EasyHandle new_easy();  // throws std::bad_alloc
// Stops libcurl from sending a header it would add by itself (e.g. Expect).
void suppress_header(HeaderList& list, const std::string& name);

// Appends "Name: value"; throws std::bad_alloc.
void append_header(HeaderList& list, const std::string& name, const std::string& value);

// The last value of a response header of the most recent response (not a redirect's, not 1xx).
std::optional<std::string> response_header(CURL* easy, const char* name);

long response_status(CURL* easy);
std::string content_type(CURL* easy);  // lower-cased media type without parameters; "" if none

}  // namespace mcph::http
