// Raw TCP listeners on 127.0.0.1 for the tests' scripted servers (hostile on purpose, so raw
// sockets rather than a server library): a listening socket on an ephemeral port, and a thread
// handing each accepted connection to the test's script.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace mcph::test {

// A socket listening on 127.0.0.1 at an ephemeral port (SOCK_CLOEXEC | `socket_flags`), its port
// in `port`; -1 (and port 0) when it cannot listen.
int listen_on_loopback(int& port, int backlog = 16, int socket_flags = 0);

// Accepts connections one at a time on its own thread and hands each to `on_client`, which owns
// the descriptor (closes it or keeps it). The accept loop polls every 50 ms, so stop() — also run
// by the destructor — returns promptly. Declare it as the LAST member of a server class: the
// thread starts in the constructor and `on_client` may use the other members.
class LoopbackAcceptor {
public:
    explicit LoopbackAcceptor(std::function<void(int client)> on_client, int backlog = 16);
    ~LoopbackAcceptor();
    LoopbackAcceptor(const LoopbackAcceptor&) = delete;
    LoopbackAcceptor& operator=(const LoopbackAcceptor&) = delete;

    int port() const { return port_; }  // 0 when it could not listen
    void stop();                         // joins the thread and closes the listener

private:
    std::function<void(int)> on_client_;
    int fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace mcph::test
