#include "connect_probe.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace mcph::ws {
namespace {

// errno of one non-blocking connect to `ai`, waiting at most `timeout`; 0 when it connected.
int try_connect(const addrinfo* ai, std::chrono::milliseconds timeout) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return errno;
    int err = 0;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
            if (n == 0) {
                err = ETIMEDOUT;
            } else {
                socklen_t len = sizeof err;
                if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
            }
        }
    }
    ::close(fd);
    return err;
}

std::string lowercase_first(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

}  // namespace

std::string probe_connect_failure(const std::string& address, int port, std::chrono::milliseconds timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(address.c_str(), service.c_str(), &hints, &list); rc != 0)
        return "cannot resolve '" + address + "': " + ::gai_strerror(rc);
    int err = 0;
    for (const addrinfo* ai = list; ai; ai = ai->ai_next) {
        err = try_connect(ai, timeout);
        if (err == 0) break;
    }
    ::freeaddrinfo(list);
    if (err == 0) return {};
    return lowercase_first(std::strerror(err)) + " (" + address + " port " + service + ")";
}

}  // namespace mcph::ws
