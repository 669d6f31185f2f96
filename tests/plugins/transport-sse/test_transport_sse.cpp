// End-to-end tests of the SSE transport plugin, through its C vtable, against a scripted legacy
// MCP SSE server running inside the test process.
#include "fake_sse_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <thread>

namespace sse_test {
namespace {

// Every test checks the promise a host relies on most: nothing fires after close() returns.
class SseTransportTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }

    static void expect_clean_shutdown(Transport& t) {
        t.close();
        EXPECT_EQ(t.recorder.late_callbacks(), 0);
    }
};

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
}

long ms_since(Clock::time_point start) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

std::string request(int id, const std::string& method = "tools/list") {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"method\":\"" + method + "\"}";
}

// ---- the vtable ---------------------------------------------------------------------------------

TEST_F(SseTransportTest, DescriptorServesSseAndSseIde) {
    const mcph_plugin* d = plugin().descriptor;
    EXPECT_EQ(d->abi_major, MCPH_ABI_MAJOR);
    EXPECT_STREQ(d->name, "transport-sse");
    const mcph_transport_vtable_v1* v = plugin().vtable;
    EXPECT_EQ(v->struct_size, sizeof(mcph_transport_vtable_v1));
    ASSERT_NE(v->config_types, nullptr);
    EXPECT_STREQ(v->config_types[0], "sse");
    EXPECT_STREQ(v->config_types[1], "sse-ide");
    EXPECT_EQ(v->config_types[2], nullptr);
    EXPECT_NE(v->set_option, nullptr);
    EXPECT_EQ(d->get_interface("mcph.transport/2"), nullptr);
}

// ---- the happy path -----------------------------------------------------------------------------

TEST_F(SseTransportTest, RelativeEndpointThenRoundTrip) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.create_status(), MCPH_OK) << t.error();
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();

    std::vector<Request> gets = server.requests("GET");
    ASSERT_EQ(gets.size(), 1u);
    EXPECT_EQ(gets[0].target, "/sse");
    EXPECT_EQ(gets[0].header("accept"), "text/event-stream");

    ASSERT_EQ(t.send(request(1, "tools/list")), MCPH_OK) << t.error();
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    Request post = server.requests("POST")[0];
    EXPECT_EQ(post.target, "/messages?sessionId=abc");
    EXPECT_EQ(post.header("content-type"), "application/json");
    EXPECT_EQ(post.body, request(1, "tools/list"));

    ASSERT_TRUE(t.recorder.wait_messages(1));
    auto d = parse(t.recorder.messages()[0]);
    EXPECT_EQ(d["id"].GetInt(), 1);
    EXPECT_STREQ(d["result"]["echo"].GetString(), "tools/list");
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, AbsoluteEndpointThenRoundTrip) {
    FakeSseServer server;
    server.script([&](Script& s) { s.endpoint = server.origin() + "/rpc/post?session=42"; });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(7, "ping")), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].target, "/rpc/post?session=42");
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(parse(t.recorder.messages()[0])["id"].GetInt(), 7);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, RelativeEndpointResolvesAgainstTheSseUrlPath) {
    FakeSseServer server;
    server.script([](Script& s) { s.endpoint = "messages?id=1"; });  // no leading slash
    Transport t(config(server.origin() + "/mcp/sse"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].target, "/mcp/messages?id=1");
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, MessagesAreDeliveredInOrder) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    constexpr int kCount = 300;
    for (int i = 0; i < kCount; ++i) {
        std::string msg = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":" +
                          std::to_string(i) + "}}";
        if (i % 3 == 0) {
            // Split across chunks, CRLF line ends, no `event:` line (the default type is message).
            std::string raw = "data: " + msg + "\r\n\r\n";
            server.push(raw.substr(0, 10));
            server.push(raw.substr(10));
        } else {
            server.push_message(msg);
        }
    }
    ASSERT_TRUE(t.recorder.wait_messages(kCount));
    std::vector<std::string> got = t.recorder.messages();
    for (int i = 0; i < kCount; ++i) EXPECT_EQ(parse(got[i])["params"]["n"].GetInt(), i);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, CommentsOtherEventsAndBadJsonAreSkipped) {
    FakeSseServer server;
    server.script([](Script& s) { s.prelude = {": keep-alive\n\n"}; });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push(": ping\n\n");
    server.push("event: heartbeat\ndata: {}\n\n");
    server.push("event: message\ndata: not json\n\n");
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(t.recorder.messages().size(), 1u);
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "not a JSON object"));
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, SendFromInsideOnMessageAnswersAServerRequest) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m.find("\"method\":\"ping\"") != std::string_view::npos) {
            EXPECT_EQ(t.send("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}"), MCPH_OK);
        }
    };
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push_message("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}");
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].body, "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}");
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, ManyConcurrentRequestsAllComeBack) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    constexpr int kThreads = 4, kPerThread = 25;
    std::vector<std::thread> senders;
    for (int th = 0; th < kThreads; ++th)
        senders.emplace_back([&, th] {
            for (int i = 0; i < kPerThread; ++i) EXPECT_EQ(t.send(request(th * 1000 + i)), MCPH_OK);
        });
    for (auto& s : senders) s.join();
    ASSERT_TRUE(t.recorder.wait_messages(kThreads * kPerThread, 20s));
    EXPECT_EQ(t.recorder.messages().size(), static_cast<size_t>(kThreads * kPerThread));
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, LifecycleOptionsAreAcceptedAndUnknownOnesRefused) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_EQ(t.set_option("protocol-version", "2024-11-05"), MCPH_OK);
    EXPECT_EQ(t.set_option("initialized", ""), MCPH_OK);
    EXPECT_EQ(t.set_option("no-such-option", "x"), MCPH_ERR_UNSUPPORTED);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].header("mcp-protocol-version"), "");
    EXPECT_EQ(server.requests("GET").size(), 1u);  // "initialized" opens no second stream
    expect_clean_shutdown(t);
}

// Each message is its own POST on its own connection: without the handshake hold, the first
// request reached a server that serves connections in parallel while it was still taking in
// notifications/initialized.
TEST_F(SseTransportTest, NothingOvertakesNotificationsInitialized) {
    const std::string initialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
    FakeSseServer server;
    server.script([&](Script& s) {
        s.post_delay = 300ms;
        s.delay_only_body = initialized;
    });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    // As the host ends the handshake: the notification, the option, then the first request.
    ASSERT_EQ(t.send(initialized), MCPH_OK);
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the request goes out once the notification is in";
    EXPECT_EQ(parse(t.recorder.messages()[0])["id"].GetInt(), 2);
    const std::vector<std::string> expected = {"arrived " + initialized, "answered " + initialized,
                                               "arrived " + request(2), "answered " + request(2)};
    ASSERT_TRUE(server.wait_requests(2, "POST"));
    std::vector<std::string> events = server.post_events();
    for (int i = 0; i < 50 && events.size() < expected.size(); ++i) {  // the last "answered" may trail the echo
        std::this_thread::sleep_for(10ms);
        events = server.post_events();
    }
    EXPECT_EQ(events, expected);
    expect_clean_shutdown(t);
}

// A refused notification does not keep the next request waiting: the hold ends with its status.
TEST_F(SseTransportTest, ARefusedInitializedDoesNotHoldTheNextRequest) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_status = 500;
        s.echo = false;
    });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), MCPH_OK);
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the request's own 500 must come back as its error";
    auto d = parse(t.recorder.messages()[0]);
    EXPECT_EQ(d["id"].GetInt(), 2);
    EXPECT_TRUE(d.HasMember("error"));
    expect_clean_shutdown(t);
}

// ---- headers and auth ---------------------------------------------------------------------------

TEST_F(SseTransportTest, ConfigAndAuthHookHeadersGoOnEveryRequest) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), "\"headers\":{\"X-Api-Key\":\"k1\"}"));
    t.recorder.set_auth_headers({{"Authorization", "Bearer tok"}, {"Bad Name", "x"}, {"Accept", "evil"}});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    for (const Request& r : server.requests()) {
        EXPECT_EQ(r.header("x-api-key"), "k1") << r.method;
        EXPECT_EQ(r.header("authorization"), "Bearer tok") << r.method;
    }
    EXPECT_EQ(server.requests("GET")[0].header("accept"), "text/event-stream");
    EXPECT_GE(t.recorder.header_requests(), 2);  // asked before the GET and before the POST
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "unusable header"));
    expect_clean_shutdown(t);
}

// ABI 1.2: a POST whose headers the host is still working on (PENDING) is parked; the event
// stream keeps delivering meanwhile, and the POST goes out with the headers once they arrive.
TEST_F(SseTransportTest, PendingPostHeadersDoNotHoldUpTheStream) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    t.recorder.enable_async_auth();
    t.recorder.set_auth_headers({{"Authorization", "Bearer tok"}});
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    t.recorder.pending_posts = true;
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    server.push_message(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}})");
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the stream stalled while a POST waited for its headers";
    EXPECT_TRUE(server.requests("POST").empty()) << "the POST went out without its headers";
    ASSERT_TRUE(t.recorder.complete_pending(MCPH_OK, {{"Authorization", "Bearer fresh"}}));
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].header("authorization"), "Bearer fresh");
    ASSERT_TRUE(t.recorder.wait_messages(2));  // the echo of request 1
    // close() with another POST still pending returns at once.
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    const auto started = Clock::now();
    expect_clean_shutdown(t);
    EXPECT_LT(ms_since(started), 1000);
}

TEST_F(SseTransportTest, UnauthorizedGetCallsTheChallengeHookAndRetriesOnce) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_gets = 1; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(t.recorder.last_challenge_status(), 401);
    EXPECT_TRUE(contains(t.recorder.last_challenge_header(), "Bearer resource_metadata="));
    EXPECT_EQ(server.requests("GET").size(), 2u);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, UnauthorizedGetWithoutFreshCredentialsFailsStart) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_gets = 5; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(false);
    EXPECT_EQ(t.start(), MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(t.error(), "HTTP 401")) << t.error();
    EXPECT_TRUE(contains(t.error(), "WWW-Authenticate")) << t.error();
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(t.recorder.closed_count(), 0);  // a failed start is reported by start, not on_closed
    EXPECT_EQ(t.send(request(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, UnauthorizedGetTwiceGivesUpAfterOneRetry) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_gets = 5; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(true);
    EXPECT_EQ(t.start(), MCPH_ERR_AUTH);
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(server.requests("GET").size(), 2u);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, UnauthorizedPostRetriesOnceWithFreshCredentials) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_posts = 1; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(parse(t.recorder.messages()[0])["id"].GetInt(), 3);
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(server.requests("POST").size(), 2u);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

// RFC 9449 §9: a first request earns a sign-in, then (with its first DPoP-bound token) a nonce
// demand. The nonce demand gets the one extra retry; a server that keeps demanding does not.
TEST_F(SseTransportTest, DpopNonceDemandAfterASignInGetsOneMoreRetry) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.unauthorized_posts = 1;
        s.nonce_demands = 1;
    });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(4)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(parse(t.recorder.messages()[0])["id"].GetInt(), 4);
    EXPECT_EQ(t.recorder.challenges(), 2);
    EXPECT_EQ(server.requests("POST").size(), 3u);
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, EndlessDpopNonceDemandsAreBounded) {
    FakeSseServer server;
    server.script([](Script& s) { s.nonce_demands = 100; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(5)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_EQ(t.recorder.challenges(), 2) << "two retries, not a loop";
    EXPECT_EQ(server.requests("POST").size(), 3u);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, UnauthorizedPostWithoutFreshCredentialsClosesWithAuthRequired) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_posts = 5; });
    Transport t(config(server.sse_url()));
    t.recorder.set_challenge_answer(false);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_TRUE(contains(t.recorder.close_detail(), "HTTP 401")) << t.recorder.close_detail();
    EXPECT_EQ(t.recorder.challenges(), 1);
    EXPECT_EQ(t.send(request(4)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
}

// ---- start failures -----------------------------------------------------------------------------

TEST_F(SseTransportTest, EndpointOnAnotherOriginIsRefused) {
    FakeSseServer server;
    unsigned short other = closed_port();
    const std::vector<std::string> foreign = {
        "http://127.0.0.2:" + std::to_string(server.port()) + "/messages",  // other host
        "http://127.0.0.1:" + std::to_string(other) + "/messages",          // other port
        "https://127.0.0.1:" + std::to_string(server.port()) + "/messages", // other scheme
        "//evil.example/messages",                                          // scheme-relative
    };
    for (const std::string& endpoint : foreign) {
        server.script([&](Script& s) { s.endpoint = endpoint; });
        Transport t(config(server.sse_url()));
        EXPECT_EQ(t.start(), MCPH_ERR_IO) << endpoint;
        EXPECT_TRUE(contains(t.error(), "origin")) << t.error();
        EXPECT_EQ(t.recorder.closed_count(), 0);
        expect_clean_shutdown(t);
    }
    EXPECT_EQ(server.requests("POST").size(), 0u);
}

TEST_F(SseTransportTest, GetAnswered500FailsStartWithStatusAndBody) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.get_status = 500;
        s.get_content_type = "text/plain";
        s.get_body = "database on fire\nsecond line";
    });
    Transport t(config(server.sse_url()));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_TRUE(contains(t.error(), "HTTP 500 from " + server.sse_url())) << t.error();
    EXPECT_TRUE(contains(t.error(), "database on fire second line")) << t.error();
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, NonSseContentTypeFailsStart) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.get_content_type = "application/json";
        s.get_body = "{\"jsonrpc\":\"2.0\"}";
    });
    Transport t(config(server.sse_url()));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_TRUE(contains(t.error(), "text/event-stream")) << t.error();
    EXPECT_TRUE(contains(t.error(), "'application/json'")) << t.error();
    EXPECT_TRUE(contains(t.error(), "{\"jsonrpc\":\"2.0\"}")) << t.error();
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, StreamEndingBeforeTheEndpointFailsStart) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.prelude = {": hello\n\n", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"early\"}\n\n"};
        s.end_after_prelude = true;
    });
    Transport t(config(server.sse_url()));
    auto began = Clock::now();
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_LT(ms_since(began), 3000);
    EXPECT_TRUE(contains(t.error(), "ended before the endpoint event")) << t.error();
    EXPECT_EQ(t.recorder.messages().size(), 0u);  // a message before the endpoint is not delivered
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "before the endpoint event"));
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, ConnectionRefusedFailsStartFast) {
    unsigned short port = closed_port();
    Transport t(config("http://127.0.0.1:" + std::to_string(port) + "/sse"));
    auto began = Clock::now();
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_LT(ms_since(began), 2000);
    EXPECT_TRUE(contains(t.error(), "cannot connect to http://127.0.0.1:" + std::to_string(port))) << t.error();
    EXPECT_EQ(t.send(request(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, NoEndpointEventTimesOutStart) {
    FakeSseServer server;
    server.script([](Script& s) { s.endpoint.reset(); });
    // connectTimeoutMs bounds the whole connect, endpoint event included (issue #10 item 6).
    Transport t(config(server.sse_url(), "\"connectTimeoutMs\":1500"));
    auto began = Clock::now();
    EXPECT_EQ(t.start(), MCPH_ERR_TIMEOUT);
    long took = ms_since(began);
    EXPECT_GE(took, 1400);
    EXPECT_LT(took, 3000);
    EXPECT_TRUE(contains(t.error(), "(connectTimeoutMs)")) << t.error();
    EXPECT_TRUE(contains(t.error(), "no endpoint event")) << t.error();
    EXPECT_TRUE(contains(t.error(), "HTTP 200")) << t.error();
    expect_clean_shutdown(t);
}

// ---- failures after start -----------------------------------------------------------------------

TEST_F(SseTransportTest, Post500ForARequestSynthesizesAnErrorResponse) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_status = 500;
        s.post_body = std::string("kaput: ") + std::string(400, 'x');
    });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), MCPH_OK);
    ASSERT_EQ(t.send(request(42)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    std::this_thread::sleep_for(100ms);
    ASSERT_EQ(t.recorder.messages().size(), 1u);  // the notification gets a diagnostic only
    auto d = parse(t.recorder.messages()[0]);
    EXPECT_EQ(d["id"].GetInt(), 42);
    std::string message = d["error"]["message"].GetString();
    EXPECT_EQ(message.rfind("HTTP 500 from " + server.origin() + "/messages?sessionId=abc: kaput: xxx", 0), 0u)
        << message;
    EXPECT_LE(message.size(), 300u);  // the body is cut to its first 200 bytes
    EXPECT_EQ(d["error"]["data"]["httpStatus"].GetInt(), 500);
    EXPECT_EQ(t.recorder.closed_count(), 0);  // one failed POST does not end the transport
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, PostTimeoutSynthesizesAnErrorResponse) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_delay = 3000ms;
        s.echo = false;
    });
    Transport t(config(server.sse_url(), "\"timeoutMs\":300"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    auto began = Clock::now();
    ASSERT_EQ(t.send(request(5)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 3s));
    EXPECT_LT(ms_since(began), 2000);
    auto d = parse(t.recorder.messages()[0]);
    EXPECT_EQ(d["id"].GetInt(), 5);
    EXPECT_TRUE(contains(d["error"]["message"].GetString(), "timed out")) << d["error"]["message"].GetString();
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, StreamDropAfterStartClosesWithError) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"before\"}");
    server.cut_stream();
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_TRUE(contains(t.recorder.close_detail(), "SSE stream disconnected")) << t.recorder.close_detail();
    EXPECT_EQ(t.recorder.messages().size(), 1u);  // delivered before on_closed
    EXPECT_EQ(t.send(request(1)), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
    EXPECT_EQ(t.recorder.closed_count(), 1);
}

TEST_F(SseTransportTest, CleanStreamEndAfterStartIsAlsoAnError) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.end_stream();
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_TRUE(contains(t.recorder.close_detail(), "SSE stream disconnected: the server ended the stream"))
        << t.recorder.close_detail();
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, OversizedEventClosesWithError) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), "\"maxMessageBytes\":1000"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"pad\":\"" + std::string(5000, 'a') + "\"}}");
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_TRUE(contains(t.recorder.close_detail(), "maxMessageBytes")) << t.recorder.close_detail();
    EXPECT_EQ(t.recorder.messages().size(), 0u);
    EXPECT_EQ(t.send(std::string(2000, ' ')), MCPH_ERR_CLOSED);
    expect_clean_shutdown(t);
}

// ---- typed failures (ABI 1.1 host) --------------------------------------------------------------
// The tests above see the plugin through a host of ABI 1.0 (text, and a synthesized JSON-RPC error
// for a failed POST: plugin_helper's fallback); these through a 1.1 host.

TEST_F(SseTransportTest, TypedPost500FailsTheRequestWithStatusAndBodyAndSynthesizesNothing) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_status = 500;
        s.post_body = "kaput";
    });
    Transport t(config(server.sse_url()), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(42)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    const RecordedFailure f = t.recorder.request_failures()[0];
    EXPECT_EQ(f.request_id, "42");
    EXPECT_EQ(f.category, MCPH_FAILURE_HTTP_STATUS);
    EXPECT_EQ(f.http_status, 500);
    EXPECT_EQ(f.body, "kaput");
    EXPECT_TRUE(contains(f.message, "HTTP 500 from")) << f.message;
    // The link's failure once, for the health monitor (sent before the request's).
    ASSERT_EQ(t.recorder.failures().size(), 1u);
    EXPECT_EQ(t.recorder.failures()[0].category, MCPH_FAILURE_HTTP_STATUS);
    EXPECT_TRUE(t.recorder.messages().empty()) << "no -32000 error is synthesized for a 1.1 host";
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, TypedPostErrorCarriesTheServersJsonRpcErrorBody) {
    const std::string body = R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad params"}})";
    FakeSseServer server;
    server.script([&](Script& s) {
        s.post_status = 400;
        s.post_body = body;
        s.echo = false;
    });
    Transport t(config(server.sse_url()), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    EXPECT_EQ(t.recorder.request_failures()[0].http_status, 400);
    EXPECT_EQ(t.recorder.request_failures()[0].body, body);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, TypedPostTimeoutIsATimeout) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.post_delay = 3000ms;
        s.echo = false;
    });
    Transport t(config(server.sse_url(), "\"timeoutMs\":300"), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(5)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1, 3s));
    EXPECT_EQ(t.recorder.request_failures()[0].request_id, "5");
    EXPECT_EQ(t.recorder.request_failures()[0].category, MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(t.recorder.request_failures()[0].http_status, 0);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, TypedStreamEndingsSayWhatKind) {
    {
        FakeSseServer server;
        Transport t(config(server.sse_url()), true);
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        server.cut_stream();
        ASSERT_TRUE(t.recorder.wait_closed());
        EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
        EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_RESET) << t.recorder.close_detail();
        expect_clean_shutdown(t);
        EXPECT_EQ(t.recorder.closed_count(), 1) << "on_closed_ex instead of on_closed, never both";
    }
    {
        FakeSseServer server;
        Transport t(config(server.sse_url()), true);
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        server.end_stream();
        ASSERT_TRUE(t.recorder.wait_closed());
        EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_RESET) << t.recorder.close_detail();
        EXPECT_TRUE(contains(t.recorder.close_detail(), "the server ended the stream")) << t.recorder.close_detail();
        expect_clean_shutdown(t);
    }
    {
        FakeSseServer server;
        Transport t(config(server.sse_url(), "\"maxMessageBytes\":1000"), true);
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"pad\":\"" + std::string(5000, 'a') + "\"}}");
        ASSERT_TRUE(t.recorder.wait_closed());
        EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_PROTOCOL) << t.recorder.close_detail();
        expect_clean_shutdown(t);
    }
}

TEST_F(SseTransportTest, TypedBadJsonEventIsANonFatalProtocolFailure) {
    FakeSseServer server;
    Transport t(config(server.sse_url()), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push("event: message\ndata: not json\n\n");
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
    ASSERT_TRUE(t.recorder.wait_messages(1));  // same stream, so the bad event was handled first
    ASSERT_EQ(t.recorder.failures().size(), 1u);
    EXPECT_EQ(t.recorder.failures()[0].category, MCPH_FAILURE_PROTOCOL);
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "not a JSON object")) << "the human line as well";
    EXPECT_EQ(t.recorder.closed_count(), 0);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, TypedUnauthorizedPostClosesWithAuth) {
    FakeSseServer server;
    server.script([](Script& s) { s.unauthorized_posts = 5; });
    Transport t(config(server.sse_url()), true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_AUTH);
    EXPECT_EQ(t.recorder.close_failure().http_status, 401);
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, DeclaresLegacyOnly) {
    EXPECT_EQ(plugin().vtable->traits, MCPH_TRAIT_LEGACY_ONLY);
}

TEST_F(SseTransportTest, LaterEndpointEventsMoveThePostsButNeverOffOrigin) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push("event: endpoint\ndata: http://elsewhere.example/steal\n\n");
    server.push("event: endpoint\ndata: /moved?sessionId=abc\n\n");
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"marker\"}");
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    EXPECT_EQ(server.requests("POST")[0].target, "/moved?sessionId=abc");
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "ignoring a later endpoint event")) ;
    expect_clean_shutdown(t);
}

// ---- send() refusals ----------------------------------------------------------------------------

TEST_F(SseTransportTest, SendRefusesBeforeStartAndBadMessages) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), "\"maxMessageBytes\":100"));
    EXPECT_EQ(t.send(request(1)), MCPH_ERR_CLOSED);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_EQ(t.send("not json"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t.send("{\"jsonrpc\":\"2.0\",\"method\":\"" + std::string(200, 'm') + "\"}"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(t.error(), "maxMessageBytes")) << t.error();
    expect_clean_shutdown(t);
    EXPECT_EQ(t.send(request(1)), MCPH_ERR_CLOSED);
}

// ---- close --------------------------------------------------------------------------------------

TEST_F(SseTransportTest, CloseDuringAnOpenStreamIsPromptAndSilent) {
    FakeSseServer server;
    auto t = std::make_unique<Transport>(config(server.sse_url()));
    ASSERT_EQ(t->start(), MCPH_OK) << t->error();
    ASSERT_TRUE(server.wait_stream_open());
    auto began = Clock::now();
    t->close();
    EXPECT_LT(ms_since(began), 500);
    ASSERT_TRUE(server.wait_stream_closed(3s));  // the GET connection really went away
    server.push_message("{\"jsonrpc\":\"2.0\",\"method\":\"too late\"}");
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(t->recorder.late_callbacks(), 0);
    EXPECT_EQ(t->recorder.closed_count(), 0);  // our own close is not news
    t->close();                                // idempotent
    t.reset();
}

TEST_F(SseTransportTest, CloseWhileAPostIsInFlightIsPrompt) {
    FakeSseServer server;
    server.script([](Script& s) { s.post_delay = 2000ms; });
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    auto began = Clock::now();
    t.close();
    EXPECT_LT(ms_since(began), 500);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

TEST_F(SseTransportTest, DestroyWithoutStartOrClose) {
    FakeSseServer server;
    { Transport t(config(server.sse_url())); }
    {
        Transport t(config(server.sse_url()));
        ASSERT_EQ(t.start(), MCPH_OK);
    }  // destroy closes first
    SUCCEED();
}

// ---- config -------------------------------------------------------------------------------------

TEST_F(SseTransportTest, SseIdeConfigIsAcceptedAndReported) {
    FakeSseServer server;
    Transport t(config(server.sse_url(), "\"ideName\":\"VS Code\",\"ideRunningInWindows\":true", "sse-ide"));
    ASSERT_EQ(t.create_status(), MCPH_OK) << t.error();
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "IDE 'VS Code'"));
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "running in Windows"));
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    expect_clean_shutdown(t);
}

TEST_F(SseTransportTest, BadConfigsAreRefusedNamingTheField) {
    struct Case {
        std::string json;
        std::string field;
    };
    const std::vector<Case> cases = {
        {"{\"type\":\"sse\"}", "'url'"},
        {config("ftp://example.com/sse"), "'url'"},
        {config("not a url"), "'url'"},
        {config("http://"), "'url'"},
        {config("http://h/sse", "\"timeoutMs\":0"), "'timeoutMs'"},
        {config("http://h/sse", "\"connectTimeoutMs\":\"5\""), "'connectTimeoutMs'"},
        {config("http://h/sse", "\"maxMessageBytes\":-1"), "'maxMessageBytes'"},
        {config("http://h/sse", "\"headers\":[]"), "'headers'"},
        {config("http://h/sse", "\"headers\":{\"Accept\":\"x\"}"), "'headers.Accept'"},
        {config("http://h/sse", "\"headers\":{\"X\":\"a\\r\\nB: c\"}"), "'headers.X'"},
        {config("http://h/sse", "\"caFile\":\"/no/such/file.pem\""), "'caFile'"},
        {"{\"url\":\"http://h/sse\",\"name\":5}", "'name'"},
        {config("http://h/sse", "\"ideRunningInWindows\":\"yes\"", "sse-ide"), "'ideRunningInWindows'"},
        {config("http://h/sse", "\"ideName\":1", "sse-ide"), "'ideName'"},
        {config("http://h/sse", "", "http"), "'type'"},
        {"[1]", "JSON object"},
        {"{", "not valid JSON"},
    };
    for (const Case& c : cases) {
        Transport t(c.json);
        EXPECT_EQ(t.create_status(), MCPH_ERR_INVALID_ARGUMENT) << c.json;
        EXPECT_TRUE(contains(t.error(), c.field)) << c.json << " -> " << t.error();
    }
    // "sse" ignores the IDE fields (unknown fields are ignored), "sse-ide" validates them.
    Transport ok(config("http://h/sse", "\"ideRunningInWindows\":\"yes\""));
    EXPECT_EQ(ok.create_status(), MCPH_OK) << ok.error();
}

}  // namespace
}  // namespace sse_test
