// Issue #10 item 2: a server whose fresh session also answers 404 (a load balancer without
// affinity, a restart loop) hung `call`, `tools` and `status --json` for ever: the expiry recovery
// held a mutex while re-listing, and the re-listing met the 404 again on the same thread. Now the
// lock covers only the reconnect, and each call recovers once, then fails with a clear error.
//
// The hostile server is a small raw-socket HTTP/1.1 server on loopback.
#include "hostile_peer_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <atomic>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;
using namespace mcph::test::hostile;

// initialize (without a session id) opens a fresh session; every later request carrying a session
// id gets 404, except tools/list when `expire_lists` is false. Notifications get 202.
class ExpiringServer {
public:
    explicit ExpiringServer(bool expire_lists)
        : expire_lists_(expire_lists),
          http_(json_rpc_handler([this](const HttpRequest& r, const Json& m, const std::string& method) { return reply(r, m, method); })) {}
    std::string url() const { return http_.url(); }
    int sessions_opened() const { return sessions_.load(); }

private:
    HttpReply reply(const HttpRequest& request, const Json& message, const std::string& method) {
        if (!request.has_header("mcp-session-id")) {
            if (method != "initialize") return {"400 Bad Request", "", ""};
            const int n = ++sessions_;
            return {"200 OK", "Content-Type: application/json\r\nMcp-Session-Id: s" + std::to_string(n) + "\r\n",
                    initialize_result(message)};
        }
        if (!message.HasMember("id")) return {"202 Accepted", "", ""};
        if (method == "tools/list" && !expire_lists_)
            return {"200 OK", "Content-Type: application/json\r\n",
                    R"({"jsonrpc":"2.0","id":)" + to_json(message["id"]) +
                        R"(,"result":{"tools":[{"name":"work","inputSchema":{"type":"object"}}]}})"};
        return {"404 Not Found", "", ""};  // "this session does not exist (any more)"
    }

    const bool expire_lists_;
    std::atomic<int> sessions_{0};
    RawHttpServer http_;  // last: it calls reply() until destroyed
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
        CliResult r = run_mcph(config, args, 10s);
        SCOPED_TRACE(r.describe());
        EXPECT_FALSE(r.timed_out) << "mcph " << command[0] << " hung";
        EXPECT_GE(r.exit_code, 0);
        EXPECT_LT(elapsed_ms(t0), 8000);
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
