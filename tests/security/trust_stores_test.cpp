// Issue #9 item 10: the stores trusted files they do not own. With HOME unset (a root service)
// credentials fell back to /tmp/.config/mcph/credentials.json, where another user had planted a
// token; approvals of another user (mode 0644) were accepted; lock files were opened without
// O_NOFOLLOW; config writes followed a committed symlink into any JSON file.
#include "trust_support.hpp"

#include "config/approval_store.hpp"
#include "config/layered_config.hpp"
#include "governance/server_signature.hpp"
#include "secrets/file_secret_store.hpp"

#include <gtest/gtest.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

TEST(TrustStores, CredentialsNeverFallBackToTmpAndPlantedTokensAreRefused) {
    ScopedEnv env;
    for (const char* name : {"HOME", "MCPH_CONFIG_HOME", "XDG_CONFIG_HOME"}) env.unset(name);
    const fs::path path = secrets::default_credentials_path();
    EXPECT_NE(path.string().rfind("/tmp", 0), 0u) << path << ": a shared folder any user can plant a token in";
    const passwd* me = ::getpwuid(::geteuid());
    ASSERT_TRUE(me);
    EXPECT_EQ(path, fs::path(me->pw_dir) / ".config" / "mcph" / "credentials.json");

    const auto other = scratch_user();
    if (!other) GTEST_SKIP() << "needs root for the planted-token part";
    TempDir dir("trust-creds");
    const fs::path folder = dir / "mcph";
    fs::create_directories(folder);
    ASSERT_EQ(::chmod(folder.c_str(), 0700), 0);
    const fs::path file = folder / "credentials.json";
    write_file(file, R"({"mcph.oauth.key.tokens":"{\"access_token\":\"planted\"}"})");
    ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
    secrets::FileSecretStore store(file);
    ASSERT_TRUE(store.get("mcph.oauth.key.tokens").has_value()) << "control: the user's own file is read";
    chown_to(file, *other);
    try {
        store.get("mcph.oauth.key.tokens");
        ADD_FAILURE() << "a token file of another user was used";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "belongs to uid " + std::to_string(other->uid))) << e.what();
    }
    // A planted lock-file symlink is not followed.
    ASSERT_EQ(::lchown(file.c_str(), 0, 0), 0);
    const fs::path victim = dir / "victim";
    fs::remove(file.string() + ".lock");  // the reads above made the real one
    fs::create_symlink(victim, file.string() + ".lock");
    EXPECT_THROW(store.set("k", "v"), Error);
    EXPECT_FALSE(fs::exists(victim)) << "the lock was created through a planted symlink";
}

// Writes a valid approval of the repository's "proj" (as `mcph approve` would, without running it).
void plant_approval(const TrustTree& t) {
    ScopedEnv env;
    env.set("MCPH_CONFIG_HOME", t.config_home.string());
    env.set("MCPH_MANAGED_DIR", t.managed.string());
    const auto locations = config::ConfigLocations::from_environment(t.repo);
    const auto layered = config::load_layered_config(locations, {}, {});
    ASSERT_EQ(layered.servers.size(), 1u);
    const auto& s = layered.servers.front();
    config::Approval a;
    a.key = {"project", s.origin, s.project_root, s.config.name};
    a.signature = governance::written_fingerprint(s);
    config::ApprovalStore(locations.approvals_file()).save(a);
}

TEST(TrustStores, ApprovalsOfAnotherUserAreRefused) {
    const auto other = scratch_user();
    if (!other) GTEST_SKIP() << "needs root to plant files as a second uid";
    TrustTree t;
    const fs::path marker = t.dir / "proj-ran";
    write_file(t.repo / ".mcp.json", "{\"mcpServers\":{\"proj\":" + marker_server(marker) + "}}");
    plant_approval(t);
    const fs::path approvals = t.config_home / "approvals.json";
    ASSERT_TRUE(fs::exists(approvals));
    chown_to(approvals, *other);
    ASSERT_EQ(::chmod(approvals.c_str(), 0644), 0);

    const CliResult tools = t.mcph({"tools"});
    EXPECT_NE(tools.exit_code, 0) << tools.describe();
    // A user server meanwhile: whether it was approved cannot be read, so its tools are held back.
    const fs::path trace = t.dir / "trace-usr";
    t.traces = {trace};
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"usr\":" + fake_server_config_text({"--trace", trace.string()}) + "}}");
    const Json doc = t.status();
    EXPECT_FALSE(fs::exists(marker)) << "a server approved by another user's file ran\n" << t.last;
    const JsonValue* u = find_named(member_at(doc, "unapproved"), "proj");
    ASSERT_TRUE(u) << t.last;
    EXPECT_TRUE(contains(string_at(*u, "reason"), "belongs to uid " + std::to_string(other->uid))) << t.last;
    const JsonValue* usr = find_named(member_at(doc, "servers"), "usr");
    ASSERT_TRUE(usr) << t.last;
    EXPECT_TRUE(find_named(member_at(*usr, "withheldTools"), "work")) << t.last;
    EXPECT_TRUE(contains(problems_about(doc, "approvals"), "withheld meanwhile")) << t.last;

    // Control: the same file, the user's own, approves it (so the refusal above was the owner's).
    ASSERT_EQ(::lchown(approvals.c_str(), 0, 0), 0);
    ASSERT_EQ(::chmod(approvals.c_str(), 0600), 0);
    const Json ok = t.status();
    const JsonValue* proj = find_named(member_at(ok, "servers"), "proj");
    ASSERT_TRUE(proj) << t.last;
    EXPECT_EQ(string_at(*proj, "state"), "connected") << t.last;
    EXPECT_TRUE(fs::exists(marker));
}

TEST(TrustStores, AConfigHomeOthersCanWriteIsNotUsed) {
    TrustTree t;
    const fs::path marker = t.dir / "user-ran";
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"mine\":" + marker_server(marker) + "}}");
    ASSERT_EQ(::chmod(t.config_home.c_str(), 0775), 0);
    const Json doc = t.status();
    EXPECT_FALSE(fs::exists(marker)) << t.last;
    EXPECT_TRUE(contains(problems_about(doc, (t.config_home / "settings.json").string()), "other users can change it"))
        << t.last;
    const CliResult approve = t.mcph({"approve", "mine"});
    EXPECT_NE(approve.exit_code, 0) << approve.describe();
    EXPECT_FALSE(fs::exists(t.config_home / "approvals.json")) << approve.describe();
}

TEST(TrustStores, ApprovalLockSymlinkIsNotFollowed) {
    TrustTree t;
    const fs::path trace = t.dir / "trace-mine";
    t.traces = {trace};
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"mine\":" + fake_server_config_text({"--trace", trace.string()}) + "}}");
    const fs::path victim = t.dir / "victim.json";
    fs::create_symlink(victim, t.config_home / "approvals.json.lock");
    const CliResult approve = t.mcph({"approve", "mine"});
    EXPECT_EQ(approve.exit_code, 2) << approve.describe();
    EXPECT_TRUE(contains(approve.err, "approvals.json.lock")) << approve.describe();
    EXPECT_FALSE(fs::exists(victim)) << "the lock file was created through a planted symlink";
}

TEST(TrustStores, CommittedSymlinkOutOfTheProjectIsNeitherReadNorWritten) {
    TrustTree t;
    const fs::path outside = t.dir / "outside.json";
    const std::string original = "{\"mcpServers\":{\"users-own\":{\"command\":\"/bin/true\"}}}\n";
    write_file(outside, original);
    fs::create_symlink(outside, t.repo / ".mcp.json");
    const CliResult add = t.mcph({"add", "--scope", "project", "evil", "/bin/sh", "-c", "touch pwned"});
    EXPECT_EQ(add.exit_code, 2) << add.describe();
    EXPECT_TRUE(contains(add.err, "symlink leading out of the project")) << add.describe();
    EXPECT_EQ(read_file(outside), original) << "the write followed the symlink out of the project";
    const Json doc = t.status();
    EXPECT_TRUE(contains(problems_about(doc, (t.repo / ".mcp.json").string()), "symlink leading out of the project")) << t.last;
    EXPECT_FALSE(find_named(member_at(doc, "unapproved"), "users-own")) << t.last;
}

}  // namespace
}  // namespace mcph::test
