// One libcurl multi handle driven by its sockets (curl_multi_socket_action and the socket
// callback) instead of by curl_multi_perform: the loop both HTTP-family transports run.
//
// Why not curl_multi_perform, as before 2026-12-07:
//   * libcurl 7.88 names the sockets of transfers in progress only through curl_multi_fdset, an
//     fd_set: a socket above descriptor 1023 could not be handed to the plugin's idle watch, so a
//     host with many servers (500 legacy SSE servers: 2,062 descriptors) kept a loop thread per
//     server. libcurl tells the socket callback every socket it wants watched, whatever its number.
//   * curl_multi_perform runs every transfer on every wake-up, and each looks at its socket with a
//     poll(0) of its own: an open GET stream cost a system call on every call made beside it, and
//     the reply that woke the loop was polled once more before it was read. socket_action runs
//     only the transfers whose socket woke us (telling libcurl it is readable) or whose timer is
//     due (a new transfer's is: libcurl starts it from there).
// The wait is still curl_multi_poll, given the sockets the callback named as its "extra" ones:
// they come back with what was ready on them, and curl_multi_wakeup keeps working without a
// descriptor of ours (an eventfd would cost every server one more).
// [the driving thread only, except wakeup()]
#pragma once

#include "curl_handles.hpp"

#include <chrono>
#include <unordered_map>
#include <vector>

namespace mcph::http {

class CurlDriver {
public:
    CurlDriver();  // throws std::bad_alloc
    ~CurlDriver();
    CurlDriver(const CurlDriver&) = delete;
    CurlDriver& operator=(const CurlDriver&) = delete;

    CURLM* multi() const { return multi_.get(); }
    void wakeup() const noexcept { curl_multi_wakeup(multi_.get()); }  // [thread-safe] the current or next wait() returns

    // Waits (curl_multi_poll) until a watched socket is ready, wakeup() was called, `timeout_ms`
    // passed or libcurl's own timer is due, whichever comes first (timeout_ms < 0: no bound of
    // ours). What became ready is kept for act().
    void wait(int timeout_ms);
    // Lets libcurl handle what wait() saw ready, then every timer that is due (a transfer just
    // added is due at once). Write callbacks fire from here.
    void act();

    // For a loop thread handing its wait to an idle watch: the sockets libcurl waits on, each only
    // for input, and libcurl's next timer (`deadline` is lowered to it, never raised). False when a
    // socket is waited on for output, or there are fewer sockets than `transfers` (HTTP/2 sharing
    // one: a watch for input could not tell whose data came).
    bool sockets_waiting_for_input(size_t transfers, std::vector<int>& sockets,
                                   std::chrono::steady_clock::time_point& deadline) const;

private:
    static int on_socket(CURL* easy, curl_socket_t socket, int what, void* self, void* socket_data) noexcept;

    // Declared before the multi handle: curl_multi_cleanup may still report sockets it closes.
    std::unordered_map<curl_socket_t, int> watched_;  // socket -> CURL_POLL_IN / OUT / INOUT
    std::vector<curl_waitfd> wait_set_;                // reused: no allocation per wait
    std::vector<curl_waitfd> ready_;                   // what the last wait() saw, for act()
    MultiHandle multi_;
};

}  // namespace mcph::http
