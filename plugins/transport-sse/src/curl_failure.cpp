#include "curl_failure.hpp"

#include <cerrno>

namespace mcph::sse {
namespace {

// Connecting failed: the errno says whether nobody listens there or there is no way there.
mcph_failure_category connect_category(int os_errno) {
    switch (os_errno) {
        case EHOSTUNREACH:
        case ENETUNREACH:
        case EHOSTDOWN:
        case ENETDOWN: return MCPH_FAILURE_UNREACHABLE;
        case ETIMEDOUT: return MCPH_FAILURE_TIMEOUT;
        default: return MCPH_FAILURE_REFUSED;
    }
}

}  // namespace

mcph_failure_category curl_failure_category(CURLcode code, int os_errno) {
    switch (code) {
        case CURLE_COULDNT_CONNECT: return connect_category(os_errno);
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY: return MCPH_FAILURE_UNREACHABLE;
        case CURLE_OPERATION_TIMEDOUT: return MCPH_FAILURE_TIMEOUT;
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_SHUTDOWN_FAILED: return MCPH_FAILURE_TLS;
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_PARTIAL_FILE:
        case CURLE_GOT_NOTHING:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM: return MCPH_FAILURE_RESET;
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_BAD_CONTENT_ENCODING:
        case CURLE_TOO_MANY_REDIRECTS:
        case CURLE_RANGE_ERROR: return MCPH_FAILURE_PROTOCOL;
        default:
            break;
    }
    return MCPH_FAILURE_OTHER;
}

mcph::plugin::Failure curl_failure_of(CURL* easy, CURLcode code, std::string message) {
    long os_errno = 0;
    if (easy) curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
    mcph::plugin::Failure f;
    f.os_error = static_cast<int>(os_errno);
    f.category = curl_failure_category(code, f.os_error);
    f.message = std::move(message);
    return f;
}

}  // namespace mcph::sse
