// End-to-end tests of the HTTP transport plugin through its C vtable, against the scripted
// Beast server in fake_server.hpp.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <set>
#include <thread>

namespace http_test {
namespace {

const std::string kInit = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})";
const std::string kInitResult = R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}})";
const std::string kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::string result(const std::string& id_json, const std::string& value = "{}") {
    return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"result":)" + value + "}";
}

long ms_between(Clock::time_point a, Clock::time_point b) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count());
}

class HttpTransportTest : public LoopbackTest {
protected:
    static void expect_clean_shutdown(Transport& t) {
        t.close();
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
        EXPECT_LE(t.recorder.concurrent_callbacks(), 1) << "on_message must be serialised";
    }
};

// ---- descriptor ---------------------------------------------------------------------------------

TEST_F(HttpTransportTest, DescriptorServesHttp) {
    EXPECT_STREQ(plugin().descriptor->name, "transport-http");
    EXPECT_EQ(plugin().descriptor->abi_major, MCPH_ABI_MAJOR);
    EXPECT_STREQ(plugin().vtable->config_types[0], "http");
    EXPECT_EQ(plugin().vtable->config_types[1], nullptr);
}

TEST_F(HttpTransportTest, BadConfigIsRefusedAtCreate) {
    Transport t(R"({"type":"http","url":"gopher://x/"})");
    EXPECT_EQ(t.create_status(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("'url'"), std::string::npos) << t.error();
}

// ---- responses ----------------------------------------------------------------------------------

TEST_F(HttpTransportTest, JsonResponseIsDelivered) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(kInitResult); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages(), std::vector<std::string>{kInitResult});
    Request r = server.requests().at(0);
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/mcp");
    EXPECT_EQ(r.body, kInit);
    EXPECT_EQ(r.header("content-type"), "application/json");
    EXPECT_EQ(r.header("accept"), "application/json, text/event-stream");
    EXPECT_FALSE(r.has("mcp-session-id"));
    EXPECT_FALSE(r.has("mcp-protocol-version"));
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 0);
}

TEST_F(HttpTransportTest, JsonBatchIsDeliveredAsOneMessage) {
    FakeServer server;
    const std::string batch = "[" + result("1") + "," + result("2") + "]";
    server.on([&](Exchange& ex) { ex.json(batch); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send("[" + request(1) + "," + request(2) + "]"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(t.recorder.messages(), std::vector<std::string>{batch});
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, StaticAndAuthHeadersOnEveryRequest) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(202, ""); });
    Transport t(http_config(server.url(), R"("headers":{"X-Api-Key":"k1"})"));
    int calls = 0;
    t.recorder.headers_hook = [&] {
        ++calls;
        return std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer t" + std::to_string(calls)}};
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInitialized), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1));
    ASSERT_EQ(t.send(kInitialized), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2));
    auto rs = server.requests();
    EXPECT_EQ(rs[0].header("x-api-key"), "k1");
    EXPECT_EQ(rs[0].header("authorization"), "Bearer t1");
    EXPECT_EQ(rs[1].header("authorization"), "Bearer t2") << "the auth hook runs before each request";
    expect_clean_shutdown(t);
    EXPECT_TRUE(t.recorder.messages().empty()) << "202 carries nothing to deliver";
}

// The server sends a request in the middle of a POST's SSE stream and holds the stream open until
// the client's answer (a second POST) arrived: the transport must not serialise the two.
TEST_F(HttpTransportTest, ServerRequestMidStreamIsAnsweredWhileTheStreamIsOpen) {
    FakeServer server;
    Signal answered;
    const std::string server_request = R"({"jsonrpc":"2.0","id":"s1","method":"roots/list"})";
    const std::string client_answer = result(R"("s1")", R"({"roots":[]})");
    server.on([&](Exchange& ex) {
        if (ex.request.body == client_answer) {
            ex.respond(202, "");
            answered.set();
            return;
        }
        ex.sse_begin();
        ex.sse_send(event(server_request, "e1"));
        bool ok = answered.wait(5s);
        ex.sse_send(event(ok ? result("7") : result("7", "\"timeout\""), "e2"));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    std::atomic<int> send_status{-1};
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m == server_request) send_status = t.send(client_answer);  // from inside on_message
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_EQ(send_status.load(), MCPH_OK);
    EXPECT_EQ(t.recorder.messages(), (std::vector<std::string>{server_request, result("7")}));
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, SseEventsArriveAsTheyAreSent) {
    FakeServer server;
    Signal release;
    server.on([&](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(": keep-alive\n\n");
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})"));
        release.wait();
        ex.sse_send("event: message\r\ndata: " + result("3") + "\r\n\r\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the progress notification must not wait for the stream's end";
    release.set();
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_EQ(t.recorder.messages().at(1), result("3"));
    expect_clean_shutdown(t);
}

// ---- session and protocol version ---------------------------------------------------------------

TEST_F(HttpTransportTest, SessionIdAndProtocolVersionOnLaterRequests) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.body == kInit) return ex.json(kInitResult, {{"Mcp-Session-Id", "sess-42"}});
        ex.respond(202, "");
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.set_option("protocol-version", "2025-11-25"), MCPH_OK);
    ASSERT_EQ(t.send(kInitialized), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2, "POST"));
    auto posts = server.requests("POST");
    EXPECT_FALSE(posts[0].has("mcp-session-id"));
    EXPECT_FALSE(posts[0].has("mcp-protocol-version"));
    EXPECT_EQ(posts[1].header("mcp-session-id"), "sess-42");
    EXPECT_EQ(posts[1].header("mcp-protocol-version"), "2025-11-25");
    EXPECT_EQ(t.set_option("no-such-option", "x"), MCPH_ERR_UNSUPPORTED);
    expect_clean_shutdown(t);
}

// The session id of an SSE initialize response must be in place before its first event reaches
// the host, which sends notifications/initialized from inside on_message.
TEST_F(HttpTransportTest, SessionIdFromAnSseResponseIsUsedFromInsideOnMessage) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.body == kInit) {
            ex.sse_begin({{"Mcp-Session-Id", "sse-sess"}});
            ex.sse_send(event(kInitResult));
            ex.sse_end();
            return;
        }
        ex.respond(202, "");
    });
    Transport t(http_config(server.url()));
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m == kInitResult) t.send(kInitialized);
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2, "POST"));
    EXPECT_EQ(server.requests("POST")[1].header("mcp-session-id"), "sse-sess");
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, DeleteOnCloseCarriesTheSessionId) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.method == "DELETE") return ex.respond(200, "");
        ex.json(kInitResult, {{"Mcp-Session-Id", "to-delete"}});
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("protocol-version", "2025-11-25"), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
    auto deletes = server.requests("DELETE");
    ASSERT_EQ(deletes.size(), 1u);
    EXPECT_EQ(deletes[0].header("mcp-session-id"), "to-delete");
    EXPECT_EQ(deletes[0].header("mcp-protocol-version"), "2025-11-25");
    t.close();  // idempotent
    EXPECT_EQ(t.send(kInitialized), MCPH_ERR_CLOSED);
}

TEST_F(HttpTransportTest, CloseToleratesDelete405AndSkipsDeleteWithoutSession) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.method == "DELETE") return ex.respond(405, "");
        ex.json(kInitResult, {{"Mcp-Session-Id", "s"}});
    });
    {
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_EQ(t.send(kInit), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1));
        auto start = Clock::now();
        expect_clean_shutdown(t);
        EXPECT_LT(ms_between(start, Clock::now()), 1500);
        EXPECT_EQ(t.recorder.closed_count(), 0);
    }
    EXPECT_EQ(server.requests("DELETE").size(), 1u);
    FakeServer other;
    other.on([](Exchange& ex) { ex.json(kInitResult); });
    Transport t(http_config(other.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
    EXPECT_TRUE(other.requests("DELETE").empty());
}

TEST_F(HttpTransportTest, NotFoundWithSessionMeansSessionExpired) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.body == kInit) return ex.json(kInitResult, {{"Mcp-Session-Id", "old"}});
        ex.respond(404, "unknown session");
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_SESSION_EXPIRED);
    EXPECT_EQ(t.send(request(3)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
    EXPECT_TRUE(server.requests("DELETE").empty()) << "an expired session is not deleted";
}

TEST_F(HttpTransportTest, NotFoundWithoutSessionIsAnHttpError) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(404, "no such endpoint"); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_NE(error_message_for(t.recorder.messages(), 1).find("HTTP 404"), std::string::npos);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

// ---- the GET stream -----------------------------------------------------------------------------

TEST_F(HttpTransportTest, GetStreamOpensAfterInitializedAndIsIndependentOfAHeldPost) {
    FakeServer server;
    Signal release_post;
    const std::string pushed = R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})";
    server.on([&](Exchange& ex) {
        if (ex.request.method == "GET") {
            ex.sse_begin();
            ex.sse_send(event(pushed, "g1"));
            release_post.wait();
            ex.sse_end();
            return;
        }
        if (ex.request.body == kInit) return ex.json(kInitResult, {{"Mcp-Session-Id", "s"}});
        ex.sse_begin();  // a long tool call: held open until the test releases it
        release_post.wait();
        ex.sse_send(event(result("5")));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.send(request(5)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2, "POST"));
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(server.requests("GET").empty()) << "no GET before initialized";
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2)) << "the GET stream's event must arrive while a POST is held";
    EXPECT_EQ(t.recorder.messages().at(1), pushed);
    Request get = server.requests("GET").at(0);
    EXPECT_EQ(get.header("accept"), "text/event-stream");
    EXPECT_EQ(get.header("mcp-session-id"), "s");
    release_post.set();
    ASSERT_TRUE(t.recorder.wait_messages(3));
    EXPECT_EQ(t.recorder.messages().at(2), result("5"));
    expect_clean_shutdown(t);
}

// As a host ends a legacy handshake: notifications/initialized, the option `initialized`, then
// the first request (tools/list, id 2). The notification goes by plain send (as mcph's host and
// an ABI 1.0 host send it) or by send_ex with facts naming it: the marker alone must hold.
void send_initialized_then_list(Transport& t, bool notification_facts) {
    if (notification_facts) {
        Facts initialized;
        initialized.method = "notifications/initialized";
        EXPECT_EQ(t.send_ex(kInitialized, initialized), MCPH_OK) << t.error();
    } else {
        EXPECT_EQ(t.send(kInitialized), MCPH_OK) << t.error();
    }
    EXPECT_EQ(t.set_option("initialized", ""), MCPH_OK);
    Facts list;
    list.id = "2";
    list.method = "tools/list";
    EXPECT_EQ(t.send_ex(request(2, "tools/list"), list), MCPH_OK) << t.error();
}

// The server's side of the handshake hold tests: holds the 202 for notifications/initialized
// until ack(), and records whatever else reaches the server meanwhile.
class InitializedGate {
public:
    // Answers the notification (after ack()) and returns true; records anything else.
    bool handle(Exchange& ex) {
        if (ex.request.body == kInitialized) {
            received_.set();
            ack_.wait();
            acked_ = true;
            ex.respond(202, "");
            return true;
        }
        if (!acked_) {
            std::lock_guard lock(mutex_);
            before_ack_.push_back(ex.request.method + " " + ex.request.body);
        }
        return false;
    }
    bool wait_received() { return received_.wait(); }
    // Time for a request that was not held to reach the server first; what is asserted is the
    // order in which the server saw them, not this wait.
    void ack_after_a_while() {
        std::this_thread::sleep_for(200ms);
        ack_.set();
    }
    void expect_nothing_overtook() {
        std::lock_guard lock(mutex_);
        EXPECT_TRUE(before_ack_.empty()) << "reached the server before initialized was acknowledged: "
                                         << before_ack_.front();
    }

private:
    Signal received_, ack_;
    std::atomic<bool> acked_{false};
    std::mutex mutex_;
    std::vector<std::string> before_ack_;
};

// Over HTTP/1.1 a POST sent while the notifications/initialized POST is unanswered takes a second
// connection, and a server that handles connections in parallel could see the request before it
// has taken in `initialized`. The transport holds the session's later POSTs and the GET stream
// until the notification's response has come.
TEST_F(HttpTransportTest, NothingOvertakesNotificationsInitialized) {
    for (const bool notification_facts : {false, true}) {
        SCOPED_TRACE(notification_facts ? "notification sent with facts" : "notification sent by plain send");
        FakeServer server;
        InitializedGate gate;
        server.on([&](Exchange& ex) {
            if (ex.request.body == kInit) return ex.json(kInitResult, {{"Mcp-Session-Id", "s"}});
            if (gate.handle(ex)) return;
            if (ex.request.method == "GET") return ex.respond(405, "", {{"Allow", "POST"}});
            ex.json(result("2"));
        });
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_EQ(t.send(kInit), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1));
        send_initialized_then_list(t, notification_facts);
        ASSERT_TRUE(gate.wait_received());
        gate.ack_after_a_while();
        ASSERT_TRUE(t.recorder.wait_messages(2));
        EXPECT_EQ(t.recorder.messages().at(1), result("2"));
        ASSERT_TRUE(server.wait_requests(1, "GET")) << "the GET stream starts once the notification is in";
        gate.expect_nothing_overtook();
        expect_clean_shutdown(t);
    }
}

// The notification may still be queued for a slot when the marker comes (every POST slot for
// answers and notifications busy): it goes at once then, and the request sent after the marker,
// whose own slots are free, still waits for its 202 (and for the notifications before it).
TEST_F(HttpTransportTest, AQueuedInitializedIsSentAtOnceAndStillGoesFirst) {
    FakeServer server;
    InitializedGate gate;
    Signal release_slow;
    const std::string slow = R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})";
    server.on([&](Exchange& ex) {
        if (ex.request.method == "GET") return ex.respond(405, "");
        if (ex.request.body == slow) {
            release_slow.wait(10s);
            return ex.respond(202, "");
        }
        if (gate.handle(ex)) return;
        ex.json(result("2"));
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    constexpr size_t kOtherSlots = 6;  // Engine::kMaxOtherPosts
    for (size_t i = 0; i < kOtherSlots; ++i) ASSERT_EQ(t.send(slow), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(kOtherSlots, "POST")) << "every slot for notifications is taken";
    send_initialized_then_list(t, false);
    ASSERT_TRUE(gate.wait_received()) << "the queued notification goes at once on the marker";
    release_slow.set();  // sent before the marker too: the request waits for them as well
    gate.ack_after_a_while();
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), result("2"));
    gate.expect_nothing_overtook();
    expect_clean_shutdown(t);
}

// A notification refused with 401 (a token that expired between initialize and it) is sent again
// once the host has fresh credentials, and what was sent after the marker waits for the retry's
// 202, not only for the refusal: the hold passes from the refused transfer to its retry.
TEST_F(HttpTransportTest, AnInitializedRetriedAfterA401StillGoesFirst) {
    for (const bool pending : {false, true}) {
        SCOPED_TRACE(pending ? "the host answers the challenge later (PENDING)" : "the host answers at once");
        FakeServer server;
        InitializedGate gate;
        std::atomic<int> initialized_posts{0};
        server.on([&](Exchange& ex) {
            if (ex.request.method == "GET") return ex.respond(405, "");
            if (ex.request.body == kInitialized && initialized_posts++ == 0)
                return ex.respond(401, "", {{"WWW-Authenticate", R"(Bearer error="invalid_token")"}});
            if (gate.handle(ex)) return;
            ex.json(result("2"));
        });
        Transport t(http_config(server.url()));
        if (pending) {
            t.recorder.enable_async_auth();
            t.recorder.async_challenge_hook = [](const AuthCall&) -> std::optional<bool> { return std::nullopt; };
        } else {
            t.recorder.challenge_hook = [](const Challenge&) { return true; };
        }
        ASSERT_EQ(t.start(), MCPH_OK);
        send_initialized_then_list(t, false);
        if (pending) {
            ASSERT_TRUE(t.recorder.wait_pending(1)) << "the 401 reaches the host";
            std::this_thread::sleep_for(100ms);  // a request not held would reach the server now
            ASSERT_TRUE(t.recorder.complete_pending(MCPH_OK));
        }
        ASSERT_TRUE(gate.wait_received()) << "the notification is sent again after the 401";
        gate.ack_after_a_while();
        ASSERT_TRUE(t.recorder.wait_messages(1));
        EXPECT_EQ(t.recorder.messages().at(0), result("2"));
        EXPECT_EQ(initialized_posts.load(), 2);
        gate.expect_nothing_overtook();
        expect_clean_shutdown(t);
    }
}

// The hold ends with the notification's transfer however it ends: a server that refuses the
// notification, or drops the connection under it, does not keep the next request waiting.
TEST_F(HttpTransportTest, ARefusedOrCutInitializedDoesNotHoldTheNextRequest) {
    for (const bool cut : {false, true}) {
        SCOPED_TRACE(cut ? "connection cut" : "HTTP 500");
        FakeServer server;
        server.on([&](Exchange& ex) {
            if (ex.request.method == "GET") return ex.respond(405, "");
            if (ex.request.body == kInitialized) return cut ? ex.cut() : ex.respond(500, "busy");
            ex.json(result("2"));
        });
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        send_initialized_then_list(t, cut);
        ASSERT_TRUE(t.recorder.wait_messages(1)) << "the request after a failed notification must still go out";
        EXPECT_EQ(t.recorder.messages().at(0), result("2"));
        ASSERT_TRUE(server.wait_requests(1, "GET"));
        expect_clean_shutdown(t);
    }
}

TEST_F(HttpTransportTest, GetStream405IsQuietlyAccepted) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.method == "GET") return ex.respond(405, "", {{"Allow", "POST"}});
        ex.json(kInitResult);
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "GET"));
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::this_thread::sleep_for(1200ms);  // longer than the default reconnect delay
    EXPECT_EQ(server.requests("GET").size(), 1u) << "405 means no GET stream: never retried";
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, GetStreamReconnectsWithLastEventId) {
    FakeServer server;
    std::atomic<int> gets{0};
    server.on([&](Exchange& ex) {
        if (ex.request.method != "GET") return ex.respond(202, "");
        int n = ++gets;
        ex.sse_begin();
        ex.sse_send("retry: 50\n\n");
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"n","params":{"k":)" + std::to_string(n) + "}}", "g" + std::to_string(n)));
        if (n == 1) return ex.cut();
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2, "GET"));
    auto rs = server.requests("GET");
    EXPECT_FALSE(rs[0].has("last-event-id"));
    EXPECT_EQ(rs[1].header("last-event-id"), "g1");
    ASSERT_TRUE(t.recorder.wait_messages(2));
    expect_clean_shutdown(t);
}

// ---- resumption -------------------------------------------------------------------------------

TEST_F(HttpTransportTest, CutStreamIsResumedWithLastEventId) {
    FakeServer server;
    const std::string progress = R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})";
    server.on([&](Exchange& ex) {
        if (ex.request.method == "POST") {
            ex.sse_begin();
            ex.sse_send("retry: 100\n\n");
            ex.sse_send(event(progress, "ev-1"));
            ex.sse_send("data: {\"jsonrpc\":\"2.0\",\"id\":9,");  // half an event, then the cut
            return ex.cut();
        }
        ex.sse_begin();
        ex.sse_send(event(result("9"), "ev-2"));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(9)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_EQ(t.recorder.messages(), (std::vector<std::string>{progress, result("9")}));
    auto gets = server.requests("GET");
    ASSERT_EQ(gets.size(), 1u);
    EXPECT_EQ(gets[0].header("last-event-id"), "ev-1");
    EXPECT_EQ(gets[0].header("accept"), "text/event-stream");
    expect_clean_shutdown(t);
}

// The 2025-11-25 polling pattern: the server primes the stream with an id and a retry delay,
// ends it cleanly, and answers on the resumed GET. The delay must be honoured.
TEST_F(HttpTransportTest, RetryDelayIsHonouredBeforeResuming) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        if (ex.request.method == "POST") {
            ex.sse_begin();
            ex.sse_send("id: prime\nretry: 400\ndata:\n\n");
            return ex.sse_end();
        }
        ex.sse_begin();
        ex.sse_send(event(result("4"), "after"));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(4)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), result("4"));
    auto post = server.requests("POST").at(0);
    auto get = server.requests("GET").at(0);
    EXPECT_EQ(get.header("last-event-id"), "prime");
    long waited = ms_between(post.at, get.at);
    EXPECT_GE(waited, 380);
    EXPECT_LT(waited, 950) << "retry: 400 must replace the 1 s default";
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, StreamWithoutEventIdsCannotResumeAndFailsTheRequest) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"n"})"));
        ex.cut();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(6)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_NE(error_message_for(t.recorder.messages(), 6).find("ended before the response"), std::string::npos);
    EXPECT_TRUE(server.requests("GET").empty());
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, ResumptionGivesUpAfterBoundedAttempts) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.method == "POST") {
            ex.sse_begin();
            ex.sse_send("id: a\nretry: 10\ndata:\n\n");
            return ex.cut();
        }
        ex.respond(503, "busy");
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(8)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_NE(error_message_for(t.recorder.messages(), 8).find("gave up"), std::string::npos)
        << t.recorder.messages().at(0);
    EXPECT_EQ(server.requests("GET").size(), 5u);
    expect_clean_shutdown(t);
}

// ---- HTTP errors become error responses -------------------------------------------------------

TEST_F(HttpTransportTest, Http500BecomesAnErrorResponseForThatRequest) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(500, "boom: database on fire"); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(11)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    rapidjson::Document d = parse(t.recorder.messages().at(0));
    ASSERT_TRUE(d.IsObject());
    EXPECT_EQ(d["id"].GetInt(), 11);
    std::string msg = d["error"]["message"].GetString();
    EXPECT_NE(msg.find("HTTP 500 from " + server.url() + ": boom: database on fire"), std::string::npos) << msg;
    EXPECT_EQ(d["error"]["data"]["httpStatus"].GetInt(), 500);
    EXPECT_FALSE(t.recorder.diagnostics().empty());
    // A notification that fails is only reported.
    ASSERT_EQ(t.send(kInitialized), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(2));
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(t.recorder.messages().size(), 1u);
    EXPECT_GE(t.recorder.diagnostics().size(), 2u);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, LongErrorBodyIsTruncated) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(502, std::string(100000, 'x')); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::string msg = error_message_for(t.recorder.messages(), 1);
    EXPECT_NE(msg.find("HTTP 502"), std::string::npos);
    EXPECT_LT(msg.size(), 300u);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, WrongContentTypeBecomesAnErrorResponse) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(200, "<html>login</html>", {{"Content-Type", "text/html"}}); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(12)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::string msg = error_message_for(t.recorder.messages(), 12);
    EXPECT_NE(msg.find("unexpected content type 'text/html'"), std::string::npos) << msg;
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, MalformedJsonBecomesAnErrorResponse) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(R"({"jsonrpc":"2.0","id":13,"result":)"); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(13)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_NE(error_message_for(t.recorder.messages(), 13).find("malformed JSON"), std::string::npos);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, MalformedSseEventIsSkippedAndTheRequestStillEnds) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send("data: {not json\n\n");
        ex.sse_send("event: message\ndata: [1,2\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(14)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.recorder.messages().size(), 1u) << "malformed events are not delivered";
    EXPECT_NE(error_message_for(t.recorder.messages(), 14).find("ended before the response"), std::string::npos);
    bool reported = false;
    for (const std::string& d : t.recorder.diagnostics()) reported |= d.find("not valid JSON-RPC") != std::string::npos;
    EXPECT_TRUE(reported);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, JsonResponseWithoutTheAnswerFailsTheRequest) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(result("999")); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(15)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_NE(error_message_for(t.recorder.messages(), 15).find("did not answer"), std::string::npos);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, OversizedResponsesAreRefusedNotBuffered) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.body == request(1)) return ex.json(result("1", "\"" + std::string(5000, 'x') + "\""));
        ex.sse_begin();
        ex.sse_send("data: " + std::string(3000, 'y') + "\n");
        ex.sse_send("data: " + std::string(3000, 'y') + "\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url(), R"("maxMessageBytes":4096)"));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    EXPECT_NE(error_message_for(t.recorder.messages(), 1).find("maxMessageBytes"), std::string::npos);
    EXPECT_NE(error_message_for(t.recorder.messages(), 2).find("maxMessageBytes"), std::string::npos);
    EXPECT_EQ(t.send(request(3) + std::string(5000, ' ')), MCPH_ERR_INVALID_ARGUMENT);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, SendRefusesNonJson) {
    FakeServer server;
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    EXPECT_EQ(t.send("not json"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t.send("{\"id\":1"), MCPH_ERR_INVALID_ARGUMENT);
    expect_clean_shutdown(t);
}

// ---- transport-level failures and timeouts ----------------------------------------------------

TEST_F(HttpTransportTest, ConnectionRefusedFailsRequestsThenCloses) {
    std::string url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/mcp";
    Transport t(http_config(url));
    ASSERT_EQ(t.start(), MCPH_OK);
    auto start = Clock::now();
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_LT(ms_between(start, Clock::now()), 3000);
    std::string msg = error_message_for(t.recorder.messages(), 1);
    EXPECT_NE(msg.find("onnect"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1"), std::string::npos) << msg;
    EXPECT_EQ(t.recorder.closed_count(), 0) << "one failure is not yet fatal";
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_NE(t.recorder.close_detail().find("in a row"), std::string::npos) << t.recorder.close_detail();
    EXPECT_EQ(t.recorder.messages().size(), 3u) << "every request was answered before on_closed";
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, SlowServerTimesOut) {
    FakeServer server;
    Signal done;
    server.on([&](Exchange& ex) {
        done.wait(3s);
        ex.json(result("21"));
    });
    Transport t(http_config(server.url(), R"("timeoutMs":300)"));
    ASSERT_EQ(t.start(), MCPH_OK);
    auto start = Clock::now();
    ASSERT_EQ(t.send(request(21)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    long took = ms_between(start, Clock::now());
    EXPECT_GE(took, 280);
    EXPECT_LT(took, 2000);
    EXPECT_NE(error_message_for(t.recorder.messages(), 21).find("timed out"), std::string::npos);
    done.set();
    expect_clean_shutdown(t);
}

// A streamed response keeps going as long as bytes flow: timeoutMs is an idle limit there.
TEST_F(HttpTransportTest, StreamThatKeepsTalkingOutlivesTimeout) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        ex.sse_begin();
        for (int i = 0; i < 8; ++i) {
            std::this_thread::sleep_for(100ms);
            ex.sse_send(": tick\n\n");
        }
        ex.sse_send(event(result("22")));
        ex.sse_end();
    });
    Transport t(http_config(server.url(), R"("timeoutMs":400)"));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(22)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), result("22"));
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, SilentStreamTimesOut) {
    FakeServer server;
    Signal done;
    server.on([&](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(": hello\n\n");
        done.wait(3s);
        ex.sse_end();
    });
    Transport t(http_config(server.url(), R"("timeoutMs":300)"));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(23)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_NE(error_message_for(t.recorder.messages(), 23).find("silent"), std::string::npos);
    done.set();
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, CloseDuringAnOpenStreamIsPromptAndSilent) {
    FakeServer server;
    Signal done;
    server.on([&](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"n"})"));
        done.wait(3s);
        ex.sse_send(event(result("1")));
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    auto start = Clock::now();
    expect_clean_shutdown(t);
    EXPECT_LT(ms_between(start, Clock::now()), 1000);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    done.set();
}

// ---- auth -------------------------------------------------------------------------------------

TEST_F(HttpTransportTest, Unauthorized401IsRetriedOnceWithFreshHeaders) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.header("authorization") != "Bearer fresh")
            return ex.respond(401, "", {{"WWW-Authenticate", R"(Bearer resource_metadata="https://x/.well-known")"}});
        ex.json(kInitResult);
    });
    Transport t(http_config(server.url()));
    std::atomic<bool> refreshed{false};
    t.recorder.headers_hook = [&] {
        return std::vector<std::pair<std::string, std::string>>{
            {"Authorization", refreshed ? "Bearer fresh" : "Bearer stale"}};
    };
    t.recorder.challenge_hook = [&](const Challenge&) {
        refreshed = true;
        return true;
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), kInitResult);
    auto challenges = t.recorder.challenges();
    ASSERT_EQ(challenges.size(), 1u);
    EXPECT_EQ(challenges[0].status, 401);
    EXPECT_EQ(challenges[0].www_authenticate, R"(Bearer resource_metadata="https://x/.well-known")");
    EXPECT_EQ(challenges[0].resource_url, server.url());
    auto posts = server.requests("POST");
    ASSERT_EQ(posts.size(), 2u);
    EXPECT_EQ(posts[1].header("authorization"), "Bearer fresh");
    EXPECT_EQ(posts[1].body, kInit);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, RefusedChallengeClosesWithAuthRequired) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(401, "", {{"WWW-Authenticate", "Bearer"}}); });
    Transport t(http_config(server.url()));
    t.recorder.challenge_hook = [](const Challenge&) { return false; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_NE(t.recorder.close_detail().find("401"), std::string::npos);
    EXPECT_EQ(server.requests().size(), 1u);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, SecondUnauthorizedAfterRetryClosesWithAuthRequired) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(403, "", {{"WWW-Authenticate", R"(Bearer error="insufficient_scope")"}}); });
    Transport t(http_config(server.url()));
    t.recorder.challenge_hook = [](const Challenge&) { return true; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_EQ(t.recorder.challenges().size(), 1u) << "retried once, not in a loop";
    EXPECT_EQ(server.requests().size(), 2u);
    expect_clean_shutdown(t);
}

// RFC 9449 §9: the first request of a DPoP client earns a sign-in (401), then — with its first
// DPoP-bound token — a nonce demand (401 + DPoP-Nonce): one more retry for that, and only that.
TEST_F(HttpTransportTest, DpopNonceDemandAfterASignInGetsOneMoreRetry) {
    FakeServer server;
    std::atomic<int> seen{0};
    server.on([&](Exchange& ex) {
        int n = ++seen;
        if (n == 1) return ex.respond(401, "", {{"WWW-Authenticate", R"(DPoP resource_metadata="https://x/")"}});
        if (n == 2)
            return ex.respond(401, "", {{"WWW-Authenticate", R"(DPoP error="use_dpop_nonce")"}, {"DPoP-Nonce", "n-1"}});
        ex.json(kInitResult);
    });
    Transport t(http_config(server.url()));
    t.recorder.challenge_hook = [](const Challenge&) { return true; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), kInitResult);
    EXPECT_EQ(t.recorder.challenges().size(), 2u);
    EXPECT_EQ(server.requests("POST").size(), 3u);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, EndlessDpopNonceDemandsAreBounded) {
    FakeServer server;
    std::atomic<int> seen{0};
    server.on([&](Exchange& ex) {
        ex.respond(401, "", {{"WWW-Authenticate", R"(DPoP error="use_dpop_nonce")"},
                             {"DPoP-Nonce", "n-" + std::to_string(++seen)}});
    });
    Transport t(http_config(server.url()));
    t.recorder.challenge_hook = [](const Challenge&) { return true; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_EQ(t.recorder.challenges().size(), 2u) << "two retries, not a loop";
    EXPECT_EQ(server.requests().size(), 3u);
    expect_clean_shutdown(t);
}

TEST_F(HttpTransportTest, AuthHookFailureClosesWithAuthRequired) {
    FakeServer server;
    Transport t(http_config(server.url()));
    t.recorder.headers_hook = []() -> std::vector<std::pair<std::string, std::string>> { throw int(MCPH_ERR_AUTH); };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kInit), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_TRUE(server.requests().empty());
    expect_clean_shutdown(t);
}

// ---- concurrency --------------------------------------------------------------------------------

TEST_F(HttpTransportTest, ManyConcurrentRequestsFromTwoThreads) {
    FakeServer server;
    server.on([](Exchange& ex) {
        rapidjson::Document d = parse(ex.request.body);
        ex.json(result(std::to_string(d["id"].GetInt())));
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    constexpr int kPerThread = 40;
    auto sender = [&](int base) {
        for (int i = 0; i < kPerThread; ++i) ASSERT_EQ(t.send(request(base + i)), MCPH_OK);
    };
    std::thread a(sender, 1000), b(sender, 2000);
    a.join();
    b.join();
    ASSERT_TRUE(t.recorder.wait_messages(2 * kPerThread, 20s)) << t.recorder.messages().size();
    std::set<int> ids;
    for (const std::string& m : t.recorder.messages()) ids.insert(parse(m)["id"].GetInt());
    EXPECT_EQ(ids.size(), 2u * kPerThread);
    expect_clean_shutdown(t);
}

}  // namespace
}  // namespace http_test
