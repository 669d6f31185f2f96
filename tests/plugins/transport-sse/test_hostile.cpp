// Hostile legacy SSE servers (issues #9 and #10): each test ends in a clear error or a correct
// result within its timeout, under the memory / descriptor bound it asserts.
#include "../resource_probe.hpp"
#include "fake_sse_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace sse_test {
namespace {

using mcph_test::open_fds;
using mcph_test::peak_rss_kib;
using mcph_test::reset_peak_rss;
using mcph_test::rss_kib;

constexpr size_t kLimit = size_t{1} << 20;

class SseHostileTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
};

// #10 item 7: an `id:` (or `event:`) far over maxMessageBytes ends the transport at the bound.
TEST_F(SseHostileTest, HugeIdOrEventFieldEndsTheStreamWithinTheBound) {
    for (std::string field : {"id: ", "event: "}) {
        SCOPED_TRACE(field);
        FakeSseServer server;
        Transport t(config(server.sse_url(), "\"maxMessageBytes\":" + std::to_string(kLimit)));
        ASSERT_EQ(t.start(), MCPH_OK) << t.error();
        ASSERT_TRUE(reset_peak_rss());
        long before = rss_kib();
        server.push(field);
        const std::string chunk(size_t{64} << 10, '7');
        for (int i = 0; i < 64 && t.recorder.closed_count() == 0; ++i) server.push(chunk);  // up to 4 MiB
        ASSERT_TRUE(t.recorder.wait_closed(10s));
        EXPECT_EQ(t.recorder.close_reason(), MCPH_CLOSE_ERROR);
        EXPECT_NE(t.recorder.close_detail().find("larger than maxMessageBytes"), std::string::npos)
            << t.recorder.close_detail();
        t.close();
        // Under ASan, RSS also holds shadow memory and the quarantine: only the refusal is asserted there.
        if (!mcph_test::kSanitized) {
            EXPECT_LT(peak_rss_kib() - before, static_cast<long>(2 * kLimit / 1024 + 8 * 1024)) << "KiB";
        }
    }
}

// #9 item 3: a 100,000-deep message is skipped with the reason; the stream goes on.
TEST_F(SseHostileTest, DeeplyNestedMessageIsSkippedWithTheReason) {
    FakeSseServer server;
    Transport t(config(server.sse_url()));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    server.push_message(std::string(100000, '[') + std::string(100000, ']'));
    server.push_message(R"({"jsonrpc":"2.0","method":"after"})");
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), R"({"jsonrpc":"2.0","method":"after"})");
    EXPECT_TRUE(any_contains(t.recorder.diagnostics(), "nested deeper than 128 levels"));
    t.close();
}

// #10 item 8: a redirect says it is not followed.
TEST_F(SseHostileTest, RedirectedStreamSaysRedirectsAreNotFollowed) {
    FakeSseServer server;
    server.script([](Script& s) {
        s.get_status = 307;
        s.get_body = "moved";
    });
    Transport t(config(server.sse_url()));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_NE(t.error().find("HTTP 307"), std::string::npos) << t.error();
    EXPECT_NE(t.error().find("redirects are not followed"), std::string::npos) << t.error();
}

// #10 item 3: thousands of server→client requests on the stream, each answered by its own POST:
// descriptors stay within the connection cap and every answer arrives.
TEST_F(SseHostileTest, BurstOfServerRequestsStaysWithinTheConnectionCap) {
    // A quarter under ThreadSanitizer, where 2,000 POSTs took 16–21 s on a 2-core machine; either
    // is far past the connection cap of 16.
    constexpr int kBurst = mcph_test::kThreadSanitized ? 500 : 2000;
    FakeSseServer server;
    server.script([](Script& s) {
        s.echo = false;
        s.post_delay = 1ms;
    });
    Transport t(config(server.sse_url()));
    t.recorder.on_message_hook = [&](std::string_view m) {
        size_t at = m.find("\"id\":");
        if (at == std::string_view::npos) return;
        size_t end = m.find(',', at);
        t.send("{\"jsonrpc\":\"2.0\",\"id\":" + std::string(m.substr(at + 5, end - at - 5)) + ",\"result\":{}}");
    };
    size_t fds_before = open_fds();
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
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
    for (int i = 0; i < kBurst; ++i)
        server.push_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(i) + ",\"method\":\"roots/list\"}");
    // The bound is for a hang, not a speed limit: a slow machine under a sanitizer needs its time.
    bool all = server.wait_requests(kBurst, "POST", 90s);
    sampling = false;
    sampler.join();
    EXPECT_TRUE(all) << server.requests("POST").size();
    t.close();
    // The transport's own connections (the stream and POSTs) never exceed its cap of 16. All
    // descriptors of the process — the in-process fake server's ends and its threads' io_contexts
    // included — stay in the hundreds; without the cap they reached the `ulimit -n` (~10,000).
    // A sample (connections open at one instant) may hold one socket more than the cap for a
    // moment (17 seen once under ASan and load): libcurl can have the next connection's socket
    // before the one it is done with is closed. The bound that matters is that it stays there,
    // not thousands.
    EXPECT_LE(max_connections.load(), 16u + 1) << "connections to the server at once";
    EXPECT_GT(max_connections.load(), 0u);
    EXPECT_LT(max_fds.load(), fds_before + 300) << "peak descriptors";
}

}  // namespace
}  // namespace sse_test
