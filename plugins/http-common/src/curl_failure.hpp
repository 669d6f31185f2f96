// What kind of failure a libcurl transfer met, as the host's typed category (ABI 1.1
// mcph_failure_category): decided from the CURLcode and the OS errno libcurl saw, never from
// message text, so the host's retry and health decisions do not depend on wording. [any thread]
#pragma once

#include <mcph/plugin_api.h>

#include <curl/curl.h>

namespace mcph::http {

// `os_error` is CURLINFO_OS_ERRNO of the transfer (0 when unknown).
mcph_failure_category failure_category(CURLcode code, long os_error);

// CURLINFO_OS_ERRNO of `easy`, 0 when none.
int os_errno(CURL* easy);

}  // namespace mcph::http
