#include "curl_driver.hpp"

#include <algorithm>
#include <new>

namespace mcph::http {
namespace {

short poll_events(int what) {
    short events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= POLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= POLLOUT;
    return events;
}

// What libcurl is told about a ready socket. An error or hang-up is passed as readable and
// writable too, so the transfer's next read or write meets it and reports it; a descriptor that
// is not open any more (POLLNVAL, which a socket libcurl watches should never be) as an error, so
// libcurl drops it instead of this loop seeing it ready forever.
int select_bits(short revents) {
    int bits = 0;
    if (revents & (POLLIN | POLLHUP | POLLERR)) bits |= CURL_CSELECT_IN;
    if (revents & (POLLOUT | POLLHUP | POLLERR)) bits |= CURL_CSELECT_OUT;
    if (revents & (POLLERR | POLLNVAL)) bits |= CURL_CSELECT_ERR;
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

void CurlDriver::wait(int timeout_ms) {
    long curl_timeout_ms = -1;
    if (curl_multi_timeout(multi_.get(), &curl_timeout_ms) == CURLM_OK && curl_timeout_ms >= 0 &&
        (timeout_ms < 0 || curl_timeout_ms < timeout_ms))
        timeout_ms = static_cast<int>(curl_timeout_ms);
    poll_set_.clear();
    poll_set_.push_back(pollfd{wakeup_.fd(), POLLIN, 0});
    for (const auto& [socket, what] : watched_) poll_set_.push_back(pollfd{socket, poll_events(what), 0});
    const int ready = ::poll(poll_set_.data(), poll_set_.size(), timeout_ms);
    if (ready <= 0) return;  // the timeout, or EINTR: act() runs the timers either way
    if (poll_set_.front().revents != 0) wakeup_.clear();  // whoever woke us is served by the step after
    for (size_t i = 1; i < poll_set_.size(); ++i)
        if (poll_set_[i].revents != 0) ready_.push_back(poll_set_[i]);
}

void CurlDriver::act() {
    CURLM* multi = multi_.get();
    int running = 0;
    for (const pollfd& p : ready_) curl_multi_socket_action(multi, p.fd, select_bits(p.revents), &running);
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
