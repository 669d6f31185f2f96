// Issue #9 item 11: approvals were keyed by bare name. `mcph approve github` in one project withheld
// the tools of an unrelated "github" everywhere else, the record survived `mcph remove`, and a token
// rotated in the environment un-approved the server. Now approvals are keyed by scope, origin and
// project, dropped on remove, and hash the definition as written (before ${VAR} expansion).
#include "trust_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

TEST(TrustApprovalKeys, ApprovalInOneProjectDoesNotReachAnother) {
    TrustTree t;
    const fs::path a = t.dir / "project-a";
    const fs::path b = t.dir / "project-b";
    fs::create_directories(a / ".git");
    fs::create_directories(b / ".git");
    const fs::path tools_a = t.dir / "tools-a.json";
    const fs::path tools_b = t.dir / "tools-b.json";
    write_file(tools_a, R"([{"name":"issues","description":"Lists issues"}])");
    write_file(tools_b, R"([{"name":"pulls","description":"Lists pull requests"}])");
    // Each project's own (local-scope) "github", in the user's config home.
    write_file(t.local_settings(a), "{\"mcpServers\":{\"github\":" + fake_server_config_text({"--tools-file", tools_a.string()}) + "}}");
    write_file(t.local_settings(b), "{\"mcpServers\":{\"github\":" + fake_server_config_text({"--tools-file", tools_b.string()}) + "}}");

    const CliResult approve = t.mcph({"approve", "github"}, a);
    ASSERT_EQ(approve.exit_code, 0) << approve.describe();
    const CliResult tools = t.mcph({"tools"}, b);
    EXPECT_EQ(tools.exit_code, 0) << tools.describe();
    EXPECT_TRUE(contains(tools.out, "mcp__github__pulls")) << "project B's github was withheld by project A's approval\n"
                                                           << tools.describe();
    const Json doc = t.status(b);
    const JsonValue* gh = find_named(member_at(doc, "servers"), "github");
    ASSERT_TRUE(gh) << t.last;
    EXPECT_TRUE(names_in(member_at(*gh, "withheldTools")).empty()) << t.last;
}

TEST(TrustApprovalKeys, RemoveDropsTheApproval) {
    TrustTree t;
    const fs::path marker = t.dir / "proj-ran";
    const std::string definition = marker_server(marker);
    write_file(t.repo / ".mcp.json", "{\"mcpServers\":{\"proj\":" + definition + "}}");
    ASSERT_EQ(t.mcph({"approve", "proj"}).exit_code, 0) << t.last;
    ASSERT_TRUE(contains(read_file(t.config_home / "approvals.json"), "\"proj\""));
    ASSERT_EQ(t.mcph({"remove", "proj"}).exit_code, 0) << t.last;
    EXPECT_FALSE(contains(read_file(t.config_home / "approvals.json"), "\"proj\"")) << read_file(t.config_home / "approvals.json");

    // The same name, defined again (by a later commit, say): it needs a fresh approval.
    fs::remove(marker);
    ASSERT_EQ(t.mcph({"add", "--scope", "project", "proj", definition}).exit_code, 0) << t.last;
    const Json doc = t.status();
    EXPECT_TRUE(find_named(member_at(doc, "unapproved"), "proj")) << t.last;
    EXPECT_FALSE(fs::exists(marker)) << "a removed approval still let the server run\n" << t.last;
}

TEST(TrustApprovalKeys, RotatingATokenKeepsTheApprovalEditingTheFileRevokesIt) {
    TrustTree t;
    const fs::path trace = t.dir / "trace-proj";
    t.traces = {trace};
    auto write_definition = [&](const std::string& extra_arg) {
        std::string entry = fake_server_config_text({"--trace", trace.string(), "--instructions", extra_arg});
        entry.insert(entry.size() - 1, ",\"env\":{\"TOKEN\":\"${MY_TOKEN}\"}");
        write_file(t.repo / ".mcp.json", "{\"mcpServers\":{\"proj\":" + entry + "}}");
    };
    write_definition("v1");
    ASSERT_EQ(t.mcph({"approve", "proj"}, {}, {{"MY_TOKEN", "one"}}).exit_code, 0) << t.last;

    Json doc = t.status({}, {{"MY_TOKEN", "two"}});
    const JsonValue* proj = find_named(member_at(doc, "servers"), "proj");
    ASSERT_TRUE(proj) << "a rotated token un-approved the server\n" << t.last;
    EXPECT_EQ(string_at(*proj, "state"), "connected") << t.last;

    write_definition("v2");
    const std::size_t before = trace_events(read_trace(trace), "start").size();
    doc = t.status({}, {{"MY_TOKEN", "two"}});
    EXPECT_TRUE(find_named(member_at(doc, "unapproved"), "proj")) << "an edited definition kept its approval\n" << t.last;
    EXPECT_EQ(trace_events(read_trace(trace), "start").size(), before) << t.last;
}

}  // namespace
}  // namespace mcph::test
