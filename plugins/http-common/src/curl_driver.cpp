#include "curl_driver.hpp"

#include <algorithm>
#include <new>

namespace mcph::http {
namespace {

short wait_events(int what) {
    short events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= CURL_WAIT_POLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= CURL_WAIT_POLLOUT;
    return events;
}

int select_bits(short revents) {
    int bits = 0;
    if (revents & CURL_WAIT_POLLIN) bits |= CURL_CSELECT_IN;
    if (revents & CURL_WAIT_POLLOUT) bits |= CURL_CSELECT_OUT;
    return bits;
}

}  // namespace

CurlDriver::CurlDriver() {
    CURLM* multi = multi_.get();
    if (curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &CurlDriver::on_socket) != CURLM_OK ||
        curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this) != CURLM_OK)
        throw std::bad_alloc();
}

CurlDriver::~CurlDriver() {
    // Every transfer is out of the multi by now; the cached connections it closes need no watch.
    curl_multi_setopt(multi_.get(), CURLMOPT_SOCKETFUNCTION, nullptr);
}

// libcurl's socket callback: which sockets to watch, for what. Runs inside act() (and inside
// curl_multi_remove_handle), on the driving thread. A failure to record a socket is an abort of
// the transfer using it (libcurl reports it through curl_multi_info_read), never an exception
// through C code.
int CurlDriver::on_socket(CURL*, curl_socket_t socket, int what, void* self, void*) noexcept {
    auto& watched = static_cast<CurlDriver*>(self)->watched_;
    try {
        if (what == CURL_POLL_REMOVE) watched.erase(socket);
        else watched[socket] = what;
        return 0;
    } catch (...) {
        return -1;
    }
}

// curl_multi_poll reports only POLLIN, POLLOUT and POLLPRI on the extra sockets, not an error or
// hang-up alone (a TCP reset or FIN comes with POLLIN; a failed connect with POLLOUT). When poll
// saw something on a socket that reached us as nothing, every watched socket is handed to libcurl
// with no readiness bits: it then looks at each itself and meets the error, instead of this loop
// waking at once, forever, for an event nobody takes.
void CurlDriver::wait(int timeout_ms) {
    wait_set_.clear();
    for (const auto& [socket, what] : watched_) wait_set_.push_back(curl_waitfd{socket, wait_events(what), 0});
    int events = 0;
    if (curl_multi_poll(multi_.get(), wait_set_.data(), static_cast<unsigned>(wait_set_.size()),
                        timeout_ms < 0 ? 1 << 30 : timeout_ms, &events) != CURLM_OK)
        return;  // out of memory, or interrupted: act() runs the timers either way
    for (const curl_waitfd& w : wait_set_)
        if (w.revents != 0) ready_.push_back(w);
    if (events > 0 && ready_.empty())
        for (curl_waitfd w : wait_set_) ready_.push_back(curl_waitfd{w.fd, w.events, 0});
}

void CurlDriver::act() {
    CURLM* multi = multi_.get();
    int running = 0;
    for (const curl_waitfd& w : ready_) curl_multi_socket_action(multi, w.fd, select_bits(w.revents), &running);
    ready_.clear();
    long curl_timeout_ms = -1;
    if (curl_multi_timeout(multi, &curl_timeout_ms) == CURLM_OK && curl_timeout_ms == 0)
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
}

bool CurlDriver::sockets_waiting_for_input(size_t transfers, std::vector<int>& sockets,
                                           std::chrono::steady_clock::time_point& deadline) const {
    long curl_timeout_ms = -1;
    if (curl_multi_timeout(multi_.get(), &curl_timeout_ms) != CURLM_OK) return false;
    if (curl_timeout_ms >= 0)
        deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(curl_timeout_ms));
    const size_t before = sockets.size();
    for (const auto& [socket, what] : watched_) {
        if (what != CURL_POLL_IN) return false;
        sockets.push_back(socket);
    }
    return sockets.size() - before >= transfers;
}

}  // namespace mcph::http
