// libmcph's own definitions of the libcurl functions the host core calls: each opens libcurl on
// first use (dynload::libcurl()) and forwards to it. libmcph therefore has no DT_NEEDED entry for
// libcurl (host/CMakeLists.txt links only its headers), and a host that never parses a URL or
// fetches a remote config never maps libcurl and its dependencies.
//
// These definitions are hidden (libmcph is built with -fvisibility=hidden), so they bind only the
// host core's calls; plugins and embedders linking libcurl themselves get the real one. The
// function names are in parentheses so that curl's type-checking macros never expand them, and
// this file is left out of unity builds for the same reason.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "dynload/on_demand_library.hpp"

#include <cstdarg>

namespace {

// The real function `name` of libcurl, with the type of our declaration of it: resolved once.
template <class F>
F* real(const char* name) {
    return reinterpret_cast<F*>(mcph::dynload::libcurl().symbol(name));
}

#define MCPH_REAL(fn) []() { static auto* p = real<decltype(fn)>(#fn); return p; }()

}  // namespace

extern "C" {

CURLcode(curl_global_init)(long flags) { return MCPH_REAL(curl_global_init)(flags); }

CURL*(curl_easy_init)(void) { return MCPH_REAL(curl_easy_init)(); }
void(curl_easy_cleanup)(CURL* handle) { MCPH_REAL(curl_easy_cleanup)(handle); }
CURLcode(curl_easy_perform)(CURL* handle) { return MCPH_REAL(curl_easy_perform)(handle); }
const char*(curl_easy_strerror)(CURLcode code) { return MCPH_REAL(curl_easy_strerror)(code); }

// curl_easy_setopt is variadic: the option's number says which one type its value has
// (CURLOPTTYPE_* ranges in curl.h), so one va_arg of that type forwards it exactly.
CURLcode(curl_easy_setopt)(CURL* handle, CURLoption option, ...) {
    auto* fn = MCPH_REAL(curl_easy_setopt);
    va_list args;
    va_start(args, option);
    CURLcode rc;
    if (option < CURLOPTTYPE_OBJECTPOINT) rc = fn(handle, option, va_arg(args, long));
    else if (option < CURLOPTTYPE_OFF_T) rc = fn(handle, option, va_arg(args, void*));  // objects and functions
    else if (option < CURLOPTTYPE_BLOB) rc = fn(handle, option, va_arg(args, curl_off_t));
    else rc = fn(handle, option, va_arg(args, void*));  // struct curl_blob*
    va_end(args);
    return rc;
}

// curl_easy_getinfo's one variadic argument is always a pointer to where the answer goes.
CURLcode(curl_easy_getinfo)(CURL* handle, CURLINFO info, ...) {
    va_list args;
    va_start(args, info);
    void* out = va_arg(args, void*);
    va_end(args);
    return MCPH_REAL(curl_easy_getinfo)(handle, info, out);
}

struct curl_slist*(curl_slist_append)(struct curl_slist* list, const char* text) {
    return MCPH_REAL(curl_slist_append)(list, text);
}
void(curl_slist_free_all)(struct curl_slist* list) { MCPH_REAL(curl_slist_free_all)(list); }
void(curl_free)(void* p) { MCPH_REAL(curl_free)(p); }

CURLU*(curl_url)(void) { return MCPH_REAL(curl_url)(); }
void(curl_url_cleanup)(CURLU* handle) { MCPH_REAL(curl_url_cleanup)(handle); }
CURLUcode(curl_url_get)(CURLU* handle, CURLUPart what, char** part, unsigned int flags) {
    return MCPH_REAL(curl_url_get)(handle, what, part, flags);
}
CURLUcode(curl_url_set)(CURLU* handle, CURLUPart what, const char* part, unsigned int flags) {
    return MCPH_REAL(curl_url_set)(handle, what, part, flags);
}
const char*(curl_url_strerror)(CURLUcode code) { return MCPH_REAL(curl_url_strerror)(code); }

}  // extern "C"
