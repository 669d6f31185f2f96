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

struct HttpReply {
    std::string status = "200 OK";
    std::string headers;  // extra header lines, each ending in \r\n
    std::string body;
};

// Answers every request with `handler` (called on a connection's thread), keep-alive.
class RawHttpServer {
public:
    explicit RawHttpServer(std::function<HttpReply(const HttpRequest&)> handler) : handler_(std::move(handler)) {
        EXPECT_GT(server_.port(), 0) << "cannot listen on 127.0.0.1";
    }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()) + "/mcp"; }

private:
    void serve(int fd, const HttpRequest& request) {
        const HttpReply reply = handler_(request);
        (void)send_all(fd, "HTTP/1.1 " + reply.status + "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                               "\r\n" + reply.headers + "\r\n" + reply.body);
    }

    std::function<HttpReply(const HttpRequest&)> handler_;
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::KeepAlive,
                               [this](int fd, const HttpRequest& request) { serve(fd, request); }};  // last
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
