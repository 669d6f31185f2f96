// The 2026-07-28 Streamable HTTP binding of the HTTP transport (issue #11 item 3), end to end
// through the C vtable (ABI 1.1: send_ex, cancel, typed failures) against the scripted loopback
// server: request metadata headers, the stateless "modern" era, typed per-request failures and
// per-request cancel by closing the response stream.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <thread>

namespace http_test {
namespace {

constexpr const char* kModern = "2026-07-28";

std::string rpc(int id, const std::string& method, const std::string& params = "{}") {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + method + R"(","params":)" + params + "}";
}
std::string notification(const std::string& method) { return R"({"jsonrpc":"2.0","method":")" + method + R"("})"; }

// The result for the request in `ex` (its id read from the body, which rpc() wrote).
std::string echo_result(const Exchange& ex) {
    const std::string& b = ex.request.body;
    size_t at = b.find("\"id\":");
    return empty_result(at == std::string::npos ? 0 : std::atoi(b.c_str() + at + 5));
}

Facts facts(int id, const std::string& method, const std::string& name = "") {
    Facts f;
    if (id) f.id = std::to_string(id);
    f.method = method;
    f.name = name;
    f.protocol_version = kModern;
    return f;
}

class HttpModernTest : public LoopbackTest {};

TEST_F(HttpModernTest, DeclaresItsTraits) {
    const uint32_t want = MCPH_TRAIT_SESSION_CAN_EXPIRE | MCPH_TRAIT_HTTP_HEADERS | MCPH_TRAIT_PER_REQUEST_CANCEL;
    EXPECT_EQ(plugin().vtable->traits, want);
    EXPECT_NE(plugin().vtable->send_ex, nullptr);
    EXPECT_NE(plugin().vtable->cancel, nullptr);
}

// ---- request metadata headers -------------------------------------------------------------------

TEST_F(HttpModernTest, RequestPostCarriesMethodNameParamsAndVersion) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(empty_result(2)); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    Facts f = facts(2, "tools/call", "execute_sql");
    f.params = {{"Region", "us-west1"},
                {"Greeting", "Hello, \xE4\xB8\x96\xE7\x95\x8C"},
                {"Text", " padded "},
                {"Lines", "line1\nline2"},
                {"Val", "=?base64?literal?="},
                {"Count", "42"},
                {"Empty", ""}};
    ASSERT_EQ(t.send_ex(rpc(2, "tools/call", R"({"name":"execute_sql"})"), f), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(1));
    Request r = server.requests().at(0);
    EXPECT_EQ(r.header("mcp-protocol-version"), kModern);
    EXPECT_EQ(r.header("mcp-method"), "tools/call");
    EXPECT_EQ(r.header("mcp-name"), "execute_sql");
    EXPECT_EQ(r.header("mcp-param-region"), "us-west1");
    EXPECT_EQ(r.header("mcp-param-greeting"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    EXPECT_EQ(r.header("mcp-param-text"), "=?base64?IHBhZGRlZCA=?=");
    EXPECT_EQ(r.header("mcp-param-lines"), "=?base64?bGluZTEKbGluZTI=?=");
    EXPECT_EQ(r.header("mcp-param-val"), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    EXPECT_EQ(r.header("mcp-param-count"), "42");
    EXPECT_TRUE(r.has("mcp-param-empty"));
    EXPECT_EQ(r.header("mcp-param-empty"), "");
    EXPECT_EQ(r.header("accept"), "application/json, text/event-stream");
}

// Issue #16: a 1 MiB request sent with facts (not scanned on send, OutgoingCommand.* proves it: its id comes from the
// facts), and its 1 MiB answer, as JSON or as one SSE event, still reaches the host whole and
// answers it; an answer for another id still fails the request with a reason.
TEST_F(HttpModernTest, LargeRequestWithFactsIsRoutedAndAnswered) {
    const std::string text(size_t{1} << 20, 'x');
    const std::string big_result = R"({"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":")" + text + R"("}]}})";
    auto result_for = [&](const std::string& id) {
        std::string r = big_result;
        return r.replace(r.find("ID"), 2, id);
    };
    FakeServer server;
    server.on([&](Exchange& ex) {
        const std::string id = ex.request.header("mcp-param-id");
        if (id == "sse") {
            ex.sse_begin();
            ex.sse_send("event: message\ndata: " + result_for("12") + "\n\n");
            ex.sse_end();
        } else {
            ex.json(result_for(id == "other" ? "99" : "11"));
        }
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    auto send = [&](int id, const std::string& route) {
        Facts f = facts(id, "tools/call", "echo");
        f.params = {{"Id", route}};
        return t.send_ex(rpc(id, "tools/call", R"({"name":"echo","arguments":{"text":")" + text + R"("}})"), f);
    };
    ASSERT_EQ(send(11, "json"), MCPH_OK) << t.error();
    ASSERT_EQ(send(12, "sse"), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(2, 10s));
    for (const std::string& m : t.recorder.messages()) EXPECT_EQ(m.size(), big_result.size());
    ASSERT_EQ(send(13, "other"), MCPH_OK) << t.error();
    ASSERT_TRUE(t.recorder.wait_request_failures(1, 10s));
    TypedFailure f = t.recorder.request_failures().at(0);
    EXPECT_EQ(f.request_id, "13");
    EXPECT_NE(f.message.find("did not answer the request"), std::string::npos) << f.message;
}

TEST_F(HttpModernTest, NameIsEncodedForResourcesAndPrompts) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.json(ex.request.header("mcp-method") == "resources/read" ? empty_result(3) : empty_result(4));
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(3, "resources/read"), facts(3, "resources/read", "file:///caf\xC3\xA9 menu.txt")), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(4, "prompts/get"), facts(4, "prompts/get", "plain prompt")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    for (const Request& r : server.requests()) {
        if (r.header("mcp-method") == "resources/read")
            EXPECT_EQ(r.header("mcp-name"), "=?base64?ZmlsZTovLy9jYWbDqSBtZW51LnR4dA==?=");
        else
            EXPECT_EQ(r.header("mcp-name"), "plain prompt");
    }
}

TEST_F(HttpModernTest, NotificationPostCarriesMethodAndExpects202) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(202, ""); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    ASSERT_EQ(t.send_ex(notification("notifications/initialized"), facts(0, "notifications/initialized")), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(1, "POST"));
    Request r = server.requests().at(0);
    EXPECT_EQ(r.header("mcp-method"), "notifications/initialized");
    EXPECT_FALSE(r.has("mcp-name"));
    EXPECT_EQ(r.header("mcp-protocol-version"), kModern);
    t.close();
    EXPECT_TRUE(t.recorder.request_failures().empty());
    EXPECT_TRUE(t.recorder.failures().empty());
}

// The message's own version (its facts) wins over the option; a plain send keeps the option.
TEST_F(HttpModernTest, MessageVersionOverridesTheOption) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(ex.request.has("mcp-method") ? empty_result(6) : empty_result(7)); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("protocol-version", "2025-11-25"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(6, "tools/list"), facts(6, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.send(rpc(7, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    std::vector<Request> rs = server.requests();
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(rs[0].header("mcp-protocol-version"), kModern);
    EXPECT_EQ(rs[1].header("mcp-protocol-version"), "2025-11-25");
    EXPECT_FALSE(rs[1].has("mcp-method"));  // a plain send is today's POST
}

TEST_F(HttpModernTest, UnusableFactsAreRefusedBeforeAnythingIsSent) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(empty_result(8)); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    Facts bad = facts(8, "tools/call", "t");
    bad.params = {{"X\r\nInjected", "v"}};
    EXPECT_EQ(t.send_ex(rpc(8, "tools/call"), bad), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("not an HTTP token"), std::string::npos) << t.error();
    Facts bad_version = facts(8, "tools/call", "t");
    bad_version.protocol_version = "2026 07 28";
    EXPECT_EQ(t.send_ex(rpc(8, "tools/call"), bad_version), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t.set_option("era", "future"), MCPH_ERR_INVALID_ARGUMENT);
    // Proof that nothing was queued: the next message is the server's first request.
    ASSERT_EQ(t.send_ex(rpc(8, "tools/call"), facts(8, "tools/call", "t")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpModernTest, ConfigMayNotSetMetadataHeaders) {
    for (const char* name : {"Mcp-Method", "mcp-name", "Mcp-Param-Region"}) {
        Transport t(http_config("http://127.0.0.1:1/mcp", std::string(R"("headers":{")") + name + R"(":"x"})"), true);
        EXPECT_EQ(t.create_status(), MCPH_ERR_INVALID_ARGUMENT) << name;
    }
}

// ---- the modern era: stateless ------------------------------------------------------------------

// Sends two requests with "initialized" between them, and a third once both were answered: a GET
// stream, had one been opened, has reached the server by then.
std::vector<Request> run_session_scenario(const std::string& era) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.method == "GET") return ex.respond(405, "");
        if (ex.request.method == "DELETE") return ex.respond(204, "");
        std::string id = ex.request.header("mcp-method") == "a" ? "1" : ex.request.header("mcp-method") == "b" ? "2" : "3";
        ex.json(empty_result(std::stoi(id)), {{"Mcp-Session-Id", "session-1"}});
    });
    Transport t(http_config(server.url()), true);
    EXPECT_EQ(t.start(), MCPH_OK);
    EXPECT_EQ(t.set_option("era", era), MCPH_OK);
    EXPECT_EQ(t.send_ex(rpc(1, "a"), facts(1, "a")), MCPH_OK);
    EXPECT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.set_option("initialized", ""), MCPH_OK);
    EXPECT_EQ(t.send_ex(rpc(2, "b"), facts(2, "b")), MCPH_OK);
    EXPECT_TRUE(t.recorder.wait_messages(2));
    if (era == "legacy") {
        EXPECT_TRUE(server.wait_requests(1, "GET"));
    }
    EXPECT_EQ(t.send_ex(rpc(3, "c"), facts(3, "c")), MCPH_OK);
    EXPECT_TRUE(t.recorder.wait_messages(3));
    t.close();  // legacy: DELETE with the session id
    return server.requests();
}

TEST_F(HttpModernTest, ModernEraSendsNoSessionIdAndOpensNoGetStream) {
    std::vector<Request> rs = run_session_scenario("modern");
    ASSERT_EQ(rs.size(), 3u);
    for (const Request& r : rs) {
        EXPECT_EQ(r.method, "POST");  // no GET stream, no DELETE
        EXPECT_FALSE(r.has("mcp-session-id")) << r.header("mcp-method");
        EXPECT_FALSE(r.has("last-event-id"));
    }
}

// The control: the same server in the legacy era gets the session id back, a GET and a DELETE.
TEST_F(HttpModernTest, LegacyEraKeepsSessionsAndTheGetStream) {
    std::vector<Request> rs = run_session_scenario("legacy");
    size_t gets = 0, deletes = 0, with_session = 0;
    for (const Request& r : rs) {
        gets += r.method == "GET";
        deletes += r.method == "DELETE";
        with_session += r.header("mcp-session-id") == "session-1";
    }
    EXPECT_GE(gets, 1u);
    EXPECT_EQ(deletes, 1u);
    EXPECT_GE(with_session, 3u);  // b, c, the GET and the DELETE carry it
}

// ---- typed failures -----------------------------------------------------------------------------

TEST_F(HttpModernTest, UnsupportedVersion400ReachesRequestFailedWithTheBody) {
    const std::string body =
        R"({"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Unsupported protocol version",)"
        R"("data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}})";
    FakeServer server;
    server.on([&](Exchange& ex) { ex.respond(400, body, {{"Content-Type", "application/json"}}); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(5, "tools/list"), facts(5, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    TypedFailure f = t.recorder.request_failures().at(0);
    EXPECT_EQ(f.request_id, "5");
    EXPECT_EQ(f.category, MCPH_FAILURE_HTTP_STATUS);
    EXPECT_EQ(f.http_status, 400);
    EXPECT_EQ(f.body, body);
    EXPECT_NE(f.message.find("HTTP 400"), std::string::npos) << f.message;
    t.close();
    EXPECT_TRUE(t.recorder.messages().empty()) << "no synthesized JSON-RPC error for a typed host";
    EXPECT_EQ(t.recorder.closed_count(), 0);
}

TEST_F(HttpModernTest, ErrorBodyHandedOverIsBounded) {
    const std::string body = R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":")" +
                             std::string(200 * 1024, 'x') + R"("}})";
    FakeServer server;
    server.on([&](Exchange& ex) { ex.respond(500, body, {{"Content-Type", "application/json"}}); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(5, "tools/list"), facts(5, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    TypedFailure f = t.recorder.request_failures().at(0);
    EXPECT_EQ(f.http_status, 500);
    EXPECT_EQ(f.body.size(), 64u * 1024);
    EXPECT_EQ(f.body, body.substr(0, 64 * 1024));
}

// The failure is reported under the host's spelling of the id, not the transport's canonical one.
TEST_F(HttpModernTest, FailureUsesTheHostsIdSpelling) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(503, "busy"); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    Facts f = facts(0, "tools/list");
    f.id = R"("\u0061")";  // "a", spelled with an escape
    ASSERT_EQ(t.send_ex(R"({"jsonrpc":"2.0","id":"\u0061","method":"tools/list"})", f), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    EXPECT_EQ(t.recorder.request_failures().at(0).request_id, R"("\u0061")");
    EXPECT_EQ(t.recorder.request_failures().at(0).http_status, 503);
}

TEST_F(HttpModernTest, StreamResetMidSseIsARequestFailedReset) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})"));
        std::this_thread::sleep_for(50ms);
        ex.cut();
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(9, "tools/call"), facts(9, "tools/call", "slow")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    TypedFailure f = t.recorder.request_failures().at(0);
    EXPECT_EQ(f.request_id, "9");
    EXPECT_EQ(f.category, MCPH_FAILURE_RESET);
    EXPECT_EQ(t.recorder.messages().size(), 1u);  // the progress notification came through
    t.close();
    EXPECT_EQ(server.requests("GET").size(), 0u) << "no Last-Event-ID resumption in the modern era";
}

// Nothing but the POST can carry a modern answer: a 202 for a request fails it at once.
TEST_F(HttpModernTest, AcceptedWithoutBodyForARequestFailsItInTheModernEra) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(202, ""); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(10, "tools/list"), facts(10, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    EXPECT_EQ(t.recorder.request_failures().at(0).category, MCPH_FAILURE_PROTOCOL);
    EXPECT_EQ(t.recorder.request_failures().at(0).http_status, 202);
}

TEST_F(HttpModernTest, RefusedConnectionIsTypedRefused) {
    Transport t(http_config("http://127.0.0.1:" + std::to_string(closed_port()) + "/mcp"), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    for (int id = 1; id <= 3; ++id) ASSERT_EQ(t.send_ex(rpc(id, "tools/list"), facts(id, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_request_failures(3));
    for (const TypedFailure& f : t.recorder.request_failures()) {
        EXPECT_EQ(f.category, MCPH_FAILURE_REFUSED) << f.message;
        EXPECT_EQ(f.os_error, ECONNREFUSED);
        EXPECT_EQ(f.http_status, 0);
    }
    ASSERT_FALSE(t.recorder.failures().empty());
    EXPECT_EQ(t.recorder.failures().at(0).category, MCPH_FAILURE_REFUSED);
    ASSERT_TRUE(t.recorder.wait_closed());  // three in a row: the transport gives up, typed
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_REFUSED);
}

TEST_F(HttpModernTest, ExpiredSessionKeepsItsCloseReasonTyped) {
    FakeServer server;
    server.on([](Exchange& ex) {
        if (ex.request.has("mcp-session-id")) return ex.respond(404, "");
        ex.json(empty_result(1), {{"Mcp-Session-Id", "s"}});
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(1, "initialize"), facts(1, "initialize")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.send_ex(rpc(2, "tools/list"), facts(2, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_SESSION_EXPIRED);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_SESSION_EXPIRED);
    EXPECT_EQ(t.recorder.close_failure().http_status, 404);
}

TEST_F(HttpModernTest, RefusedAuthIsTypedAuth) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.respond(401, "", {{"WWW-Authenticate", "Bearer"}}); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(1, "tools/list"), facts(1, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_EQ(t.recorder.close_failure().category, MCPH_FAILURE_AUTH);
    EXPECT_EQ(t.recorder.close_failure().http_status, 401);
}

// ---- per-request cancel -------------------------------------------------------------------------

TEST_F(HttpModernTest, CancelClosesThatRequestsStream) {
    Signal first_event_sent, client_left;
    FakeServer server;
    server.on([&](Exchange& ex) {
        if (ex.request.header("mcp-method") != "tools/call") return ex.json(empty_result(12));
        ex.sse_begin();
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})"));
        first_event_sent.set();
        // Keep-alive comments until the client hangs up (a write then fails), at most 8 s.
        for (auto give_up = Clock::now() + 8s; Clock::now() < give_up;) {
            if (!ex.sse_send(":\n\n")) return client_left.set();
            std::this_thread::sleep_for(20ms);
        }
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(11, "tools/call"), facts(11, "tools/call", "forever")), MCPH_OK);
    ASSERT_TRUE(first_event_sent.wait());
    ASSERT_TRUE(t.recorder.wait_messages(1));
    ASSERT_EQ(t.cancel("11"), MCPH_OK);
    EXPECT_TRUE(client_left.wait(5s)) << "the server never saw the stream close";
    // Another request still works on the same transport, and proves the loop went on.
    ASSERT_EQ(t.send_ex(rpc(12, "tools/list"), facts(12, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    t.close();
    EXPECT_TRUE(t.recorder.request_failures().empty()) << "nothing is reported for a cancelled request";
    EXPECT_EQ(t.recorder.messages().size(), 2u);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A request cancelled before its stream opened is not reported either, and a cancel for an id
// the transport does not know is harmless.
TEST_F(HttpModernTest, CancelOfAnUnknownOrFinishedRequestIsHarmless) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(echo_result(ex)); });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    EXPECT_EQ(t.cancel("999"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(13, "tools/list"), facts(13, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.cancel("13"), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(14, "tools/list"), facts(14, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2));
    t.close();
    EXPECT_TRUE(t.recorder.request_failures().empty());
}

// Ten requests the server holds, then answers 500; with `cancel` the host gave up on each first.
// The 500s are all written before request 40 is sent, so a failure the transport reports for
// them reaches the host before 40's answer.
void run_cancel_scenario(bool cancel, std::vector<TypedFailure>& failures) {
    Signal go;
    std::atomic<int> answered{0};
    FakeServer server;
    server.on([&](Exchange& ex) {
        if (ex.request.header("mcp-method") != "tools/call") return ex.json(echo_result(ex));
        go.wait();
        ex.respond(500, "boom");
        answered.fetch_add(1);
    });
    Transport t(http_config(server.url()), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    for (int id = 30; id < 40; ++id) ASSERT_EQ(t.send_ex(rpc(id, "tools/call"), facts(id, "tools/call", "x")), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(10, "POST"));
    if (cancel) {
        for (int id = 30; id < 40; ++id) ASSERT_EQ(t.cancel(std::to_string(id)), MCPH_OK);
    }
    go.set();
    for (auto give_up = Clock::now() + 5s; answered.load() < 10 && Clock::now() < give_up;)
        std::this_thread::sleep_for(5ms);
    ASSERT_EQ(answered.load(), 10);
    ASSERT_EQ(t.send_ex(rpc(40, "tools/list"), facts(40, "tools/list")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    t.close();
    failures = t.recorder.request_failures();
}

TEST_F(HttpModernTest, CancelledRequestsAreNeverReported) {
    std::vector<TypedFailure> failures;
    run_cancel_scenario(true, failures);
    EXPECT_TRUE(failures.empty()) << failures.size() << " reported, e.g. " << failures.at(0).request_id;
}

// The control: without the cancel, the same scenario reports all ten before 40's answer.
TEST_F(HttpModernTest, UncancelledRequestsAreReported) {
    std::vector<TypedFailure> failures;
    run_cancel_scenario(false, failures);
    EXPECT_EQ(failures.size(), 10u);
}

// ---- subscriptions/listen -----------------------------------------------------------------------

// A listen stream stays open through a quiet spell longer than timeoutMs; an ordinary request's
// stream that goes quiet that long times out.
TEST_F(HttpModernTest, ListenStreamHasNoIdleDeadline) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"})"));
        std::this_thread::sleep_for(900ms);
        ex.sse_send(event(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"));
        std::this_thread::sleep_for(100ms);
        ex.sse_end();
    });
    Transport t(http_config(server.url(), R"("timeoutMs":300)"), true);
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("era", "modern"), MCPH_OK);
    Facts listen = facts(20, "subscriptions/listen");
    listen.flags = MCPH_MESSAGE_LISTEN_STREAM;
    ASSERT_EQ(t.send_ex(rpc(20, "subscriptions/listen"), listen), MCPH_OK);
    ASSERT_EQ(t.send_ex(rpc(21, "tools/call"), facts(21, "tools/call", "quiet")), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(3, 5s));  // two acknowledgements, then the listen stream's change
    ASSERT_TRUE(t.recorder.wait_request_failures(2, 5s));  // 21 timed out; 20 then ended without its response
    std::vector<TypedFailure> fs = t.recorder.request_failures();
    EXPECT_EQ(fs.at(0).request_id, "21");
    EXPECT_EQ(fs.at(0).category, MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(fs.at(1).request_id, "20");
    EXPECT_EQ(fs.at(1).category, MCPH_FAILURE_RESET);
    std::vector<std::string> ms = t.recorder.messages();
    EXPECT_EQ(ms.size(), 3u);  // 21's stream was cut at its idle deadline: its change never came
    EXPECT_NE(ms.back().find("list_changed"), std::string::npos) << ms.back();
}

}  // namespace
}  // namespace http_test
