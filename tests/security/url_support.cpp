#include "url_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include "loopback_listener.hpp"

namespace mcph::test {


LoopbackListener::LoopbackListener() { fd_ = listen_on_loopback(port_); }

LoopbackListener::~LoopbackListener() {
    if (fd_ >= 0) ::close(fd_);
}

bool LoopbackListener::connected(std::chrono::milliseconds bound) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(bound.count())) <= 0) return false;
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return false;
    ::close(c);
    return true;
}

int ClosingListener::connections_within(std::chrono::milliseconds bound) const {
    wait_until([this] { return connections_.load() > 0; }, bound);
    return connections_.load();
}

RedirectResponder::RedirectResponder(std::string location)
    : location_(std::move(location)),
      server_(ThreadedHttpServer::Connections::OneRequest, [this](int fd, const HttpRequest&) {
          ++requests_;  // before the reply: the client may act on it before this thread runs again
          (void)send_all(fd, "HTTP/1.1 302 Found\r\nLocation: " + location_ +
                                 "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      }) {}

CliTree::CliTree() { locations().create(); }

CliLocations CliTree::locations() const {
    return {.repo = repo, .config_home = config_home, .managed = managed, .home = home};
}

CliResult CliTree::run(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
    std::map<std::string, std::string> env = locations().env();
    env.insert({{"MCPH_RECONNECT_ATTEMPTS", "1"}, {"MCPH_RECONNECT_INITIAL_MS", "50"}, {"MCPH_RECONNECT_MAX_MS", "100"}});
    return run_cli(args, env, repo, timeout);
}

}  // namespace mcph::test
