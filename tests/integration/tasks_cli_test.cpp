// `mcph call` on a tool the server runs as a task (Tasks extension, v2-server's slow_task): the
// real binary waits for the task and prints its final result; --timeout bounds the whole task and
// ends in a clear error after tasks/cancel.
#include "governance_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class TasksCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(peers_dir() / "node_modules"))
            GTEST_SKIP() << "npm test peers not installed (" << (peers_dir() / "node_modules") << " is missing)";
        locations().create();
        write_file(config, "{\"mcpServers\":{\"v2\":{\"command\":" + json_quote(node_path().string()) + ",\"args\":[" +
                               json_quote((peers_dir() / "v2-server.mjs").string()) +
                               ",\"--transport\",\"stdio\",\"--legacy\",\"reject\"]}}}");
    }

    CliResult mcph(std::vector<std::string> args) {
        args.insert(args.begin(), {"--strict-mcp-config", "--mcp-config", config.string()});
        return run_cli(args, locations().env(), repo, 30s);
    }

    TempDir dir{"tasks-cli"};
    fs::path repo = dir / "repo";
    fs::path config = dir / "v2.json";
    CliLocations locations() const {
        return {.repo = repo, .config_home = dir / "config-home", .managed = dir / "managed", .home = dir / "home"};
    }
};

TEST_F(TasksCli, CallWaitsForTheTaskResult) {
    const CliResult r = mcph({"call", "mcp__v2__slow_task", R"({"steps":3,"ms":100})"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("done"), std::string::npos) << r.describe();
    // The result is printed once: its text; structuredContent is in --json.
    const CliResult json = mcph({"call", "mcp__v2__slow_task", R"({"steps":3,"ms":100})", "--json"});
    EXPECT_EQ(json.exit_code, 0) << json.describe();
    EXPECT_NE(json.out.find(R"("steps": 3)"), std::string::npos) << json.describe();
}

TEST_F(TasksCli, TimeoutBoundsTheWholeTask) {
    const CliResult r = mcph({"--timeout", "300ms", "call", "mcp__v2__slow_task", R"({"steps":50,"ms":200})"});
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_FALSE(r.timed_out) << r.describe();
    EXPECT_NE(r.err.find("did not finish within 300 ms; cancelled it"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace mcph::test
