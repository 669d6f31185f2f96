// End-to-end tests of the ws transport plugin, through its C vtable, against a scripted
// Boost.Beast WebSocket server in this process.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace ws_test {
namespace {

using Clock = std::chrono::steady_clock;

std::string msg(int i) { return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(i) + ",\"method\":\"ping\"}"; }

class WsTransportTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
    static void expect_clean_shutdown(Transport& t) {
        t.close();
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
        EXPECT_EQ(t.recorder.concurrent_callbacks(), 0);
    }
};

// ---- the vtable ---------------------------------------------------------------------------------

TEST_F(WsTransportTest, DescriptorAndVtableAreComplete) {
    const mcph_plugin* d = plugin().descriptor;
    EXPECT_EQ(d->abi_major, MCPH_ABI_MAJOR);
    EXPECT_STREQ(d->name, "transport-ws");
    EXPECT_NE(d->shutdown, nullptr);
    const mcph_transport_vtable_v1* v = plugin().vtable;
    EXPECT_EQ(v->struct_size, sizeof(mcph_transport_vtable_v1));
    EXPECT_STREQ(v->config_types[0], "ws");
    EXPECT_STREQ(v->config_types[1], "ws-ide");
    EXPECT_EQ(v->config_types[2], nullptr);
    EXPECT_EQ(d->get_interface(MCPH_AUTH_INTERFACE_V1), nullptr);
}

TEST_F(WsTransportTest, BadConfigIsRefusedNamingTheField) {
    Transport t(ws_config("http://127.0.0.1:1/"));
    EXPECT_EQ(t.create_status(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("'url'"), std::string::npos) << t.error();
    Transport u(ws_config("ws://127.0.0.1:1/", "\"pingIntervalMs\":\"often\""));
    EXPECT_EQ(u.create_status(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(u.error().find("'pingIntervalMs'"), std::string::npos) << u.error();
}

// ---- handshake ----------------------------------------------------------------------------------

TEST_F(WsTransportTest, SubprotocolAndHeadersArrive) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url("/mcp?session=1"), R"("headers":{"X-Custom":"one","Authorization":"Basic old"})"));
    ASSERT_EQ(t.create_status(), MCPH_OK) << t.error();
    t.recorder.set_auth_headers({{"Authorization", "Bearer from-hook"}, {"X-Trace", "abc"}});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    auto hs = server.handshakes();
    ASSERT_EQ(hs.size(), 1u);
    EXPECT_EQ(hs[0].target, "/mcp?session=1");
    EXPECT_EQ(hs[0].header("sec-websocket-protocol"), "mcp");
    EXPECT_EQ(hs[0].header("x-custom"), "one");
    EXPECT_EQ(hs[0].header("authorization"), "Bearer from-hook");  // the auth hook wins
    EXPECT_EQ(hs[0].header("x-trace"), "abc");
    EXPECT_EQ(hs[0].header("host"), "127.0.0.1:" + std::to_string(server.port()));
    EXPECT_EQ(t.recorder.header_requests(), 1);
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, ServerWithoutSubprotocolIsToleratedWithADiagnostic) {
    FakeWsServer::Options o;
    o.subprotocol = "";
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, o);
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(msg(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    bool noted = false;
    for (auto& d : t.recorder.diagnostics()) noted |= d.find("subprotocol") != std::string::npos;
    EXPECT_TRUE(noted);
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, ConfiguredSubprotocolIsOffered) {
    FakeWsServer::Options o;
    o.subprotocol = "jsonrpc";
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, o);
    Transport t(ws_config(server.url(), R"("subprotocol":"jsonrpc")"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_EQ(server.handshakes().at(0).header("sec-websocket-protocol"), "jsonrpc");
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, ConnectionRefusedFailsFastAndClearly) {
    Transport t(ws_config("ws://127.0.0.1:" + std::to_string(free_port()) + "/mcp"));
    auto start = Clock::now();
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_LT(ms_since(start), 2000);
    EXPECT_NE(t.error().find("connection refused"), std::string::npos) << t.error();
    EXPECT_NE(t.error().find("ws://127.0.0.1:"), std::string::npos) << t.error();
    EXPECT_EQ(t.send(msg(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 0);  // start() reported it; on_closed is for later endings
}

TEST_F(WsTransportTest, RejectedUpgradeReportsTheHttpStatus) {
    FakeWsServer::Options o;
    o.reject_status = 500;
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url()));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_NE(t.error().find("HTTP 500"), std::string::npos) << t.error();
    EXPECT_EQ(t.recorder.challenges(), 0);
}

TEST_F(WsTransportTest, RedirectIsNotFollowed) {
    FakeWsServer::Options o;
    o.reject_status = 302;
    o.location = "wss://elsewhere.example/mcp";
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url()));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_NE(t.error().find("HTTP 302"), std::string::npos) << t.error();
    EXPECT_NE(t.error().find("redirects are not followed"), std::string::npos) << t.error();
    EXPECT_NE(t.error().find("Location: wss://elsewhere.example/mcp"), std::string::npos) << t.error();
}

TEST_F(WsTransportTest, Unauthorized401CallsTheAuthHookAndGivesUp) {
    FakeWsServer::Options o;
    o.reject_status = 401;
    o.www_authenticate = R"(Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource")";
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url()));
    t.recorder.set_challenge_answer(false);
    EXPECT_EQ(t.start(), MCPH_ERR_AUTH);
    EXPECT_NE(t.error().find("HTTP 401"), std::string::npos) << t.error();
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(t.recorder.last_challenge_status(), 401);
    EXPECT_EQ(t.recorder.last_challenge_header(), o.www_authenticate);
    EXPECT_EQ(t.recorder.last_challenge_resource(), server.url());
    EXPECT_EQ(server.handshakes().size(), 1u);  // no retry without fresh credentials
}

TEST_F(WsTransportTest, Forbidden403RetriesOnceWithRefreshedHeaders) {
    FakeWsServer::Options o;
    o.reject_status = 403;
    o.reject_times = 1;
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, o);
    Transport t(ws_config(server.url()));
    t.recorder.set_auth_headers({{"Authorization", "Bearer stale"}});
    t.recorder.set_challenge_answer(true, {{"Authorization", "Bearer fresh"}});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    auto hs = server.handshakes();
    ASSERT_EQ(hs.size(), 2u);
    EXPECT_EQ(hs[0].header("authorization"), "Bearer stale");
    EXPECT_EQ(hs[1].header("authorization"), "Bearer fresh");
    EXPECT_EQ(t.recorder.last_challenge_status(), 403);
    ASSERT_EQ(t.send(msg(7)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, RetryIsOnlyOnce) {
    FakeWsServer::Options o;
    o.reject_status = 401;
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url()));
    t.recorder.set_challenge_answer(true, {{"Authorization", "Bearer still-bad"}});
    EXPECT_EQ(t.start(), MCPH_ERR_AUTH);
    EXPECT_EQ(server.handshakes().size(), 2u);
    EXPECT_EQ(t.recorder.challenges(), 1);
}

TEST_F(WsTransportTest, HandshakeTimeoutIsBounded) {
    FakeWsServer::Options o;
    o.never_answer_handshake = true;
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url(), R"("connectTimeoutMs":300)"));
    auto start = Clock::now();
    EXPECT_EQ(t.start(), MCPH_ERR_TIMEOUT);
    EXPECT_GE(ms_since(start), 280);
    EXPECT_LT(ms_since(start), 1500);
    EXPECT_NE(t.error().find("timed out"), std::string::npos) << t.error();
}

// The host may close a server while its start() still connects (disable, shutdown, a failed
// reachability probe). That used to end the process: close() and the failing start() both joined
// the service thread. Now start() returns CLOSED soon after close(), and close() returns.
TEST_F(WsTransportTest, CloseWhileStartConnectsEndsTheStartWithClosed) {
    FakeWsServer::Options o;
    o.never_answer_handshake = true;
    FakeWsServer server([](Session&) {}, o);
    Transport t(ws_config(server.url(), R"("connectTimeoutMs":20000)"));
    std::atomic<bool> returned{false};
    mcph_status status = MCPH_OK;
    std::thread starter([&] {
        status = t.start();
        returned = true;
    });
    std::this_thread::sleep_for(200ms);  // let start() reach its wait for the handshake
    ASSERT_FALSE(returned.load()) << "start() ended before close(): " << t.error();
    auto closed_at = Clock::now();
    t.close();
    starter.join();
    EXPECT_LT(ms_since(closed_at), 5000);  // not the 20 s connect timeout
    EXPECT_EQ(status, MCPH_ERR_CLOSED) << t.error();
    EXPECT_NE(t.error().find("closed while connecting"), std::string::npos) << t.error();
}

// ---- data ---------------------------------------------------------------------------------------

TEST_F(WsTransportTest, RoundTrip) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(msg(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), msg(1));
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 0);  // our own close() is not reported
}

TEST_F(WsTransportTest, ManyMessagesInOrderFromSeveralThreads) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    constexpr int kThreads = 4, kEach = 500;
    std::vector<std::thread> senders;
    for (int th = 0; th < kThreads; ++th)
        senders.emplace_back([&, th] {
            for (int i = 0; i < kEach; ++i) EXPECT_EQ(t.send(msg(th * 100000 + i)), MCPH_OK);
        });
    for (auto& s : senders) s.join();
    ASSERT_TRUE(t.recorder.wait_messages(kThreads * kEach, 20s));
    // Per sender, order is preserved end to end.
    std::vector<int> next(kThreads, 0);
    for (const auto& m : t.recorder.messages()) {
        int id = std::stoi(m.substr(m.find("\"id\":") + 5));
        int th = id / 100000;
        EXPECT_EQ(id % 100000, next[th]++);
    }
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, LargeMessageBothWays) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    std::string big = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"blob\":\"" + std::string(5 << 20, 'b') + "\"}}";
    ASSERT_EQ(t.send(big), MCPH_OK);
    ASSERT_EQ(t.send(msg(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2, 20s));
    auto got = t.recorder.messages();
    EXPECT_EQ(got[0].size(), big.size());
    EXPECT_TRUE(got[0] == big);
    EXPECT_EQ(got[1], msg(2));
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, FragmentedServerMessageIsReassembled) {
    FakeWsServer server([](Session& s) {
        s.write_fragments({"{\"jsonrpc\":", "\"2.0\",\"method\":", "\"notifications/x\"}"});
        s.write("{\"after\":true}");
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_EQ(t.recorder.messages()[0], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}");
    EXPECT_EQ(t.recorder.messages()[1], "{\"after\":true}");
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, BinaryFramesAreIgnoredWithADiagnostic) {
    FakeWsServer server([](Session& s) {
        s.write_binary(std::string("\x00\x01\x02", 3));
        s.write("{\"text\":1}");
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().size(), 1u);
    EXPECT_EQ(t.recorder.messages()[0], "{\"text\":1}");
    bool noted = false;
    for (auto& d : t.recorder.diagnostics()) noted |= d.find("binary") != std::string::npos;
    EXPECT_TRUE(noted);
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, SendFromInsideOnMessage) {
    FakeWsServer server([](Session& s) {
        s.write("{\"id\":0}");
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url()));
    std::atomic<int> replies{0};
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m == "{\"id\":0}") replies += t.send("{\"id\":1}") == MCPH_OK;
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_EQ(replies.load(), 1);
    EXPECT_EQ(t.recorder.messages()[1], "{\"id\":1}");
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, OversizedIncomingMessageClosesWithError) {
    FakeWsServer server([](Session& s) {
        s.write(std::string(5000, 'x'));
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url(), R"("maxMessageBytes":1000)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_closed(5s));
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_NE(t.recorder.close_detail().find("maxMessageBytes"), std::string::npos) << t.recorder.close_detail();
    EXPECT_TRUE(t.recorder.messages().empty());
    EXPECT_EQ(t.send(msg(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
}

TEST_F(WsTransportTest, OversizedOutgoingMessageIsRefused) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url(), R"("maxMessageBytes":100)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_EQ(t.send(std::string(101, 'x')), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("maxMessageBytes"), std::string::npos);
    EXPECT_EQ(t.send(""), MCPH_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(t.send(msg(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
}

// ---- endings ------------------------------------------------------------------------------------

TEST_F(WsTransportTest, ServerClosesNormallyIsClean) {
    FakeWsServer server([](Session& s) {
        s.write("{\"bye\":1}");
        s.close(1000, "done");
    });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_closed(5s));
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_CLEAN);
    EXPECT_NE(t.recorder.close_detail().find("1000"), std::string::npos) << t.recorder.close_detail();
    EXPECT_EQ(t.recorder.messages().size(), 1u);  // delivered before on_closed
    EXPECT_EQ(t.send(msg(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
}

TEST_F(WsTransportTest, ServerClosesWithAnErrorCode) {
    FakeWsServer server([](Session& s) { s.close(1011, "kaput"); });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_closed(5s));
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_NE(t.recorder.close_detail().find("1011"), std::string::npos) << t.recorder.close_detail();
    EXPECT_NE(t.recorder.close_detail().find("kaput"), std::string::npos) << t.recorder.close_detail();
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, ServerDropsTheConnection) {
    FakeWsServer server([](Session& s) {
        if (s.read()) s.drop();
    });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(msg(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed(5s));
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_NE(t.recorder.close_detail().find("connection lost"), std::string::npos) << t.recorder.close_detail();
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
}

TEST_F(WsTransportTest, SilentPeerIsDetectedByPingTimeout) {
    FakeWsServer server([](Session& s) { s.idle(10s); });  // never reads: never answers a ping
    Transport t(ws_config(server.url(), R"("pingIntervalMs":200)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    auto start = Clock::now();
    ASSERT_TRUE(t.recorder.wait_closed(3s));
    long elapsed = ms_since(start);
    EXPECT_LE(elapsed, 2 * 200 + 250);  // between one and two intervals, plus scheduling slack
    EXPECT_GE(elapsed, 300);
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_NE(t.recorder.close_detail().find("ping timeout"), std::string::npos) << t.recorder.close_detail();
    expect_clean_shutdown(t);
}

// ---- typed failures (ABI 1.1 host) ----------------------------------------------------------------
// The tests above see the plugin through a host of ABI 1.0 (text only: the fallback); these through
// a 1.1 host, which is told what kind of ending or problem it was.

TEST_F(WsTransportTest, TypedEndingsSayWhatKind) {
    const struct {
        const char* name;
        std::function<void(Session&)> server;
        std::string extra;
        mcph_close_reason reason;
        mcph_failure_category category;
    } cases[] = {
        {"close 1000", [](Session& s) { s.close(1000, "done"); }, "", MCPH_CLOSE_CLEAN, MCPH_FAILURE_OTHER},
        {"close 1011", [](Session& s) { s.close(1011, "kaput"); }, "", MCPH_CLOSE_ERROR, MCPH_FAILURE_RESET},
        {"close 1002", [](Session& s) { s.close(1002, "bad frame"); }, "", MCPH_CLOSE_ERROR, MCPH_FAILURE_PROTOCOL},
        {"dropped", [](Session& s) { if (s.read()) s.drop(); }, "", MCPH_CLOSE_ERROR, MCPH_FAILURE_RESET},
        {"silent", [](Session& s) { s.idle(10s); }, R"("pingIntervalMs":200)", MCPH_CLOSE_ERROR, MCPH_FAILURE_TIMEOUT},
        {"oversized", [](Session& s) { s.write(std::string(5000, 'x')); s.echo_until_closed(); },
         R"("maxMessageBytes":1000)", MCPH_CLOSE_ERROR, MCPH_FAILURE_PROTOCOL},
    };
    for (const auto& c : cases) {
        FakeWsServer server(c.server);
        Transport t(ws_config(server.url(), c.extra), true);
        ASSERT_EQ(t.start(), MCPH_OK) << c.name << ": " << t.error();
        (void)t.send(msg(1));  // the "dropped" server waits for one message
        ASSERT_TRUE(t.recorder.wait_closed(5s)) << c.name;
        EXPECT_EQ(t.recorder.close_reason(), c.reason) << c.name;
        EXPECT_EQ(t.recorder.close_category(), c.category) << c.name << ": " << t.recorder.close_detail();
        EXPECT_FALSE(t.recorder.close_detail().empty()) << c.name;
        expect_clean_shutdown(t);
        EXPECT_EQ(t.recorder.closed_count(), 1) << c.name << ": on_closed_ex instead of on_closed, never both";
    }
}

TEST_F(WsTransportTest, TypedBinaryFrameIsANonFatalProtocolFailure) {
    FakeWsServer server([](Session& s) {
        s.write_binary(std::string("\x00\x01\x02", 3));
        s.write("{\"text\":1}");
        s.echo_until_closed();
    });
    Transport t(ws_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(1));  // the binary frame came first: its failure is in
    EXPECT_EQ(t.recorder.failures(), std::vector<mcph_failure_category>{MCPH_FAILURE_PROTOCOL});
    bool logged = false;
    for (auto& d : t.recorder.diagnostics()) logged |= d.find("binary") != std::string::npos;
    EXPECT_TRUE(logged) << "the human line goes to on_diagnostic as well";
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, DeclaresNoTraits) {
    EXPECT_EQ(plugin().vtable->traits, 0u) << "a WebSocket has no session the server could expire";
    EXPECT_NE(plugin().vtable->send_ex, nullptr);
}

TEST_F(WsTransportTest, AnsweringPeerStaysUpAcrossManyPings) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });  // Beast answers pings while reading
    Transport t(ws_config(server.url(), R"("pingIntervalMs":50)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    std::this_thread::sleep_for(600ms);
    EXPECT_EQ(t.recorder.closed_count(), 0) << t.recorder.close_detail();
    ASSERT_EQ(t.send(msg(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, CloseSendsNormalCloseFrameAndReturnsPromptly) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    size_t threads_before = thread_count();
    {
        Transport t(ws_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        ASSERT_EQ(t.send(msg(1)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1));
        auto start = Clock::now();
        t.close();
        EXPECT_LT(ms_since(start), 1000);
        t.close();  // idempotent
        EXPECT_EQ(t.send(msg(2)), MCPH_ERR_CLOSED);
        std::this_thread::sleep_for(100ms);
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
        EXPECT_EQ(t.recorder.closed_count(), 0);
    }
    ASSERT_TRUE(server.wait_sessions_finished(1, 5s));
    EXPECT_EQ(server.close_codes().at(0), 1000);
    EXPECT_EQ(thread_count(), threads_before);  // the service thread is gone
}

TEST_F(WsTransportTest, CloseFlushesMessagesSentJustBefore) {
    std::atomic<int> received{0};
    FakeWsServer server([&](Session& s) {
        while (s.read()) ++received;
    });
    Transport t(ws_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    for (int i = 0; i < 50; ++i) ASSERT_EQ(t.send(msg(i)), MCPH_OK);
    t.close();
    ASSERT_TRUE(server.wait_sessions_finished(1, 5s));
    EXPECT_EQ(received.load(), 50);
    EXPECT_EQ(server.close_codes().at(0), 1000);
}

TEST_F(WsTransportTest, CloseWithAnUnresponsivePeerIsStillBounded) {
    FakeWsServer server([](Session& s) { s.idle(10s); });
    Transport t(ws_config(server.url(), R"("pingIntervalMs":0)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    auto start = Clock::now();
    t.close();
    EXPECT_LT(ms_since(start), 2000);
    EXPECT_EQ(t.recorder.closed_count(), 0);
}

TEST_F(WsTransportTest, DestroyWithoutStartOrClose) {
    Transport t(ws_config("ws://127.0.0.1:1/"));
    ASSERT_EQ(t.create_status(), MCPH_OK);
}

// ---- ws-ide ------------------------------------------------------------------------------------

TEST_F(WsTransportTest, WsIdeConfigIsAcceptedAndReported) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); });
    Transport t(ws_config(server.url(), R"("ideName":"VS Code","ideRunningInWindows":true)", "ws-ide"));
    ASSERT_EQ(t.create_status(), MCPH_OK) << t.error();
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    bool reported = false;
    for (auto& d : t.recorder.diagnostics())
        reported |= d.find("VS Code") != std::string::npos && d.find("Windows: yes") != std::string::npos;
    EXPECT_TRUE(reported);
    ASSERT_EQ(t.send(msg(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
}

TEST_F(WsTransportTest, WsIdeBadFieldIsRefused) {
    Transport t(ws_config("ws://127.0.0.1:1/", R"("ideName":7)", "ws-ide"));
    EXPECT_EQ(t.create_status(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("'ideName'"), std::string::npos) << t.error();
    Transport u(ws_config("ws://127.0.0.1:1/", R"("ideName":"x","ideRunningInWindows":1)", "ws-ide"));
    EXPECT_EQ(u.create_status(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(u.error().find("'ideRunningInWindows'"), std::string::npos) << u.error();
}

}  // namespace
}  // namespace ws_test
