#include "curl_loop.hpp"

namespace mcph::http {

void set_common_options(CURL* e, const std::string& url, const EasyOptions& options, curl_write_callback write,
                        void* owner, char* error_buffer) {
    setopt(e, CURLOPT_URL, url.c_str());
    setopt(e, CURLOPT_PRIVATE, owner);
    setopt(e, CURLOPT_WRITEFUNCTION, write);
    setopt(e, CURLOPT_WRITEDATA, owner);
    setopt(e, CURLOPT_ERRORBUFFER, error_buffer);
    setopt(e, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a multi-threaded host
    setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    setopt(e, CURLOPT_TCP_NODELAY, 1L);  // latency over packet count: one small message per request
    setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
    setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options.ca_file.empty()) setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
}

}  // namespace mcph::http
