// A repository that commits a huge configuration file (issue #9, "every input from outside has a
// bound"): `.mcp.json` is a sparse 1 GiB file. The real CLI must refuse it by its size — an error
// naming the file in configProblems, well within its time bound — without reading it into memory:
// the peak RSS of the CLI (wait4) stays far below the file's size.
#include "trust_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(TrustOversizedFile, HugeProjectFileIsRefusedBySizeWithoutBeingRead) {
    TrustTree t;
    const fs::path project_file = t.repo / ".mcp.json";
    write_file(project_file, "");
    ASSERT_EQ(::truncate(project_file.c_str(), off_t{1} << 30), 0) << std::strerror(errno);  // sparse: no disk use

    const auto started = std::chrono::steady_clock::now();
    const CliResult r = t.mcph({"status", "--json"});
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_LT(took, 10s) << "refusing by size needs no reading";
    const Json doc = parse_or_fail(r.out, "`mcph status --json`");
    const std::string why = problems_about(doc, project_file.string());
    EXPECT_TRUE(contains(why, "16 MiB")) << why << "\n" << r.describe();
    EXPECT_TRUE(contains(why, "1073741824 bytes")) << why << "\n" << r.describe();
    EXPECT_TRUE(names_in(member_at(doc, "servers")).empty()) << r.describe();
    // 1 GiB read whole would be over 1 048 576 KiB; the CLI itself peaks near 16 MiB (near 150 MiB
    // under ASan, whose shadow memory counts), so a quarter of the file's size separates the two.
    ASSERT_GT(r.max_rss_kb, 0) << r.describe();
    EXPECT_LT(r.max_rss_kb, 256 * 1024) << "peak RSS " << r.max_rss_kb << " KiB\n" << r.describe();
}

}  // namespace
}  // namespace mcph::test
