// The order of the legacy handshake through mcph::Host and the real transport plugins, over
// Streamable HTTP and over HTTP+SSE (2024-11-05): a server that takes a while to process
// notifications/initialized (as one that handles it asynchronously does) and serves each
// connection on its own thread, as real servers do, must see no request and no GET stream before
// it has answered that notification. A request sent meanwhile would go out on a connection of
// its own and could overtake it.
#include "loopback_listener.hpp"
#include "test_support.hpp"

#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;

// Just enough of a server for a handshake and the tools list, with keep-alive; every request is
// answered in order on its connection's thread. Streamable HTTP (2025-11-25): each response in
// its POST's reply. HTTP+SSE (2024-11-05): GET /sse is the event stream and names /messages as
// the endpoint; a POST there gets 202 and its response comes on the stream.
class SlowInitializedServer {
public:
    static constexpr auto kProcessing = 300ms;  // how long notifications/initialized takes

    explicit SlowInitializedServer(bool legacy_sse) : legacy_sse_(legacy_sse) {}
    std::string url() const {
        return "http://127.0.0.1:" + std::to_string(server_.port()) + (legacy_sse_ ? "/sse" : "/mcp");
    }
    std::vector<std::string> arrived_while_processing() const {
        std::lock_guard lock(mutex_);
        return early_;
    }
    int tools_lists() const { return tools_lists_.load(); }

private:
    void answer(int fd, const HttpRequest& r) {
        Json message = r.body.empty() ? Json() : parse_json(r.body);
        const std::string method = message.IsObject() ? json::string_or(message, "method") : "";
        if (method == "notifications/initialized") {
            processing_ = true;
            std::this_thread::sleep_for(kProcessing);
            processing_ = false;
            return reply(fd, "202 Accepted", "");
        }
        if (processing_) {
            std::lock_guard lock(mutex_);
            early_.push_back(r.method + " " + (method.empty() ? "(no body)" : method));
        }
        if (r.method == "GET") return legacy_sse_ ? serve_event_stream(fd) : reply(fd, "405 Method Not Allowed", "");
        if (r.method == "DELETE") return reply(fd, "200 OK", "");
        const std::string id = to_json(message["id"]);
        std::string result = "{}";
        if (method == "initialize")
            result = std::string(R"({"protocolVersion":")") + (legacy_sse_ ? "2024-11-05" : "2025-11-25") +
                     R"(","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}})";
        if (method == "tools/list") {
            ++tools_lists_;
            result = R"({"tools":[]})";
        }
        const std::string response = R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}";
        if (!legacy_sse_) return reply(fd, "200 OK", response);
        push_event("event: message\ndata: " + response + "\n\n");
        reply(fd, "202 Accepted", "");
    }

    // HTTP+SSE: this connection becomes the event stream (its body ends when it closes), held
    // open until the server stops; POSTs write their responses to it.
    void serve_event_stream(int fd) {
        {
            std::lock_guard lock(stream_mutex_);
            stream_fd_ = fd;
        }
        push_event("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                   "event: endpoint\ndata: /messages\n\n");
        while (!server_.stopping()) {
            pollfd p{fd, POLLIN, 0};
            char scrap[256];
            if (::poll(&p, 1, 50) > 0 && ::recv(fd, scrap, sizeof scrap, 0) <= 0) break;  // the client left
        }
        std::lock_guard lock(stream_mutex_);
        stream_fd_ = -1;
    }

    void push_event(const std::string& bytes) {
        std::lock_guard lock(stream_mutex_);
        if (stream_fd_ >= 0) (void)send_all(stream_fd_, bytes);
    }

    static void reply(int fd, const std::string& status, const std::string& json_body) {
        std::string response = "HTTP/1.1 " + status + "\r\nMcp-Session-Id: s1\r\nContent-Length: " +
                               std::to_string(json_body.size()) + "\r\n";
        if (!json_body.empty()) response += "Content-Type: application/json\r\n";
        response += "\r\n" + json_body;
        (void)send_all(fd, response);
    }

    const bool legacy_sse_;
    std::mutex stream_mutex_;  // HTTP+SSE: the event stream's descriptor and writes to it
    int stream_fd_ = -1;
    std::atomic<bool> processing_{false};
    std::atomic<int> tools_lists_{0};
    mutable std::mutex mutex_;
    std::vector<std::string> early_;
    // Keep-alive, as libcurl uses it: a request held behind the hold goes on the same connection.
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::KeepAlive,
                               [this](int fd, const HttpRequest& r) { answer(fd, r); }};  // last: uses the above
};

class HandshakeOrder : public ::testing::TestWithParam<std::string> {};

TEST_P(HandshakeOrder, NoRequestReachesTheServerBeforeItHasTakenInInitialized) {
    const bool sse = GetParam() == "sse";
    SlowInitializedServer server(sse);
    LogCapture logs;
    Host host(test_options(logs));
    host.add_server("slow", remote_config(GetParam(), server.url(), sse ? "{}" : R"({"protocolVersion":"2025-11-25"})"));
    std::shared_ptr<ClientSession> session = host.connect("slow");
    ASSERT_TRUE(session) << logs.dump();
    EXPECT_EQ(server.tools_lists(), 1) << "connect lists the tools after the handshake";
    const std::vector<std::string> early = server.arrived_while_processing();
    EXPECT_TRUE(early.empty()) << "reached the server before it had answered notifications/initialized: "
                               << early.front() << " (" << early.size() << " in all)";
    host.close();
}

INSTANTIATE_TEST_SUITE_P(Transports, HandshakeOrder, ::testing::Values("http", "sse"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace mcph::test
