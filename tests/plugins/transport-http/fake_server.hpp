// A scripted HTTP(S) server inside the test process (Boost.Beast, blocking, a thread per
// connection) on 127.0.0.1:0. Each test installs a handler that sees every request and answers
// it however the scenario needs: JSON, a chunked SSE stream written piece by piece, an abrupt
// cut, silence. Every request is recorded for later checks. Responses carry "Connection: close"
// so each exchange has its own connection and cuts never hit an innocent request.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace http_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
    std::string method;
    std::string target;
    std::string body;
    std::map<std::string, std::string> headers;  // lower-cased names
    Clock::time_point at;
    std::string header(const std::string& lower_name) const;
    bool has(const std::string& lower_name) const { return headers.count(lower_name) > 0; }
};

// One request and the means to answer it. Used on the connection's own thread.
class Exchange {
public:
    explicit Exchange(Request r) : request(std::move(r)) {}
    virtual ~Exchange() = default;
    const Request request;

    virtual void respond(int status, const std::string& body, const Headers& headers = {}) = 0;
    void json(const std::string& body, const Headers& headers = {});  // 200 application/json
    virtual void sse_begin(const Headers& headers = {}, int status = 200) = 0;  // chunked event stream
    virtual bool sse_send(const std::string& raw) = 0;  // one chunk, as is; false once the client left
    virtual void sse_end() = 0;                         // the last chunk: a clean end
    virtual void cut() = 0;                             // drop the connection mid-response
    // Bytes as they are, no HTTP framing: a hand-written status line, headers and body. False
    // once the client left.
    virtual bool write_raw(const std::string& bytes) = 0;
    bool responded() const { return responded_; }

protected:
    bool responded_ = false;
};
using Handler = std::function<void(Exchange&)>;

// A one-shot flag to hand-shake between the test, the plugin's callbacks and server handlers.
class Signal {
public:
    void set();
    bool wait(std::chrono::milliseconds timeout = 5s);
    bool is_set();

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool set_ = false;
};

class FakeServer {
public:
    struct Tls {
        std::string cert_file;
        std::string key_file;
    };
    explicit FakeServer(std::optional<Tls> tls = std::nullopt);
    ~FakeServer();
    FakeServer(const FakeServer&) = delete;
    FakeServer& operator=(const FakeServer&) = delete;

    unsigned short port() const { return port_; }
    std::string url() const;  // http(s)://127.0.0.1:<port>/mcp

    void on(Handler handler);  // replaces the handler; unset: 404
    std::vector<Request> requests();
    std::vector<Request> requests(const std::string& method);
    // Waits until `count` requests with this method (empty: any) arrived.
    bool wait_requests(size_t count, const std::string& method = "", std::chrono::milliseconds timeout = 5s);

private:
    struct Impl;
    void accept_loop();
    void serve(int fd);
    void record(const Request& r);
    Handler handler();

    std::unique_ptr<Impl> impl_;
    unsigned short port_ = 0;
    bool tls_ = false;
    std::atomic<bool> stopping_{false};
    std::thread acceptor_thread_;
    std::mutex mutex_;
    std::condition_variable cv_;
    Handler handler_;
    std::vector<Request> requests_;
    std::vector<std::thread> connection_threads_;
    std::vector<int> live_fds_;
};

// A legacy-era session's server: a GET opens an SSE stream that carries `event` (a whole SSE event)
// once `go` is set (or is cut when it is not within 10 s) and then stays open, sending a keep-alive
// comment every `keep_alive`, until the client leaves; a POST without an id gets 202, one with an
// id `answer(id)`.
Handler stream_then_answer(Signal& go, std::string event, std::function<std::string(int id)> answer,
                           std::chrono::milliseconds keep_alive = 20ms);

// A server that never answers while the test runs: each exchange waits for `release` (10 s at
// most), then the connection is cut without a response.
Handler silent_until(Signal& release);

// A port on 127.0.0.1 where nothing listens: bound and held, never listening (connections are refused).
unsigned short closed_port();

// Self-signed certificate for DNS name "localhost" only, made with the openssl CLI into a temp dir.
struct TestCertificate {
    TestCertificate();
    ~TestCertificate();
    std::string dir, cert_file, key_file;
    bool ok = false;
};

}  // namespace http_test
