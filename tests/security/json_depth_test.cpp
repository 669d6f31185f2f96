// Issue #9 item 3: deep JSON nesting killed the process (SIGSEGV: RapidJSON's recursive parser and
// writer ran off the stack). Each attack here is a real server or file; the defence is an
// iterative parse under a depth of 128 that refuses deeper input as malformed, naming the bound.
#include "hostile_peer_support.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using namespace mcph::test;
using namespace mcph::test::hostile;

TEST(DeepJson, AServerLineOfAMillionOpenBracketsIsDroppedAndTheCallCompletes) {
    CliResult r = run_mcph(servers_config("deep", fake_entry("deep-line")), {"call", "mcp__deep__work"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();  // -1 would be a signal (the old SIGSEGV)
    EXPECT_TRUE(contains(r.out, "work done")) << r.describe();
    EXPECT_TRUE(contains(r.err, "nested deeper than 128 levels")) << r.describe();
}

TEST(DeepJson, AToolSchemaNested100000DeepIsRefusedWithTheBoundNamed) {
    CliResult r = run_mcph(servers_config("deep", fake_entry("deep-schema")), {"tools", "--json"});
    ASSERT_GE(r.exit_code, 0) << "mcph must end by itself, not by a signal: " << r.describe();
    EXPECT_TRUE(contains(r.err, "tools/list to 'deep': response refused, JSON nested deeper than 128 levels"))
        << r.describe();
    mcph::Json tools = mcph::parse_json(r.out, "mcph tools --json");
    EXPECT_TRUE(tools.IsArray() && tools.Empty()) << "no tool from a refused list: " << r.out;
}

TEST(DeepJson, ACommittedMcpJsonNestedAMillionDeepIsAClearError) {
    TempDir repo("mcph-deep-repo");
    std::filesystem::create_directories(repo / ".git");
    std::filesystem::create_directories(repo / "config");
    std::filesystem::create_directories(repo / "managed");
    write_file(repo / ".mcp.json", "{\"mcpServers\":" + std::string(1'000'000, '['));
    const std::map<std::string, std::string> env = {
        {"MCPH_CONFIG_HOME", (repo / "config").string()},
        {"MCPH_MANAGED_DIR", (repo / "managed").string()},
        {"HOME", repo.path().string()},
    };
    CliResult r = run_cli({"--plugin-dir", plugin_dir().string(), "servers"}, env, repo.path(), 20s);
    ASSERT_GE(r.exit_code, 0) << "mcph must end by itself, not by a signal: " << r.describe();
    EXPECT_TRUE(contains(r.err + r.out, "nested deeper than 128 levels")) << r.describe();
    EXPECT_TRUE(contains(r.err + r.out, ".mcp.json")) << "the file is named: " << r.describe();
}

}  // namespace
