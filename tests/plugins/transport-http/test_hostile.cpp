// Hostile Streamable HTTP servers (issues #9 and #10): each test ends in a clear error or a correct
// result within its timeout, with no signal, under the memory / descriptor bound it asserts.
#include "../resource_probe.hpp"
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

namespace http_test {
namespace {

using mcph_test::open_fds;
using mcph_test::peak_rss_kib;
using mcph_test::reset_peak_rss;
using mcph_test::rss_kib;

constexpr size_t kLimit = size_t{1} << 20;  // maxMessageBytes in the memory tests

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

// Polls until a diagnostic containing `needle` was reported.
bool wait_diagnostic(Recorder& r, const std::string& needle, std::chrono::milliseconds timeout) {
    Clock::time_point end = Clock::now() + timeout;
    while (Clock::now() < end) {
        if (any_contains(r.diagnostics(), needle)) return true;
        std::this_thread::sleep_for(10ms);
    }
    return any_contains(r.diagnostics(), needle);
}

std::string nested(size_t depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

// Streams `total` bytes of `fill` in 64 KiB chunks from one reused buffer (the server never holds
// the payload, so the growth of this process's memory is the client's). False once the client left.
bool stream_fill(Exchange& ex, size_t total, char fill, bool chunked) {
    const std::string chunk(size_t{64} << 10, fill);
    for (size_t sent = 0; sent < total;) {
        size_t n = std::min(chunk.size(), total - sent);
        std::string piece = n == chunk.size() ? chunk : chunk.substr(0, n);
        if (!(chunked ? ex.sse_send(piece) : ex.write_raw(piece))) return false;
        sent += n;
    }
    return true;
}

class HttpHostileTest : public LoopbackTest {
protected:
    static std::string limited(const std::string& url) {
        return http_config(url, "\"maxMessageBytes\":" + std::to_string(kLimit));
    }
};

// ---- #9 item 3: nesting ---------------------------------------------------------------------------

TEST_F(HttpHostileTest, DeeplyNestedJsonBodyIsAClearError) {
    FakeServer server;
    server.on([](Exchange& ex) { ex.json(nested(100000)); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(3)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
    EXPECT_NE(error_message_for(t.recorder.messages(), 3).find("nested deeper than 128 levels"), std::string::npos)
        << t.recorder.messages().at(0).substr(0, 300);
    t.close();
}

TEST_F(HttpHostileTest, DeeplyNestedSseEventIsSkippedWithAClearReason) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send("data: " + nested(100000) + "\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(4)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
    EXPECT_NE(error_message_for(t.recorder.messages(), 4).find("ended before the response"), std::string::npos);
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "nested deeper than 128 levels"));
    t.close();
}

// ---- #10 item 7: memory bounds --------------------------------------------------------------------

// A 100 MB `id:` (and `event:`) used to reach 630 MB; now the stream is refused at the bound.
TEST_F(HttpHostileTest, HugeSseIdOrEventFieldIsRefusedWithinTheBound) {
    for (std::string field : {"id: ", "event: "}) {
        SCOPED_TRACE(field);
        FakeServer server;
        server.on([&](Exchange& ex) {
            ex.sse_begin();
            ex.sse_send(field);
            stream_fill(ex, size_t{100} << 20, '7', true);  // stops when the client hangs up
            ex.sse_end();
        });
        Transport t(limited(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_TRUE(reset_peak_rss());
        long before = rss_kib();
        ASSERT_EQ(t.send(request(5)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
        EXPECT_NE(error_message_for(t.recorder.messages(), 5).find("larger than maxMessageBytes"), std::string::npos)
            << t.recorder.messages().at(0);
        t.close();
        // The bound is checked in the normal build; under ASan, RSS also holds shadow memory and
        // the quarantine of freed chunks, so only the refusal is asserted there.
        if (!mcph_test::kSanitized) {
            EXPECT_LT(peak_rss_kib() - before, static_cast<long>(2 * kLimit / 1024 + 8 * 1024)) << "KiB";
        }
    }
}

TEST_F(HttpHostileTest, ContentLengthOverTheLimitIsRefusedBeforeReading) {
    FakeServer server;
    std::atomic<bool> finished_sending{false};
    server.on([&](Exchange& ex) {
        ex.write_raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n"
                     "Connection: close\r\n\r\n");
        finished_sending = stream_fill(ex, 1000000000, ' ', false);
    });
    Transport t(limited(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_TRUE(reset_peak_rss());
    long before = rss_kib();
    ASSERT_EQ(t.send(request(6)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
    std::string why = error_message_for(t.recorder.messages(), 6);
    EXPECT_NE(why.find("declares Content-Length 1000000000, more than maxMessageBytes"), std::string::npos) << why;
    t.close();
    EXPECT_FALSE(finished_sending.load());
    EXPECT_LT(peak_rss_kib() - before, static_cast<long>(2 * kLimit / 1024 + 8 * 1024)) << "KiB";
}

// A body without Content-Length over the limit: cut at the limit, and the buffer never doubles
// past it.
TEST_F(HttpHostileTest, UndeclaredOversizedJsonBodyIsCutWithinTheBound) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.write_raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[\"");
        stream_fill(ex, size_t{64} << 20, 'a', false);
    });
    Transport t(limited(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_TRUE(reset_peak_rss());
    long before = rss_kib();
    ASSERT_EQ(t.send(request(7)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
    EXPECT_NE(error_message_for(t.recorder.messages(), 7).find("larger than maxMessageBytes"), std::string::npos);
    t.close();
    // Under ASan the quarantine keeps the in-process fake server's freed write buffers resident (a
    // clean-clone run measured 10,512 KiB against the 10,240 KiB bound), as for the tests below.
    if (!mcph_test::kSanitized) {
        EXPECT_LT(peak_rss_kib() - before, static_cast<long>(2 * kLimit / 1024 + 8 * 1024)) << "KiB";
    }
}

// The buffer of a body without Content-Length does not double: cut at a 64 MiB limit, the peak is
// the limit plus a little, not the 1.5–2× of a growing string (32 MiB copied into 64 MiB).
TEST_F(HttpHostileTest, UndeclaredBodyBufferDoesNotDouble) {
    if (mcph_test::kSanitized) GTEST_SKIP() << "RSS under ASan or TSan includes its shadow memory";
    constexpr size_t kBig = size_t{64} << 20;
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.write_raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[\"");
        stream_fill(ex, kBig + (size_t{8} << 20), 'a', false);
    });
    Transport t(http_config(server.url(), "\"maxMessageBytes\":" + std::to_string(kBig)));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_TRUE(reset_peak_rss());
    long before = rss_kib();
    ASSERT_EQ(t.send(request(8)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 15s));
    EXPECT_NE(error_message_for(t.recorder.messages(), 8).find("larger than maxMessageBytes"), std::string::npos);
    t.close();
    EXPECT_LT(peak_rss_kib() - before, static_cast<long>(kBig / 1024 * 5 / 4)) << "KiB";
}

// One long SSE data line arriving piece by piece is parsed straight into the event's data, not
// held as a line and then copied (line + data + the host's copy reached ~3× the message). The
// test's recorder keeps its own copy of the delivered message: 2 × the message, plus a margin.
TEST_F(HttpHostileTest, LongSseDataLineIsNotHeldTwice) {
    if (mcph_test::kSanitized) GTEST_SKIP() << "RSS under ASan or TSan includes its shadow memory";
    constexpr size_t kBig = size_t{64} << 20;
    constexpr size_t kPad = size_t{60} << 20;
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send("data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":\"");
        stream_fill(ex, kPad, 'a', true);
        ex.sse_send("\"}\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url(), "\"maxMessageBytes\":" + std::to_string(kBig)));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_TRUE(reset_peak_rss());
    long before = rss_kib();
    ASSERT_EQ(t.send(request(9)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 15s));
    long peak = peak_rss_kib();  // before messages(), which copies them
    EXPECT_EQ(t.recorder.messages().at(0).size(), kPad + 36);
    t.close();
    EXPECT_LT(peak - before, static_cast<long>(kPad / 1024 * 5 / 2)) << "KiB";
}

// ---- #10 item 3: a burst of server→client requests -----------------------------------------------

// The GET stream carries thousands of roots/list requests; the host answers each at once (each
// answer is a POST). Descriptors stay bounded by the connection cap, memory stays small, and the
// caller's own tools/call, sent in the middle of the burst, is answered promptly.
TEST_F(HttpHostileTest, BurstOfServerRequestsIsBoundedAndTheCallersRequestGoesFirst) {
    // A fifth under ThreadSanitizer, where 1,500 answers took 12–14 s on a 2-core machine; either
    // is far past the connection cap of 32.
    constexpr int kBurst = mcph_test::kThreadSanitized ? 600 : 3000;
    Signal burst_started;
    std::atomic<int> answers{0};
    std::mutex seen_mutex;
    std::set<std::string> seen;  // answer bodies, to tell duplicates from distinct answers
    FakeServer server;  // after what its handler uses: its threads are joined before those die
    server.on([&](Exchange& ex) {
        if (ex.request.method == "GET") {
            ex.sse_begin();
            for (int i = 0; i < kBurst; ++i) {
                if (!ex.sse_send("data: {\"jsonrpc\":\"2.0\",\"id\":\"s" + std::to_string(i) +
                                 "\",\"method\":\"roots/list\"}\n\n"))
                    return;
                if (i == 100) burst_started.set();
            }
            return ex.sse_end();
        }
        if (ex.request.method == "DELETE") return ex.respond(204, "");
        if (ex.request.body.find("\"tools/call\"") != std::string::npos)
            return ex.json(R"({"jsonrpc":"2.0","id":99,"result":{}})");
        {
            std::lock_guard lock(seen_mutex);
            if (seen.insert(ex.request.body).second) ++answers;
        }
        std::this_thread::sleep_for(2ms);  // a server that is a little slow to take answers
        ex.respond(202, "");
    });
    Transport t(http_config(server.url()));
    t.recorder.on_message_hook = [&](std::string_view m) {
        if (m.find("roots/list") == std::string_view::npos) return;
        size_t at = m.find("\"id\":");
        size_t end = m.find(',', at);
        std::string id(m.substr(at + 5, end - at - 5));
        t.send(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"roots":[]}})");
    };
    size_t fds_before = open_fds();
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_TRUE(reset_peak_rss());
    long rss_before = rss_kib();
    std::atomic<bool> sampling{true};
    std::atomic<size_t> max_fds{0};
    std::atomic<size_t> max_connections{0};
    std::thread sampler([&] {
        while (sampling.load()) {
            max_fds = std::max(max_fds.load(), open_fds());
            max_connections = std::max(max_connections.load(), mcph_test::connections_to(server.port()));
            std::this_thread::sleep_for(2ms);
        }
    });
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(burst_started.wait(10s));
    Clock::time_point asked = Clock::now();
    ASSERT_EQ(t.send(request(99)), MCPH_OK);
    bool answered = false;
    while (!answered && Clock::now() - asked < 10s) {
        for (const std::string& m : t.recorder.messages())
            answered |= m == R"({"jsonrpc":"2.0","id":99,"result":{}})";
        if (!answered) std::this_thread::sleep_for(5ms);
    }
    long answer_ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked).count());
    EXPECT_TRUE(answered);
    EXPECT_LT(answer_ms, 3000) << "the caller's request waited behind the burst";
    // Every answer reaches the server, eventually (the bound is for a hang, not a speed limit).
    Clock::time_point deadline = Clock::now() + 90s;
    while (answers.load() < kBurst && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(answers.load(), kBurst);
    sampling = false;
    sampler.join();
    t.close();
    // The transport's own connections never exceed its cap of 32. All descriptors of the process
    // (the in-process fake server's ends and its threads' io_contexts included) stay in the
    // hundreds; without the cap they reached the `ulimit -n`.
    EXPECT_LE(max_connections.load(), 32u) << "connections to the server at once";
    EXPECT_GT(max_connections.load(), 0u);
    EXPECT_LT(max_fds.load(), fds_before + 400) << "peak descriptors";
    if (!mcph_test::kSanitized) {
        EXPECT_LT(peak_rss_kib() - rss_before, 64 * 1024L) << "KiB";
    }
}

// ---- #10 item 5: reconnect loops -----------------------------------------------------------------

// `retry: 0` and a fresh id on every stream, which then ends: resumptions are paced by the floor
// (≥ 200 ms apart), and stop once the host cancels the request.
TEST_F(HttpHostileTest, ResumptionIsPacedAndStopsWhenTheHostCancels) {
    FakeServer server;
    std::atomic<int> n{0};
    server.on([&](Exchange& ex) {
        if (ex.request.method == "DELETE") return ex.respond(204, "");
        if (ex.request.method == "POST" && ex.request.body.find("cancelled") != std::string::npos)
            return ex.respond(202, "");
        ex.sse_begin();
        ex.sse_send("id: e" + std::to_string(++n) + "\nretry: 0\ndata:\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    Clock::time_point t0 = Clock::now();
    ASSERT_EQ(t.send(request(12)), MCPH_OK);
    ASSERT_TRUE(server.wait_requests(4, "GET", 5s));
    long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
    EXPECT_GE(ms, 3 * 200) << "4 resumptions came faster than the 200 ms floor allows";
    auto gets = server.requests("GET");
    for (size_t i = 1; i < gets.size(); ++i)
        EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(gets[i].at - gets[i - 1].at).count(), 150);
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12}})"), MCPH_OK);
    ASSERT_TRUE(wait_diagnostic(t.recorder, "not resuming", 5s));
    size_t after = server.requests("GET").size();
    // The event above proves the transport dropped the resumption: nothing more is scheduled.
    EXPECT_TRUE(error_message_for(t.recorder.messages(), 12).empty()) << "a cancelled request gets no error";
    t.close();
    EXPECT_EQ(server.requests("GET").size(), after);
}

// The GET stream: a fresh id and an immediate end do not reset its budget any more (15–18k GETs
// in 5 s before). 1 + 5 attempts with growing delays, then it gives up.
TEST_F(HttpHostileTest, GetStreamThatEndsAtOnceGivesUpAfterFiveBackedOffAttempts) {
    FakeServer server;
    std::atomic<int> n{0};
    server.on([&](Exchange& ex) {
        if (ex.request.method != "GET") return ex.respond(202, "");
        ex.sse_begin();
        ex.sse_send("id: g" + std::to_string(++n) + "\nretry: 0\n\n");
        ex.sse_end();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    Clock::time_point t0 = Clock::now();
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(wait_diagnostic(t.recorder, "giving up on it after 5 attempts", 15s));
    long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
    EXPECT_EQ(server.requests("GET").size(), 6u);
    EXPECT_GE(ms, 200 + 200 + 400 + 800 + 1600 - 100);  // the floor, then doubling
    t.close();
}

// ---- #10 item 8: diagnostics that say what happened ---------------------------------------------

struct Refusal {
    const char* name;
    int status;
    Headers headers;
    std::string body;
    std::vector<std::string> expected;  // substrings of the request's error message
};

TEST_F(HttpHostileTest, RefusalsSayWhatTheServerSaid) {
    const std::vector<Refusal> cases = {
        {"redirect", 302, {{"Location", "https://elsewhere.example/mcp"}}, "",
         {"HTTP 302", "redirects are not followed", "Location: https://elsewhere.example/mcp"}},
        {"json-rpc error in a 500", 500, {{"Content-Type", "application/json"}},
         R"({"jsonrpc":"2.0","id":21,"error":{"code":-32603,"message":"database on fire"}})",
         {"HTTP 500", "JSON-RPC error -32603: database on fire"}},
        {"429 with Retry-After", 429, {{"Retry-After", "7"}}, "slow down", {"HTTP 429", "Retry-After: 7 s"}},
        {"gzip", 200, {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}},
         std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8), {"Content-Encoding: gzip", "never asks for"}},
        {"error with a null id", 200, {{"Content-Type", "application/json"}},
         R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})",
         {"error for no request id", "JSON-RPC error -32600: Invalid Request"}},
    };
    for (const Refusal& c : cases) {
        SCOPED_TRACE(c.name);
        FakeServer server;
        server.on([&](Exchange& ex) { ex.respond(c.status, c.body, c.headers); });
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_EQ(t.send(request(21)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(c.name == std::string("error with a null id") ? 2 : 1, 5s));
        std::string why = error_message_for(t.recorder.messages(), 21);
        for (const std::string& e : c.expected) EXPECT_NE(why.find(e), std::string::npos) << why;
        EXPECT_EQ(why.find("malformed JSON"), std::string::npos) << why;
        EXPECT_EQ(why.find("did not answer"), std::string::npos) << why;
        if (c.status == 429) {
            for (const std::string& m : t.recorder.messages()) {
                rapidjson::Document d = parse(m);
                // ABI 1.1 reports a typed failure (status, body); the 1.0 stand-in keeps the
                // status, and the wait stays in the message ("Retry-After: 7 s", checked above).
                if (const rapidjson::Value* e = error_for(d, 21)) {
                    EXPECT_EQ((*e)["data"]["httpStatus"].GetInt64(), 429);
                }
            }
        }
        t.close();
    }
}

TEST_F(HttpHostileTest, HugeOrEmptySessionIdIsNamedNotOutOfMemory) {
    {
        FakeServer server;
        server.on([](Exchange& ex) {
            ex.write_raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nMcp-Session-Id: " +
                         std::string(size_t{1} << 20, 'S') + "\r\n\r\n{}");
        });
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_EQ(t.send(request(31)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1, 5s));
        std::string why = error_message_for(t.recorder.messages(), 31);
        EXPECT_NE(why.find("100 KiB limit (CURL_MAX_HTTP_HEADER)"), std::string::npos) << why;
        t.close();
    }
    {
        FakeServer server;
        server.on([](Exchange& ex) {
            ex.json(R"({"jsonrpc":"2.0","id":32,"result":{}})", {{"Mcp-Session-Id", ""}});
        });
        Transport t(http_config(server.url()));
        ASSERT_EQ(t.start(), MCPH_OK);
        ASSERT_EQ(t.send(request(32)), MCPH_OK);
        ASSERT_TRUE(t.recorder.wait_messages(1, 5s));
        EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "ignoring an empty Mcp-Session-Id"))
            << ::testing::PrintToString(t.recorder.diagnostics());
        EXPECT_FALSE(any_contains(t.recorder.diagnostics(), "outside visible ASCII"));
        t.close();
    }
}

// An event id too long to send back: the request fails saying so, no "Out of memory".
TEST_F(HttpHostileTest, EventIdTooLongForLastEventIdIsNamed) {
    FakeServer server;
    server.on([](Exchange& ex) {
        ex.sse_begin();
        ex.sse_send("id: " + std::string(20000, 'i') + "\ndata:\n\n");
        ex.cut();
    });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(request(33)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 5s));
    std::string why = error_message_for(t.recorder.messages(), 33);
    EXPECT_NE(why.find("its last event id is 20000 bytes, more than the 8192"), std::string::npos) << why;
    EXPECT_TRUE(server.requests("GET").empty());
    t.close();
}

// Closing in the middle of a burst (answers still queued for slots) is prompt: queued POSTs are
// dropped, not drained (the review saw 18–47 s in shutdown).
TEST_F(HttpHostileTest, CloseDuringABurstIsPrompt) {
    Signal many;
    std::atomic<int> posts{0};
    FakeServer server;  // after what its handler uses: its threads are joined before those die
    server.on([&](Exchange& ex) {
        if (ex.request.method == "GET") {
            ex.sse_begin();
            for (int i = 0; i < 5000; ++i)
                if (!ex.sse_send("data: {\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(i) + ",\"method\":\"roots/list\"}\n\n"))
                    return;
            return ex.sse_end();
        }
        if (ex.request.method == "DELETE") return ex.respond(204, "");
        if (++posts == 50) many.set();
        std::this_thread::sleep_for(20ms);  // slow: answers pile up behind the 6 slots
        ex.respond(202, "");
    });
    Transport t(http_config(server.url()));
    t.recorder.on_message_hook = [&](std::string_view m) {
        size_t at = m.find("\"id\":");
        size_t end = m.find(',', at);
        t.send("{\"jsonrpc\":\"2.0\",\"id\":" + std::string(m.substr(at + 5, end - at - 5)) + ",\"result\":{}}");
    };
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.set_option("initialized", ""), MCPH_OK);
    ASSERT_TRUE(many.wait(10s));
    Clock::time_point t0 = Clock::now();
    t.close();
    EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(), 3000);
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
    EXPECT_LT(posts.load(), 4000) << "queued answers were drained instead of dropped";
}

// #10 item 6: connectTimeoutMs bounds the whole connect of a request, TLS included: a listener
// that accepts TCP (the kernel's backlog does) and never answers the ClientHello.
TEST_F(HttpHostileTest, SilentTlsHandshakeIsCutAtConnectTimeout) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(fd, 16), 0);
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    std::string url = "https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/mcp";
    Transport t(http_config(url, R"("connectTimeoutMs":1500,"timeoutMs":60000)"));
    ASSERT_EQ(t.start(), MCPH_OK);
    Clock::time_point t0 = Clock::now();
    ASSERT_EQ(t.send(request(41)), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 10s));
    long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
    EXPECT_GE(ms, 1400);
    EXPECT_LT(ms, 3000);
    std::string why = error_message_for(t.recorder.messages(), 41);
    EXPECT_NE(why.find("Timeout"), std::string::npos) << why;
    t.close();
    ::close(fd);
}

}  // namespace
}  // namespace http_test
