// The loopback callback receiver (oauth-common, shared by auth-oauth and auth-xaa): every
// descriptor it holds — the listener and each accepted connection — is close-on-exec, so no
// program the host starts meanwhile (a browser, a stdio server, a headers helper) inherits the
// callback port.
#include "loopback_server.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

struct OwnSocket {
    int fd;
    bool cloexec;
};

// This process's TCP sockets whose local port is `port` (the listener and accepted connections).
std::vector<OwnSocket> sockets_on_port(uint16_t port) {
    std::vector<OwnSocket> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
        const int fd = std::stoi(e.path().filename().string());
        sockaddr_in addr{};
        socklen_t len = sizeof addr;
        if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || addr.sin_family != AF_INET) continue;
        if (ntohs(addr.sin_port) != port) continue;
        const int flags = ::fcntl(fd, F_GETFD);
        out.push_back({fd, flags >= 0 && (flags & FD_CLOEXEC) != 0});
    }
    return out;
}

}  // namespace

TEST(LoopbackServer, ListenerAndAcceptedConnectionsAreCloseOnExec) {
    mcph::oauth::LoopbackServer server(0, "/callback");
    server.start("state-1");
    const uint16_t port = server.port();
    ASSERT_NE(port, 0);

    // A browser connected but not done yet: the server now holds an accepted connection too.
    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(client, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string partial = "GET /callback?code=c&state=state-1 HTTP/1.1\r\n";
    ASSERT_EQ(::send(client, partial.data(), partial.size(), MSG_NOSIGNAL), static_cast<ssize_t>(partial.size()));

    std::vector<OwnSocket> held;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while ((held = sockets_on_port(port)).size() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::close(client);
    ASSERT_GE(held.size(), 2u) << "the connection was never accepted";
    for (const auto& s : held) EXPECT_TRUE(s.cloexec) << "descriptor " << s.fd << " on the callback port is inheritable";
}
