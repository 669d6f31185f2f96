// A scripted WebSocket server for the tests: Boost.Beast on 127.0.0.1:<ephemeral>, one thread,
// connections served one after another. Each accepted connection runs the test's script.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ws_test {

struct HandshakeInfo {
    std::string target;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? std::string() : it->second;
    }
};

// One WebSocket connection, driven by a script on the server thread. Blocking calls.
class Session {
public:
    virtual ~Session() = default;
    // Next message (text or binary); nullopt once the client closed or the connection broke.
    virtual std::optional<std::string> read() = 0;
    virtual void write(std::string_view text) = 0;
    virtual void write_binary(std::string_view data) = 0;
    virtual void write_fragments(const std::vector<std::string>& parts) = 0;  // one message
    // One unfragmented text frame of `bytes` x's, written straight to the socket from a small
    // reused buffer: the server never holds the payload, so the client's memory can be measured.
    virtual void write_huge_frame(uint64_t bytes) = 0;
    virtual void close(int code, const std::string& reason = "") = 0;  // close frame, wait for the echo
    virtual void drop() = 0;                                             // TCP close, no close frame
    virtual int close_code_received() = 0;  // code of the client's close frame, -1 if none
    // Answers nothing (no reads, so no pongs) until the server is destroyed or `max` passes.
    void idle(std::chrono::milliseconds max);
    void echo_until_closed() {
        while (auto m = read()) write(*m);
    }
    std::function<bool(std::chrono::milliseconds)> wait_stop;  // set by the server
};

class FakeWsServer {
public:
    struct Options {
        std::string subprotocol = "mcp";  // selected when offered; "" selects none
        int reject_status = 0;            // answer the upgrade with this HTTP status instead
        std::string www_authenticate;     // with reject_status
        std::string location;             // with reject_status
        int reject_times = 1000000;       // only the first N handshakes are rejected
        bool never_answer_handshake = false;
        std::string cert_file, key_file;  // both set: wss
    };
    using Script = std::function<void(Session&)>;

    explicit FakeWsServer(Script script) : FakeWsServer(std::move(script), Options()) {}
    FakeWsServer(Script script, Options options);
    ~FakeWsServer();

    uint16_t port() const { return port_; }
    std::string url(const std::string& path = "/mcp") const;
    std::vector<HandshakeInfo> handshakes();
    int sessions_finished();
    bool wait_sessions_finished(int n, std::chrono::milliseconds timeout);
    std::vector<int> close_codes();  // client close codes seen by finished sessions

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    uint16_t port_ = 0;
};

// A self-signed certificate for "localhost" made with the openssl CLI, in a temp directory.
struct TestCertificate {
    TestCertificate();
    ~TestCertificate();
    bool ok = false;
    std::string dir, cert_file, key_file;
};

}  // namespace ws_test
