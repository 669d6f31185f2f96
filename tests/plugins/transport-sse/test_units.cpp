// Unit tests of the plugin's pure parts, compiled in directly: endpoint resolution and the
// same-origin rule, config parsing, body snippets, the outbox bounds, the start handshake and the
// typed category of a failed transfer.
#include "transfer_failure.hpp"
#include "curl_handles.hpp"
#include "endpoint_url.hpp"
#include "handshake.hpp"
#include "outbox.hpp"
#include "snippet.hpp"
#include "sse_config.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <thread>

namespace mcph::sse {
namespace {

using namespace std::chrono_literals;
using mcph::http::kSnippetBytes;
using mcph::http::snippet;

// ---- curl_failure -------------------------------------------------------------------------------

TEST(CurlFailure, CodesAndErrnosMapToCategories) {
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_CONNECT, ECONNREFUSED), MCPH_FAILURE_REFUSED);
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_CONNECT, 0), MCPH_FAILURE_REFUSED);
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_CONNECT, EHOSTUNREACH), MCPH_FAILURE_UNREACHABLE);
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_CONNECT, ENETUNREACH), MCPH_FAILURE_UNREACHABLE);
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_CONNECT, ETIMEDOUT), MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(curl_failure_category(CURLE_COULDNT_RESOLVE_HOST, 0), MCPH_FAILURE_UNREACHABLE);
    EXPECT_EQ(curl_failure_category(CURLE_OPERATION_TIMEDOUT, 0), MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(curl_failure_category(CURLE_PEER_FAILED_VERIFICATION, 0), MCPH_FAILURE_TLS);
    EXPECT_EQ(curl_failure_category(CURLE_SSL_CONNECT_ERROR, 0), MCPH_FAILURE_TLS);
    EXPECT_EQ(curl_failure_category(CURLE_RECV_ERROR, ECONNRESET), MCPH_FAILURE_RESET);
    EXPECT_EQ(curl_failure_category(CURLE_SEND_ERROR, EPIPE), MCPH_FAILURE_RESET);
    EXPECT_EQ(curl_failure_category(CURLE_PARTIAL_FILE, 0), MCPH_FAILURE_RESET);
    EXPECT_EQ(curl_failure_category(CURLE_GOT_NOTHING, 0), MCPH_FAILURE_RESET);
    EXPECT_EQ(curl_failure_category(CURLE_WEIRD_SERVER_REPLY, 0), MCPH_FAILURE_PROTOCOL);
    EXPECT_EQ(curl_failure_category(CURLE_OUT_OF_MEMORY, 0), MCPH_FAILURE_OTHER);
}

TEST(CurlFailure, TheErrnoGoesOutAsOsError) {
    mcph::http::EasyHandle easy = mcph::http::new_easy();
    const auto f = curl_failure_of(easy.get(), CURLE_OPERATION_TIMEDOUT, "timed out");
    EXPECT_EQ(f.category, MCPH_FAILURE_TIMEOUT);
    EXPECT_EQ(f.os_error, 0) << "no transfer ran on this handle";
    EXPECT_EQ(f.message, "timed out");
}

// ---- endpoint_url -------------------------------------------------------------------------------

TEST(EndpointUrl, RelativeReferencesResolveAgainstTheSseUrl) {
    const std::string base = "http://127.0.0.1:3001/sse";
    EXPECT_EQ(resolve_endpoint(base, "/message?sessionId=1").url, "http://127.0.0.1:3001/message?sessionId=1");
    EXPECT_EQ(resolve_endpoint("http://h/a/b/sse", "msg").url, "http://h/a/b/msg");
    EXPECT_EQ(resolve_endpoint("http://h/a/b/sse", "../msg").url, "http://h/a/msg");
    EXPECT_EQ(resolve_endpoint("http://h/sse?x=1", "?sessionId=2").url, "http://h/sse?sessionId=2");
    EXPECT_EQ(resolve_endpoint(base, "  /padded \t").url, "http://127.0.0.1:3001/padded");
}

TEST(EndpointUrl, AbsoluteSameOriginIsAccepted) {
    EXPECT_EQ(resolve_endpoint("http://h:8080/sse", "http://h:8080/m").url, "http://h:8080/m");
    // Default ports are made explicit, and host names compare without case.
    EXPECT_TRUE(resolve_endpoint("http://h/sse", "http://h:80/m").error.empty());
    EXPECT_TRUE(resolve_endpoint("https://h:443/sse", "https://H/m").error.empty());
}

TEST(EndpointUrl, AnotherOriginIsRefused) {
    for (const char* ref : {"http://other/m", "http://h:81/m", "https://h/m", "//other/m", "ftp://h/m",
                            "http://h.evil/m"}) {
        ResolvedEndpoint r = resolve_endpoint("http://h/sse", ref);
        EXPECT_TRUE(r.url.empty()) << ref;
        EXPECT_NE(r.error.find("origin"), std::string::npos) << ref << ": " << r.error;
    }
}

TEST(EndpointUrl, GarbageIsRefused) {
    EXPECT_FALSE(resolve_endpoint("http://h/sse", "").error.empty());
    EXPECT_FALSE(resolve_endpoint("http://h/sse", "   ").error.empty());
    EXPECT_FALSE(resolve_endpoint("http://h/sse", "/a b").error.empty());
    EXPECT_FALSE(resolve_endpoint("http://h/sse", std::string_view("/a\0b", 4)).error.empty());
    EXPECT_FALSE(resolve_endpoint("http://h/sse", "/a\r\nX-Injected: 1").error.empty());
}

TEST(EndpointUrl, CheckHttpUrl) {
    EXPECT_EQ(check_http_url("http://localhost:3001/sse"), "");
    EXPECT_EQ(check_http_url("HTTPS://example.com/sse"), "");
    EXPECT_NE(check_http_url("ws://example.com/sse"), "");
    EXPECT_NE(check_http_url("example.com/sse"), "");
    EXPECT_NE(check_http_url("http://exa mple.com/"), "");
    EXPECT_NE(check_http_url(""), "");
}

// ---- config -------------------------------------------------------------------------------------

TEST(Config, DefaultsAndFields) {
    SseConfig c = parse_config(R"({"url":"http://h/sse"})");
    EXPECT_EQ(c.type, "sse");
    EXPECT_EQ(c.timeout, 60000ms);
    EXPECT_EQ(c.connect_timeout, 10000ms);
    EXPECT_EQ(c.max_message_bytes, size_t{128} << 20);
    EXPECT_EQ(c.loop_idle, 2000ms);
    EXPECT_FALSE(c.ide_name.has_value());

    c = parse_config(R"({"type":"sse-ide","name":"n","url":"https://h/sse","headers":{"X-A":"1","X-B":""},
                         "timeoutMs":5,"connectTimeoutMs":6,"maxMessageBytes":7,"loopIdleMs":0,
                         "ideName":"JetBrains","ideRunningInWindows":false,"unknown":{"ignored":true}})");
    EXPECT_EQ(c.type, "sse-ide");
    EXPECT_EQ(c.name, "n");
    ASSERT_EQ(c.headers.size(), 2u);
    EXPECT_EQ(c.headers[1].first, "X-B");
    EXPECT_EQ(c.timeout, 5ms);
    EXPECT_EQ(c.connect_timeout, 6ms);
    EXPECT_EQ(c.max_message_bytes, 7u);
    EXPECT_EQ(c.loop_idle, 0ms);
    EXPECT_EQ(c.ide_name, "JetBrains");
    EXPECT_EQ(c.ide_running_in_windows, false);
    EXPECT_NE(c.describe().find("IDE 'JetBrains'"), std::string::npos);
}

TEST(Config, ErrorsAreInvalidArgumentWithTheTypeAsPrefix) {
    try {
        parse_config(R"({"type":"sse-ide","url":"http://h/sse","ideRunningInWindows":1})");
        FAIL();
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT);
        EXPECT_STREQ(e.what(), "sse-ide config: 'ideRunningInWindows' must be true or false");
    }
}

TEST(Config, LoopIdleMsOutOfRangeIsRefused) {
    for (const char* bad : {R"({"url":"http://h/sse","loopIdleMs":-1})", R"({"url":"http://h/sse","loopIdleMs":86400001})",
                            R"({"url":"http://h/sse","loopIdleMs":"2s"})"}) {
        try {
            parse_config(bad);
            ADD_FAILURE() << bad;
        } catch (const mcph::plugin::Error& e) {
            EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find("'loopIdleMs'"), std::string::npos) << e.what();
        }
    }
}

TEST(Config, ManagedHeaders) {
    EXPECT_TRUE(is_managed_header("content-TYPE"));
    EXPECT_TRUE(is_managed_header("Accept"));
    EXPECT_FALSE(is_managed_header("Authorization"));
    EXPECT_TRUE(is_token("X-Api-Key"));
    EXPECT_FALSE(is_token("Bad Name"));
    EXPECT_FALSE(is_safe_header_value(std::string_view("a\0b", 3)));
}

// ---- snippet ------------------------------------------------------------------------------------

TEST(Snippet, CutsSanitisesAndKeepsUtf8) {
    EXPECT_EQ(snippet("line1\nline2\t\r\n"), "line1 line2");
    EXPECT_EQ(snippet(std::string(500, 'x')).size(), kSnippetBytes);
    EXPECT_EQ(snippet("caf\xC3\xA9"), "caf\xC3\xA9");
    EXPECT_EQ(snippet("bad\xFF"), "bad?");
    EXPECT_EQ(snippet("ab\xC3\xA9", 3), "ab?");  // a sequence cut by the limit is not split
}

// ---- outbox -------------------------------------------------------------------------------------

TEST(Outbox, BoundsCountQueuedAndInFlightMessages) {
    Outbox box(3, 10);
    EXPECT_TRUE(box.push({std::string(20, 'a'), {}}));  // one message always fits an empty box
    EXPECT_FALSE(box.push({"b", {}}));                  // over the byte bound
    EXPECT_EQ(box.take_all().size(), 1u);
    EXPECT_FALSE(box.push({"b", {}}));  // still in flight
    box.done(20);
    EXPECT_TRUE(box.push({"1234", {}}));
    EXPECT_TRUE(box.push({"1234", {}}));
    EXPECT_FALSE(box.push({"123", {}}));  // 11 bytes
    EXPECT_TRUE(box.push({"12", {}}));
    EXPECT_FALSE(box.push({"", {}}));  // 4 messages
    auto all = box.take_all();
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[2].payload, "12");
}

// ---- handshake ----------------------------------------------------------------------------------

TEST(Handshake, SucceedsFailsOrTimesOut) {
    {
        Handshake h;
        h.arm(5s);
        std::thread io([&] { EXPECT_TRUE(h.succeed()); });
        EXPECT_EQ(h.wait([] { return std::string("late"); }).status, MCPH_OK);
        io.join();
    }
    {
        Handshake h;
        h.arm(5s);
        h.fail(MCPH_ERR_IO, "boom");
        h.fail(MCPH_ERR_AUTH, "ignored: already settled");
        Handshake::Result r = h.wait([] { return std::string("late"); });
        EXPECT_EQ(r.status, MCPH_ERR_IO);
        EXPECT_EQ(r.message, "boom");
    }
    {
        Handshake h;
        h.arm(50ms);
        Handshake::Result r = h.wait([] { return std::string("too slow"); });
        EXPECT_EQ(r.status, MCPH_ERR_TIMEOUT);
        EXPECT_EQ(r.message, "too slow");
        EXPECT_FALSE(h.succeed());  // the I/O thread learns that start() gave up
    }
}

TEST(Handshake, PauseSuspendsTheDeadlineUntilTheNextArm) {
    Handshake h;
    h.arm(50ms);
    h.pause();
    std::thread io([&] {
        std::this_thread::sleep_for(200ms);  // longer than the first window
        h.arm(50ms);
    });
    auto began = std::chrono::steady_clock::now();
    EXPECT_EQ(h.wait([] { return std::string("t"); }).status, MCPH_ERR_TIMEOUT);
    EXPECT_GE(std::chrono::steady_clock::now() - began, 200ms);
    io.join();
}

}  // namespace
}  // namespace mcph::sse
