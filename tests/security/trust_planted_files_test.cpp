// Issue #9 item 2 (and the ownership parts of item 10): another local user planted .git/ and config
// files in a sticky shared folder; root ran mcph in its own sub-folder there and the planted server
// ran as root. Now the project walk stops at a folder or .git of another user (git's safe.directory
// rule since CVE-2022-24765), and config files of another user, or writable by others, are refused
// and named in `mcph status --json`. Needs root (a second uid); skipped otherwise.
#include "trust_support.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

TEST(TrustPlantedFiles, PlantedGitInASharedFolderIsNotYourProject) {
    const auto other = scratch_user();
    if (!other) GTEST_SKIP() << "needs root to plant files as a second uid";
    TrustTree t;
    const fs::path shared = t.dir / "shared";
    fs::create_directories(shared);
    ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);  // like /tmp
    const fs::path marker = t.dir / "planted-ran";
    const fs::path marker_local = t.dir / "planted-local-ran";
    // What the other user plants.
    fs::create_directories(shared / ".git");
    write_file(shared / ".mcp.json", "{\"mcpServers\":{\"planted\":" + marker_server(marker) + "}}");
    write_file(shared / ".mcph" / "settings.local.json", "{\"mcpServers\":{\"planted-local\":" + marker_server(marker_local) + "}}");
    for (const fs::path& p : {shared / ".git", shared / ".mcp.json", shared / ".mcph", shared / ".mcph" / "settings.local.json"})
        chown_to(p, *other);
    // Root's own folder inside, and its own server.
    const fs::path work = shared / "work";
    fs::create_directories(work);
    const fs::path trace = t.dir / "trace-mine";
    t.traces = {trace};
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"mine\":" + fake_server_config_text({"--trace", trace.string()}) + "}}");

    const CliResult tools = t.mcph({"tools"}, work);
    EXPECT_EQ(tools.exit_code, 0) << tools.describe();
    EXPECT_TRUE(contains(tools.out, "mcp__mine__work")) << tools.describe();
    const Json doc = t.status(work);
    EXPECT_FALSE(fs::exists(marker)) << "the planted project server ran as root\n" << t.last;
    EXPECT_FALSE(fs::exists(marker_local)) << "the planted local server ran as root\n" << t.last;
    EXPECT_EQ(names_in(member_at(doc, "servers")), std::vector<std::string>{"mine"}) << t.last;
    EXPECT_TRUE(names_in(member_at(doc, "unapproved")).empty()) << "the shared folder is not root's project\n" << t.last;
    EXPECT_TRUE(contains(string_at(doc, "localSettings"), "/projects/work-")) << "the project root is root's own folder\n"
                                                                             << t.last;
}

TEST(TrustPlantedFiles, ConfigFilesOfAnotherUserOrWritableByOthersAreRefused) {
    const auto other = scratch_user();
    if (!other) GTEST_SKIP() << "needs root to plant files as a second uid";
    TrustTree t;
    const fs::path planted_marker = t.dir / "planted-ran";
    const fs::path writable_marker = t.dir / "writable-ran";
    const fs::path user_marker = t.dir / "user-ran";
    // In the user's own repository: a .mcp.json of another user, a sub-folder's world-writable one,
    // and a user settings file that belongs to someone else.
    const fs::path project_file = t.repo / ".mcp.json";
    write_file(project_file, "{\"mcpServers\":{\"planted\":" + marker_server(planted_marker) + "}}");
    chown_to(project_file, *other);
    const fs::path sub = t.repo / "sub";
    const fs::path sub_file = sub / ".mcp.json";
    write_file(sub_file, "{\"mcpServers\":{\"writable\":" + marker_server(writable_marker) + "}}");
    ASSERT_EQ(::chmod(sub_file.c_str(), 0666), 0);
    const fs::path settings = t.config_home / "settings.json";
    write_file(settings, "{\"mcpServers\":{\"theirs\":" + marker_server(user_marker) + "}}");
    chown_to(settings, *other);

    const CliResult servers = t.mcph({"tools"}, sub);
    EXPECT_NE(servers.exit_code, 0) << "no server is left to connect\n" << servers.describe();
    const Json doc = t.status(sub);
    for (const fs::path& m : {planted_marker, writable_marker, user_marker})
        EXPECT_FALSE(fs::exists(m)) << m << ": a planted server ran\n" << t.last;
    EXPECT_TRUE(contains(problems_about(doc, project_file.string()), "belongs to uid " + std::to_string(other->uid)))
        << t.last;
    EXPECT_TRUE(contains(problems_about(doc, sub_file.string()), "other users can change it")) << t.last;
    EXPECT_TRUE(contains(problems_about(doc, settings.string()), "belongs to uid")) << t.last;
    EXPECT_TRUE(names_in(member_at(doc, "servers")).empty()) << t.last;
    EXPECT_TRUE(names_in(member_at(doc, "unapproved")).empty()) << "refused files define nothing\n" << t.last;

    // Control: the same files, owned by the user and not writable by others, are read.
    ASSERT_EQ(::lchown(project_file.c_str(), 0, 0), 0);
    ASSERT_EQ(::chmod(sub_file.c_str(), 0644), 0);
    const Json fixed = t.status(sub);
    EXPECT_TRUE(find_named(member_at(fixed, "unapproved"), "planted")) << t.last;
    EXPECT_TRUE(find_named(member_at(fixed, "unapproved"), "writable")) << t.last;
}

}  // namespace
}  // namespace mcph::test
