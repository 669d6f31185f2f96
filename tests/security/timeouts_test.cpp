// Issue #10 item 6: progress reset the request timer and nothing capped the total, so a tool
// sending progress every second ran past `--timeout 5s` for ever. Now the CLI's --timeout is also
// the most a tool call may take in total, and --connect-timeout bounds the whole connect.
#include "hostile_peer_support.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using namespace mcph::test;
using namespace mcph::test::hostile;

TEST(Timeouts, ProgressForeverCannotOutliveTheCliTimeout) {
    const auto t0 = std::chrono::steady_clock::now();
    CliResult r = run_mcph(servers_config("slow", fake_entry("progress-forever")), {"--timeout", "2s", "call", "mcp__slow__work"},
                           15s);
    const auto took = elapsed_ms(t0);
    ASSERT_FALSE(r.timed_out) << "still running after 15 s: " << r.describe();
    EXPECT_EQ(r.exit_code, 3) << r.describe();
    EXPECT_TRUE(contains(r.err, "timed out after 2000 ms, its maximum total time")) << r.describe();
    EXPECT_GE(took, 1900) << "progress keeps the call alive until the total bound";
    EXPECT_LT(took, 8000) << r.describe();
}

TEST(Timeouts, ConnectTimeoutBoundsAServerThatNeverInitializes) {
    const auto t0 = std::chrono::steady_clock::now();
    CliResult r = run_mcph(servers_config("mute", fake_entry("no-init")), {"--connect-timeout", "1s", "call", "mcp__mute__work"},
                           15s);
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_GE(r.exit_code, 1) << r.describe();
    EXPECT_TRUE(contains(r.err, "did not answer initialize within")) << r.describe();
    EXPECT_LT(elapsed_ms(t0), 6000) << r.describe();
}

}  // namespace
