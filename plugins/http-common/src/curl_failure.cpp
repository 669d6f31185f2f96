#include "curl_failure.hpp"

#include <cerrno>

namespace mcph::http {

mcph_failure_category failure_category(CURLcode code, long os_error) {
    // The errno first: libcurl reports several socket problems under one code (COULDNT_CONNECT
    // covers refused, unreachable and timed-out connects alike).
    switch (os_error) {
        case ECONNREFUSED: return MCPH_FAILURE_REFUSED;
        case ENETUNREACH:
        case EHOSTUNREACH:
        case ENETDOWN:
        case EHOSTDOWN: return MCPH_FAILURE_UNREACHABLE;
        case ECONNRESET:
        case EPIPE:
        case ECONNABORTED: return MCPH_FAILURE_RESET;
        case ETIMEDOUT: return MCPH_FAILURE_TIMEOUT;
        default: break;
    }
    switch (code) {
        case CURLE_COULDNT_CONNECT: return MCPH_FAILURE_REFUSED;
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY: return MCPH_FAILURE_UNREACHABLE;
        case CURLE_OPERATION_TIMEDOUT: return MCPH_FAILURE_TIMEOUT;
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_SHUTDOWN_FAILED:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED:
        case CURLE_SSL_ENGINE_INITFAILED:
        case CURLE_USE_SSL_FAILED: return MCPH_FAILURE_TLS;
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE: return MCPH_FAILURE_RESET;
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
        case CURLE_BAD_CONTENT_ENCODING:
        case CURLE_TOO_MANY_REDIRECTS: return MCPH_FAILURE_PROTOCOL;
        default: return MCPH_FAILURE_OTHER;
    }
}

int os_errno(CURL* easy) {
    long e = 0;
    if (curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &e) != CURLE_OK) return 0;
    return static_cast<int>(e);
}

}  // namespace mcph::http
