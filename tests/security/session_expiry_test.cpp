// Issue #10 item 2: a server whose fresh session also answers 404 (a load balancer without
// affinity, a restart loop) hung `call`, `tools` and `status --json` for ever: the expiry recovery
// held a mutex while re-listing, and the re-listing met the 404 again on the same thread. Now the
// lock covers only the reconnect, and each call recovers once, then fails with a clear error.
//
// The hostile server is a small raw-socket HTTP/1.1 server on loopback: initialize (without a
// session id) opens a fresh session; every request that carries a session id gets 404.
#include "hostile_peer_support.hpp"

#include <mcph/host.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;
using namespace mcph::test::hostile;

class ExpiringServer {
public:
    // `expire_lists`: tools/list in a session gets 404 too (else only other requests do).
    explicit ExpiringServer(bool expire_lists) : expire_lists_(expire_lists) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int one = 1;
        ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        EXPECT_EQ(::listen(listener_, 16), 0);
        socklen_t len = sizeof addr;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~ExpiringServer() {
        stopping_ = true;
        ::shutdown(listener_, SHUT_RDWR);
        ::close(listener_);
        acceptor_.join();
        std::lock_guard lock(mutex_);
        for (int fd : clients_) ::shutdown(fd, SHUT_RDWR);
        for (auto& t : workers_) t.join();
        for (int fd : clients_) ::close(fd);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
    int sessions_opened() const { return sessions_.load(); }

private:
    void accept_loop() {
        while (!stopping_) {
            int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) return;
            std::lock_guard lock(mutex_);
            clients_.push_back(fd);
            workers_.emplace_back([this, fd] { serve(fd); });
        }
    }

    void serve(int fd) {
        std::string buffer;
        char chunk[65536];
        for (;;) {
            std::size_t head_end;
            while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
                ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
                if (n <= 0) return;
                buffer.append(chunk, static_cast<std::size_t>(n));
            }
            std::string head = buffer.substr(0, head_end);
            for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            std::size_t length = 0;
            if (auto at = head.find("content-length:"); at != std::string::npos) length = std::stoul(head.substr(at + 15));
            while (buffer.size() < head_end + 4 + length) {
                ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
                if (n <= 0) return;
                buffer.append(chunk, static_cast<std::size_t>(n));
            }
            const std::string body = buffer.substr(head_end + 4, length);
            buffer.erase(0, head_end + 4 + length);
            if (!reply(fd, head, body)) return;
        }
    }

    static bool send_all(int fd, const std::string& data) {
        for (std::size_t done = 0; done < data.size();) {
            ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
            if (n <= 0) return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

    static bool respond(int fd, const std::string& status, const std::string& extra_headers, const std::string& body) {
        return send_all(fd, "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
                                extra_headers + "\r\n" + body);
    }

    bool reply(int fd, const std::string& head, const std::string& body) {
        if (head.rfind("post ", 0) != 0) return respond(fd, "405 Method Not Allowed", "", "");
        const bool has_session = head.find("\r\nmcp-session-id:") != std::string::npos;
        Json message;
        try {
            message = parse_json(body);
        } catch (const Error&) {
            return respond(fd, "400 Bad Request", "", "");
        }
        const bool is_request = message.IsObject() && message.HasMember("id");
        const std::string method = message.IsObject() ? string_at(message, "method") : "";
        if (!has_session) {
            if (method != "initialize") return respond(fd, "400 Bad Request", "", "");
            const int n = ++sessions_;
            std::string version = "2025-11-25";
            if (const JsonValue* p = member_at(message, "params")) version = string_at(*p, "protocolVersion");
            const std::string result = R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) +
                                       R"(,"result":{"protocolVersion":")" + version +
                                       R"(","capabilities":{"tools":{}},"serverInfo":{"name":"expiring","version":"1"}}})";
            return respond(fd, "200 OK", "Content-Type: application/json\r\nMcp-Session-Id: s" + std::to_string(n) + "\r\n",
                           result);
        }
        if (!is_request) return respond(fd, "202 Accepted", "", "");
        if (method == "tools/list" && !expire_lists_) {
            const std::string result = R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) +
                                       R"(,"result":{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}})";
            return respond(fd, "200 OK", "Content-Type: application/json\r\n", result);
        }
        return respond(fd, "404 Not Found", "", "");  // "this session does not exist (any more)"
    }

    const bool expire_lists_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> sessions_{0};
    std::mutex mutex_;
    std::vector<int> clients_;
    std::vector<std::thread> workers_;
    std::thread acceptor_;
};

std::string remote_entry(const std::string& url) { return R"({"type":"http","url":")" + url + R"("})"; }

TEST(SessionExpiry, EveryCommandEndsWhenEveryFreshSessionExpiresAtOnce) {
    ExpiringServer server(/*expire_lists=*/true);
    const std::string config = servers_config("exp", remote_entry(server.url()));
    for (const std::vector<std::string>& command : {std::vector<std::string>{"call", "mcp__exp__work"},
                                                    std::vector<std::string>{"tools"},
                                                    std::vector<std::string>{"status", "--json"}}) {
        std::vector<std::string> args = {"--timeout", "5s", "--connect-timeout", "3s"};
        args.insert(args.end(), command.begin(), command.end());
        const auto t0 = std::chrono::steady_clock::now();
        CliResult r = run_mcph(config, args, 15s);
        SCOPED_TRACE(r.describe());
        EXPECT_FALSE(r.timed_out) << "mcph " << command[0] << " hung";
        EXPECT_GE(r.exit_code, 0);
        EXPECT_LT(elapsed_ms(t0), 10000);
        EXPECT_TRUE(contains(r.err + r.out, "gave up after one session recovery"));
    }
    EXPECT_LE(server.sessions_opened(), 3 * 2) << "one connect and at most one recovery per command";
}

TEST(SessionExpiry, ACallWhoseFreshSessionExpiresTooFailsClearlyAfterOneRecovery) {
    ExpiringServer server(/*expire_lists=*/false);  // lists work; tools/call always meets 404
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.connect_timeout = 3s;
    Host host(options);
    ASSERT_TRUE(has_transport_plugin(host, "http"));
    host.add_server("exp", parse_json(remote_entry(server.url())));
    host.connect("exp");
    ASSERT_EQ(server.sessions_opened(), 1);
    RequestOptions ro;
    ro.timeout = 5s;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host.call_tool("mcp__exp__work", parse_json("{}"), ro);
        ADD_FAILURE() << "the call cannot succeed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
        EXPECT_NE(std::string(e.what()).find("expired a fresh session at once too"), std::string::npos) << e.what();
    }
    EXPECT_LT(elapsed_ms(t0), 5000);
    EXPECT_EQ(server.sessions_opened(), 2) << "exactly one recovery for the call";
}

}  // namespace
