// Issue #9 item 4 / #10 items 3 and 4: a hostile server flooding the client.
//  - 100,000 server→client requests (sampling, elicitation, roots) sent without waiting for the
//    answers once grew the client by 4.1 GB in 16 s (each queued on an unbounded pool): now at most
//    32 are in flight per session, the rest are refused at once, and prompts reaching the
//    application are rate-limited.
//  - 20,000 tools/list_changed once queued 20,000 full tools/list: now one refresh runs and the
//    notifications meanwhile cost one more.
#include "hostile_peer_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <memory>
#include <thread>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;

// How much the client may grow while 100,000 requests go by (the unbounded queue took 4.1 GB in
// 16 s). ASan's quarantine (256 MB by default) keeps freed memory resident, and TSan keeps the
// shadow of every byte touched, hence more room there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long kRssGrowthBoundKiB = 320 * 1024;
#else
constexpr long kRssGrowthBoundKiB = 64 * 1024;
#endif
// The call's budget: ThreadSanitizer makes reading 100,000 refusals several times slower (10 s
// alone, 14-17 s beside the other flood test, and once over 20 s in a CI run), and an ASan Debug
// build on a loaded 2-core machine took 12 s; a stalled reader still never answers, whatever the
// budget, so a generous one only bounds a hang.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr auto kFloodCallBudget = std::chrono::seconds(60);
#else
constexpr auto kFloodCallBudget = std::chrono::seconds(10);
#endif

// Samples this process's RSS every 10 ms while alive; peak() is the largest seen.
class RssSampler {
public:
    RssSampler() : thread_([this] {
        while (!stop_) {
            peak_ = std::max(peak_.load(), rss_kib());
            std::this_thread::sleep_for(10ms);
        }
    }) {}
    ~RssSampler() {
        stop_ = true;
        thread_.join();
    }
    long peak() const { return std::max(peak_.load(), rss_kib()); }

private:
    std::atomic<bool> stop_{false};
    std::atomic<long> peak_{0};
    std::thread thread_;
};

TEST(ServerFlood, ServerRequestsBeyondTheInFlightCapAreRefusedAndMemoryStaysBounded) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    std::atomic<int> prompts{0};
    // An application that takes a while per prompt, like a model or a person (20 ms here): the
    // unbounded queue of old piled up every request behind it.
    options.callbacks.sampling = [&](const std::string&, const JsonValue&) {
        ++prompts;
        std::this_thread::sleep_for(20ms);
        return parse_json(R"({"role":"assistant","content":{"type":"text","text":"ok"},"model":"test"})");
    };
    options.callbacks.elicitation = [&](const ElicitationRequest&) {
        ++prompts;
        std::this_thread::sleep_for(20ms);
        return ElicitationResponse{};
    };
    Host host(options);
    ASSERT_TRUE(has_stdio_plugin(host));
    host.add_server("flood", fake_config("request-flood"));
    host.connect("flood");

    const long before = rss_kib();
    const auto t0 = std::chrono::steady_clock::now();
    long peak = 0;
    CallToolResult result;
    RequestOptions ro;
    ro.timeout = kFloodCallBudget;  // not the 20 s default: under TSan the flood alone takes 10-20 s
    {
        RssSampler rss;
        result = host.call_tool("mcp__flood__work", parse_json("{}"), ro);  // answered after the 100,000 requests
        peak = rss.peak();
    }
    const double seconds = static_cast<double>(elapsed_ms(t0)) / 1000.0;
    EXPECT_EQ(result.text(), "work done") << "the client's own call completes through the flood";
    EXPECT_LT(peak - before, kRssGrowthBoundKiB) << "RSS grew from " << before << " KiB to " << peak << " KiB";
    ::testing::Test::RecordProperty("rss_growth_kib", static_cast<int>(peak - before));
    EXPECT_TRUE(logs.contains(LogLevel::Warn, "32 server requests are already in flight")) << logs.dump();
    EXPECT_TRUE(logs.contains(LogLevel::Warn, "(the client's prompt rate limit)")) << logs.dump();
    // The prompt budget: 10 at once, then one a second (the flood asks 66,000 times).
    EXPECT_LE(prompts.load(), 10 + static_cast<int>(std::ceil(seconds)) + 1) << "in " << seconds << " s";
    EXPECT_GE(prompts.load(), 1) << "prompts within the budget still reach the application";
}

// The issue's own server: it floods and reads nothing until it has answered. The refusals back up
// in the pipe and then in the stdio plugin's bounded queue (65,536 messages; beyond, they are
// dropped with MCPH_ERR_IO), no write of ours blocks, so the reader keeps up with the flood, the
// answer gets through, memory stays flat, the other sessions keep working and closing the host
// still works. (Before the queue, the first write into the full pipe blocked and the call could
// only end at its timeout.)
TEST(ServerFlood, AServerThatFloodsAndNeverReadsCannotStallTheClient) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    auto host = std::make_unique<Host>(options);
    ASSERT_TRUE(has_stdio_plugin(*host));
    host->add_server("deaf", fake_config("deaf-flood"));
    host->connect("deaf");
    const long before = rss_kib();
    RequestOptions ro;
    ro.timeout = kFloodCallBudget;
    const auto t0 = std::chrono::steady_clock::now();
    long peak = 0;
    {
        RssSampler rss;
        try {
            CallToolResult result = host->call_tool("mcp__deaf__work", parse_json("{}"), ro);
            EXPECT_EQ(result.text(), "work done") << "the answer comes through: our writes never stall the reader";
        } catch (const Error& e) {
            ADD_FAILURE() << "the call failed: " << e.what();
        }
        peak = rss.peak();
    }
    EXPECT_LT(elapsed_ms(t0), std::chrono::duration_cast<std::chrono::milliseconds>(kFloodCallBudget).count());
    EXPECT_LT(peak - before, kRssGrowthBoundKiB) << "RSS grew from " << before << " KiB to " << peak << " KiB";

    host->add_server("mute", fake_config("never-answer"));
    auto mute = host->connect("mute");
    ro.timeout = 1s;
    mcph::PendingRequest call = mute->request("tools/call", parse_json(R"({"name":"work","arguments":{}})"), ro);
    const bool timed_out_on_time = call.future().wait_for(4s) == std::future_status::ready;
    EXPECT_TRUE(timed_out_on_time) << "a 1 s timeout of another session had not fired after 4 s: the timer loop is blocked";
    if (!timed_out_on_time) call.cancel("test over");
    EXPECT_THROW(call.get(), Error);
    const auto t1 = std::chrono::steady_clock::now();
    host.reset();
    EXPECT_LT(elapsed_ms(t1), 5000) << "closing the flooded session must not hang";
}

// A server that stops reading its stdin for good (#10): the stdio plugin queues what the pipe does
// not take, send returns at once, the call ends at its own timeout, and once the server's stdin has
// accepted nothing for writeStallTimeoutMs the plugin closes the transport with an error saying so
// (the host loses that session with the reason); another session keeps working throughout.
TEST(ServerFlood, AServerThatStopsReadingIsClosedAtTheStallDeadline) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    auto host = std::make_unique<Host>(options);
    ASSERT_TRUE(has_stdio_plugin(*host));
    Json deaf = fake_config("deaf-call");
    // Longer than the second call's timeout (2 s): that call times out first, then the stall.
    deaf.AddMember("writeStallTimeoutMs", 4000, deaf.GetAllocator());
    host->add_server("deaf", deaf);
    host->connect("deaf");
    host->add_server("mute", fake_config("never-answer"));
    auto mute = host->connect("mute");

    RequestOptions ro;
    ro.timeout = 1s;
    // The first call makes the server deaf; the second carries 1 MiB, which the pipe cannot hold.
    EXPECT_THROW(host->call_tool("mcp__deaf__work", parse_json("{}"), ro), Error);
    ro.timeout = 2s;
    const std::string big = R"({"text":")" + std::string(1 << 20, 'x') + R"("})";
    const auto t0 = std::chrono::steady_clock::now();
    try {
        host->call_tool("mcp__deaf__work", parse_json(big), ro);
        ADD_FAILURE() << "a server that reads nothing cannot answer";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Timeout) << e.what();
    }
    EXPECT_LT(elapsed_ms(t0), 6000) << "the call must end at its timeout, not wait for the pipe";

    // The other session's timeouts still fire while the deaf one holds queued bytes.
    ro.timeout = 1s;
    mcph::PendingRequest call = mute->request("tools/call", parse_json(R"({"name":"work","arguments":{}})"), ro);
    EXPECT_EQ(call.future().wait_for(4s), std::future_status::ready) << "the timer loop is blocked";
    EXPECT_THROW(call.get(), Error);

    const auto stalled = [&] {
        return logs.contains(LogLevel::Warn, "connection lost") &&
               logs.contains(LogLevel::Warn, "the server stopped reading its input");
    };
    for (int i = 0; i < 1500 && !stalled(); ++i) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(stalled()) << "no stall error 15 s after the write:\n" << logs.dump();
    EXPECT_TRUE(logs.contains(LogLevel::Warn, "4000 ms (writeStallTimeoutMs)")) << logs.dump();

    const auto t1 = std::chrono::steady_clock::now();
    host.reset();
    EXPECT_LT(elapsed_ms(t1), 5000) << "closing a deaf session must not hang";
}

TEST(ServerFlood, AListChangedFloodCostsAFewRefreshesNotOneEach) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    TempDir dir("mcph-list-flood");
    const auto trace = dir / "trace";
    Host host(options);
    ASSERT_TRUE(has_stdio_plugin(host));
    host.add_server("lists", fake_server_config({"--mode", "list-flood", "--trace", trace.string()}));
    auto session = host.connect("lists");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(host.call_tool("mcp__lists__work", parse_json("{}")).text(), "work done");

    // The list changed for real after the 20,000th notification: the refresh that follows the
    // flood must see it (the dirty flag), which also proves the refreshing is over.
    ASSERT_TRUE(wait_until([&] { return has_tool(session->cached_tools(), "fresh-tool"); }, 15s)) << logs.dump();
    const long long took = elapsed_ms(t0);
    const auto list_events = trace_events(read_trace(trace), "tools-list");
    const std::size_t lists = list_events.size();
    std::string when;  // for a failure message: the monotonic times of the tools/list
    for (const auto& e : list_events) when += " " + std::to_string(e.t_ms);
    // One refresh at a time, starts 200 ms apart: the connect's list, then one per 200 ms at most
    // (with one to spare). Without coalescing: one per notification, 20,001.
    const auto most = static_cast<std::size_t>(3 + took / 200);
    EXPECT_LE(lists, most) << "20,001 list_changed notifications over " << took << " ms cost " << lists << " tools/list, at" << when;
    EXPECT_LT(lists, 100u) << lists;
    EXPECT_GE(lists, 2u) << "the connect's list and at least one refresh";
}

}  // namespace
