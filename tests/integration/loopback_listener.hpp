// Raw TCP listeners on 127.0.0.1 for the tests' scripted servers (hostile on purpose, so raw
// sockets rather than a server library): a listening socket on an ephemeral port, a thread
// handing each accepted connection to the test's script, the reading of one HTTP/1.1 request,
// and a server giving each connection a thread of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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

// One HTTP/1.1 request as a scripted server reads it.
struct HttpRequest {
    std::string method;  // as sent: GET, POST, DELETE
    std::string target;  // as sent: /mcp?x=y
    std::string head;    // request line and headers as sent, without the blank line
    std::string body;    // Content-Length bytes
    bool is_post() const { return method == "POST"; }
    std::string lower_head() const;                            // `head` lower-cased
    bool has_header(const std::string& lower_name) const;      // any case in the request
};

// Reads the next request of a connection. `pending` keeps what arrived beyond it (keep-alive:
// pass the same string for the next request). nullopt when the peer closed or sent something
// that is not a request, a body over 16 MiB was announced, `until` passed, or `*stop` was set.
std::optional<HttpRequest> read_http_request(int fd, std::string& pending,
                                             std::chrono::steady_clock::time_point until =
                                                 std::chrono::steady_clock::time_point::max(),
                                             const std::atomic<bool>* stop = nullptr);

bool send_all(int fd, std::string_view bytes);  // false when the peer is gone

// Serves each connection on a thread of its own, as real servers do (joined on destruction):
// reads its requests and hands each to `handle`, which writes the response on `fd`. OneRequest:
// the connection closes after the first (responses that say `Connection: close`, or a stream that
// ends when it closes); KeepAlive: requests are read until the peer closes. A handler that blocks
// (a held stream) should watch stopping().
class ThreadedHttpServer {
public:
    enum class Connections { OneRequest, KeepAlive };
    using Handler = std::function<void(int fd, const HttpRequest& request)>;
    ThreadedHttpServer(Connections connections, Handler handle);
    ~ThreadedHttpServer();
    ThreadedHttpServer(const ThreadedHttpServer&) = delete;
    ThreadedHttpServer& operator=(const ThreadedHttpServer&) = delete;

    int port() const { return acceptor_.port(); }
    bool stopping() const { return stop_.load(); }

private:
    void serve(int fd);

    const Connections connections_;
    const Handler handle_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::vector<std::thread> threads_;
    LoopbackAcceptor acceptor_;  // last: its thread uses the members above
};

}  // namespace mcph::test
