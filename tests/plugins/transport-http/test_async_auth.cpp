// ABI v1.2 asynchronous auth (issue #12, "auth off the transport's I/O thread"): a host that
// answers MCPH_PENDING parks only that request; every other transfer and stream keeps going; the
// request goes out once the answer arrives; a challenge's retry is parked the same way; close()
// with an answer still pending returns at once.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace http_test {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string progress(int n) {
    return R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":)" + std::to_string(n) + "}}";
}
bool carries(const Request& r, int id) { return r.body.find("\"id\":" + std::to_string(id) + ",") != std::string::npos; }

class AsyncAuthTest : public LoopbackTest {};

// Request 1 streams progress every 100 ms; request 2's headers are pending for 1.5 s (a slow
// refresh). The stream must keep delivering meanwhile, and request 2 must not reach the server
// before its headers do.
TEST_F(AsyncAuthTest, PendingHeadersParkOnlyThatRequest) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        if (carries(ex.request, 2)) return ex.json(empty_result(2));
        ex.sse_begin();
        for (int i = 1; i <= 30; ++i) {
            if (!ex.sse_send("data: " + progress(i) + "\n\n")) return;
            std::this_thread::sleep_for(100ms);
        }
        ex.sse_send("data: " + empty_result(1) + "\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    t.recorder.enable_async_auth();
    std::atomic<int> calls{0};
    t.recorder.async_headers_hook = [&](const AuthCall&) -> std::optional<Pairs> {
        if (calls.fetch_add(1) == 0) return Pairs{{"Authorization", "Bearer one"}};
        return std::nullopt;  // the second request: the token must be refreshed first
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(1)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1)) << "the stream of request 1 did not start";
    ASSERT_EQ(t.send(request(2)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    const size_t before = t.recorder.messages().size();
    std::this_thread::sleep_for(1500ms);  // the "refresh" takes this long
    const size_t during = t.recorder.messages().size() - before;
    EXPECT_GE(during, 5u) << "request 1's stream stalled while request 2 waited for its headers";
    for (const Request& r : server.requests("POST")) EXPECT_FALSE(carries(r, 2)) << "request 2 went out without its headers";
    ASSERT_TRUE(t.recorder.complete_pending(MCPH_OK, {{"Authorization", "Bearer two"}}));
    // Request 1's progress keeps coming meanwhile: wait for request 2's answer itself, not for
    // "one more message" (under ASan that was often a progress notification).
    auto answered_two = [&] {
        const auto m = t.recorder.messages();
        return std::find(m.begin(), m.end(), empty_result(2)) != m.end();
    };
    for (size_t n = before + during + 1; !answered_two() && n < before + during + 50 && t.recorder.wait_messages(n, 5s); ++n) {
    }
    EXPECT_TRUE(answered_two());
    for (const Request& r : server.requests("POST")) {
        if (carries(r, 2)) {
            EXPECT_EQ(r.header("authorization"), "Bearer two");
        }
    }
    // What a DPoP proof binds to.
    const auto auth = t.recorder.auth_calls();
    ASSERT_GE(auth.size(), 2u);
    EXPECT_EQ(auth[1].method, "POST");
    EXPECT_EQ(auth[1].url, server.url());
    EXPECT_EQ(auth[1].http_status, 0);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A challenge the host needs time for (a sign-in): the retry waits, parked; the hook sees the
// whole response — every WWW-Authenticate value and the DPoP-Nonce header.
TEST_F(AsyncAuthTest, PendingChallengeParksTheRetryAndSeesTheWholeResponse) {
    FakeServer server;
    std::atomic<int> posts{0};
    server.on([&](Exchange& ex) {
        if (posts.fetch_add(1) == 0) {  // written by hand: two WWW-Authenticate lines
            ex.write_raw("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"x\"\r\n"
                         "WWW-Authenticate: DPoP error=\"use_dpop_nonce\"\r\nDPoP-Nonce: n-42\r\n"
                         "Content-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        ex.json(empty_result(5));
    });
    Transport t(http_config(server.url()));
    t.recorder.enable_async_auth();
    t.recorder.async_challenge_hook = [](const AuthCall&) -> std::optional<bool> { return std::nullopt; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(5)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    const auto calls = t.recorder.auth_calls();
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_TRUE(calls[1].challenge);
    EXPECT_EQ(calls[1].http_status, 401);
    EXPECT_EQ(calls[1].method, "POST");
    EXPECT_EQ(calls[1].www_authenticate, "Bearer realm=\"x\", DPoP error=\"use_dpop_nonce\"");
    EXPECT_EQ(calls[1].header("dpop-nonce"), "n-42");
    EXPECT_EQ(server.requests("POST").size(), 1u) << "retried before the host answered";
    ASSERT_TRUE(t.recorder.complete_pending(MCPH_OK));
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().back(), empty_result(5));
    EXPECT_EQ(server.requests("POST").size(), 2u);
    EXPECT_EQ(t.recorder.auth_calls().size(), 3u) << "the retry asks for headers again";
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// The host gives up on the challenge: the transport closes with AUTH_REQUIRED and the host's reason.
TEST_F(AsyncAuthTest, RefusedPendingChallengeClosesWithTheReason) {
    FakeServer server;
    server.on([&](Exchange& ex) { ex.respond(401, "", {{"WWW-Authenticate", "Bearer"}}); });
    Transport t(http_config(server.url()), /*typed=*/true);
    t.recorder.enable_async_auth();
    t.recorder.async_challenge_hook = [](const AuthCall&) -> std::optional<bool> { return std::nullopt; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(6)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    ASSERT_TRUE(t.recorder.complete_pending(MCPH_ERR_AUTH));
    ASSERT_TRUE(t.recorder.wait_closed());
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    EXPECT_NE(t.recorder.close_failure().message.find("test host refused"), std::string::npos)
        << t.recorder.close_failure().message;
    t.close();
}

// A sign-in that never completes: close() completes the pending answer (CANCELLED, as the host
// does) and returns at once; nothing fires after it.
TEST_F(AsyncAuthTest, CloseWithHeadersPendingReturnsPromptly) {
    FakeServer server;
    server.on([&](Exchange& ex) { ex.json(empty_result(7)); });
    Transport t(http_config(server.url()));
    t.recorder.enable_async_auth();
    t.recorder.async_headers_hook = [](const AuthCall&) -> std::optional<Pairs> { return std::nullopt; };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    const auto started = Clock::now();
    t.close();
    EXPECT_LT(Clock::now() - started, 1s);
    EXPECT_EQ(t.recorder.pending_count(), 0u);
    EXPECT_TRUE(server.requests("POST").empty()) << "the parked request went out without headers";
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

// A failed answer fails that request only (typed host: request_failed), and the next one works.
TEST_F(AsyncAuthTest, FailedPendingHeadersFailThatRequestOnly) {
    FakeServer server;
    server.on([&](Exchange& ex) { ex.json(carries(ex.request, 9) ? empty_result(9) : empty_result(8)); });
    Transport t(http_config(server.url()), /*typed=*/true);
    t.recorder.enable_async_auth();
    std::atomic<int> calls{0};
    t.recorder.async_headers_hook = [&](const AuthCall&) -> std::optional<Pairs> {
        if (calls.fetch_add(1) == 0) return std::nullopt;
        return Pairs{};
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(8)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_pending(1));
    ASSERT_TRUE(t.recorder.complete_pending(MCPH_ERR_IO));
    ASSERT_TRUE(t.recorder.wait_request_failures(1));
    EXPECT_EQ(t.recorder.request_failures()[0].request_id, "8");
    ASSERT_EQ(t.send(request(9)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages()[0], empty_result(9));
    t.close();
}

// A hostile 401 with thousands of headers: the hook is told a bounded part of them, no more.
TEST_F(AsyncAuthTest, ChallengeHeadersAreBounded) {
    FakeServer server;
    server.on([&](Exchange& ex) {
        std::string raw = "HTTP/1.1 401 Unauthorized\r\n";
        for (int i = 0; i < 3000; ++i) raw += "X-Junk-" + std::to_string(i) + ": " + std::string(64, 'j') + "\r\n";
        raw += "WWW-Authenticate: Bearer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        ex.write_raw(raw);
    });
    Transport t(http_config(server.url()), /*typed=*/true);
    t.recorder.enable_async_auth();
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(11)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_closed());  // the (unset) challenge hook refuses: AUTH_REQUIRED
    EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_AUTH_REQUIRED);
    const auto calls = t.recorder.auth_calls();
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_TRUE(calls[1].challenge);
    EXPECT_LE(calls[1].response_headers.size(), 100u);
    size_t bytes = 0;
    for (const auto& [n, v] : calls[1].response_headers) bytes += n.size() + v.size();
    EXPECT_LE(bytes, 64u * 1024);
    t.close();
}

}  // namespace
}  // namespace http_test
