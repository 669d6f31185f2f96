#include "transfer_failure.hpp"

#include "curl_failure.hpp"  // http-common: the category rule both HTTP transports share

namespace mcph::sse {

mcph_failure_category curl_failure_category(CURLcode code, int os_errno) { return mcph::http::failure_category(code, os_errno); }

mcph::plugin::Failure curl_failure_of(CURL* easy, CURLcode code, std::string message) {
    mcph::plugin::Failure f;
    f.os_error = easy ? mcph::http::os_errno(easy) : 0;
    f.category = curl_failure_category(code, f.os_error);
    f.message = std::move(message);
    return f;
}

}  // namespace mcph::sse
