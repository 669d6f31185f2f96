// Shared by the hostile-server attack tests (json_depth, server_flood, session_expiry, timeouts):
// the real `mcph` binary run against one server given inline, with scratch config locations so
// nothing of the machine's own configuration takes part.
#pragma once

#include "governance_support.hpp"
#include "loopback_listener.hpp"
#include "test_support.hpp"

#include <mcph/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "contains.hpp"

namespace mcph::test::hostile {

// {"mcpServers":{"<name>": <entry>}} for --mcp-config.
inline std::string servers_config(const std::string& name, const std::string& entry_json) {
    return "{\"mcpServers\":{" + json_quote(name) + ":" + entry_json + "}}";
}

// The fake server in `mode` (plus `extra` arguments) as a stdio entry.
inline std::string fake_entry(const std::string& mode, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"--mode", mode};
    args.insert(args.end(), extra.begin(), extra.end());
    return fake_server_config_text(args);
}

// Runs `mcph <pre...> --strict-mcp-config --plugin-dir <this build's plugins> --mcp-config <config>
// <args...>` in a scratch directory, killed after `bound`.
inline CliResult run_mcph(const std::string& config, const std::vector<std::string>& args,
                          std::chrono::milliseconds bound = std::chrono::seconds(20)) {
    TempDir scratch("mcph-hostile");
    const CliLocations where{.repo = scratch.path(), .config_home = scratch / "config", .managed = scratch / "managed",
                             .home = scratch.path()};
    where.create();
    std::vector<std::string> all = {"--strict-mcp-config", "--plugin-dir", plugin_dir().string(), "--mcp-config", config};
    all.insert(all.end(), args.begin(), args.end());
    return run_cli(all, where.env(), where.repo, bound);
}

using mcph::test::contains;

// ---- a scripted HTTP/1.1 server on loopback (raw sockets: hostile on purpose) ----------------------

struct HttpRequest {
    std::string head;  // request line and headers, lower-cased
    std::string body;
    bool is_post() const { return head.rfind("post ", 0) == 0; }
    bool has_header(const std::string& lower_name) const { return head.find("\r\n" + lower_name + ":") != std::string::npos; }
};

struct HttpReply {
    std::string status = "200 OK";
    std::string headers;  // extra header lines, each ending in \r\n
    std::string body;
};

// Answers every request with `handler` (called on a connection's thread), keep-alive.
class RawHttpServer {
public:
    explicit RawHttpServer(std::function<HttpReply(const HttpRequest&)> handler) : handler_(std::move(handler)) {
        listener_ = listen_on_loopback(port_);
        EXPECT_GE(listener_, 0) << "cannot listen on 127.0.0.1";
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~RawHttpServer() {
        ::shutdown(listener_, SHUT_RDWR);
        ::close(listener_);
        acceptor_.join();
        std::lock_guard lock(mutex_);
        for (int fd : clients_) ::shutdown(fd, SHUT_RDWR);
        for (auto& t : workers_) t.join();
        for (int fd : clients_) ::close(fd);
    }
    RawHttpServer(const RawHttpServer&) = delete;
    RawHttpServer& operator=(const RawHttpServer&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

private:
    void accept_loop() {
        for (;;) {
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
        auto fill = [&] {
            ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return false;
            buffer.append(chunk, static_cast<std::size_t>(n));
            return true;
        };
        for (;;) {
            std::size_t head_end;
            while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos)
                if (!fill()) return;
            HttpRequest request;
            request.head = buffer.substr(0, head_end);
            for (auto& c : request.head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            std::size_t length = 0;
            if (auto at = request.head.find("content-length:"); at != std::string::npos)
                length = std::stoul(request.head.substr(at + 15));
            while (buffer.size() < head_end + 4 + length)
                if (!fill()) return;
            request.body = buffer.substr(head_end + 4, length);
            buffer.erase(0, head_end + 4 + length);
            const HttpReply reply = handler_(request);
            if (!send_all(fd, "HTTP/1.1 " + reply.status + "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                                  "\r\n" + reply.headers + "\r\n" + reply.body))
                return;
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

    std::function<HttpReply(const HttpRequest&)> handler_;
    int listener_ = -1;
    int port_ = 0;
    std::mutex mutex_;
    std::vector<int> clients_;
    std::vector<std::thread> workers_;
    std::thread acceptor_;
};

// The JSON-RPC message of a POST body, or null when it is not JSON.
inline Json rpc_message(const HttpRequest& request) {
    try {
        return parse_json(request.body);
    } catch (const Error&) {
        return Json();
    }
}

// A RawHttpServer handler for a JSON-RPC endpoint: anything but a POST gets 405 and a body that is
// not a JSON object 400; every other request goes to `on_message` with its message and method.
using RpcHandler = std::function<HttpReply(const HttpRequest&, const Json& message, const std::string& method)>;
inline std::function<HttpReply(const HttpRequest&)> json_rpc_handler(RpcHandler on_message) {
    return [on_message = std::move(on_message)](const HttpRequest& request) -> HttpReply {
        if (!request.is_post()) return {"405 Method Not Allowed", "", ""};
        const Json message = rpc_message(request);
        if (!message.IsObject()) return {"400 Bad Request", "", ""};
        return on_message(request, message, string_at(message, "method"));
    };
}

// An initialize answer to `message` (protocol version echoed) with capabilities {"tools":{}}.
inline std::string initialize_result(const Json& message) {
    std::string version = "2025-11-25";
    if (const JsonValue* p = member_at(message, "params"); p && !string_at(*p, "protocolVersion").empty())
        version = string_at(*p, "protocolVersion");
    return R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) + R"(,"result":{"protocolVersion":")" + version +
           R"(","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}})";
}

}  // namespace mcph::test::hostile
