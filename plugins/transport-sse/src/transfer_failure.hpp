// What a failed libcurl transfer was, typed (ABI 1.1 mcph_failure): the category from the CURLcode,
// refined by the errno libcurl saw (CURLINFO_OS_ERRNO), which also goes out as os_error. The host
// decides on these fields; the message stays for people. [I/O thread]
// The category rule itself is http-common's (curl_failure.hpp), shared with transport-http.
#pragma once

#include <curl/curl.h>
#include <mcph/plugin_helper.hpp>

#include <string>

namespace mcph::sse {

// The category of a transfer that ended with `code` before an HTTP status arrived, given the
// errno libcurl recorded (0 when none).
mcph_failure_category curl_failure_category(CURLcode code, int os_errno);

// A Failure for that transfer: category, os_error (CURLINFO_OS_ERRNO of `easy`) and `message`.
mcph::plugin::Failure curl_failure_of(CURL* easy, CURLcode code, std::string message);

}  // namespace mcph::sse
