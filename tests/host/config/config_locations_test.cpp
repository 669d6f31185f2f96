// Where each scope lives: environment variables (from a fake lookup), the project root walk, and
// the nested .mcp.json files found between the root and cwd.
#include "config/config_locations.hpp"

#include <gtest/gtest.h>

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <fstream>
#include <map>

#include <unistd.h>

namespace {

using mcph::test::ScratchDir;

namespace fs = std::filesystem;
using mcph::config::ConfigLocations;
using mcph::config::VariableLookup;


using host_test::vars;

struct HomeCase {
    std::map<std::string, std::string> env;
    const char* managed_dir;
    const char* config_home;
};

TEST(ConfigLocations, DirectoriesFromTheEnvironment) {
    const HomeCase cases[] = {
        {{{"HOME", "/h"}}, "/etc/mcph", "/h/.config/mcph"},
        {{{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}}, "/etc/mcph", "/x/mcph"},
        {{{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}, {"MCPH_CONFIG_HOME", "/m"}}, "/etc/mcph", "/m"},
        {{{"HOME", "/h"}, {"XDG_CONFIG_HOME", "relative"}}, "/etc/mcph", "/h/.config/mcph"},  // XDG: ignored
        {{{"HOME", "/h"}, {"XDG_CONFIG_HOME", ""}, {"MCPH_CONFIG_HOME", ""}}, "/etc/mcph", "/h/.config/mcph"},
        {{{"HOME", "/h"}, {"MCPH_MANAGED_DIR", "/opt/policy"}}, "/opt/policy", "/h/.config/mcph"},
        {{{"HOME", "/h"}, {"MCPH_MANAGED_DIR", ""}}, "/etc/mcph", "/h/.config/mcph"},
    };
    ScratchDir dir;
    for (const auto& c : cases) {
        auto loc = ConfigLocations::from_variables(vars(c.env), dir.path());
        EXPECT_EQ(loc.managed_dir, c.managed_dir);
        EXPECT_EQ(loc.config_home, c.config_home);
        EXPECT_TRUE(loc.plugin_dirs.empty());
    }
}

TEST(ConfigLocations, FileNames) {
    ConfigLocations loc;
    loc.managed_dir = "/etc/mcph";
    loc.config_home = "/h/.config/mcph";
    loc.project_root = "/repo";
    loc.cwd = "/repo/sub";
    EXPECT_EQ(loc.enterprise_file(), "/etc/mcph/managed-mcp.json");
    EXPECT_EQ(loc.managed_settings_file(), "/etc/mcph/managed-settings.json");
    EXPECT_EQ(loc.user_settings_file(), "/h/.config/mcph/settings.json");
    // The user's local settings are in the config home, keyed by project; the in-repository file of
    // older versions is only the legacy location (issue #9 item 1).
    const fs::path local = loc.local_settings_file();
    EXPECT_EQ(local.parent_path().parent_path(), "/h/.config/mcph/projects") << local;
    EXPECT_EQ(local.filename(), "settings.local.json");
    EXPECT_EQ(local.parent_path().filename().string().rfind("repo-", 0), 0u) << local;
    EXPECT_EQ(local.parent_path().filename().string().size(), 5u + 16u) << local;
    loc.project_root = "/other/repo";
    EXPECT_NE(loc.local_settings_file(), local) << "two projects, two local files";
    loc.project_root = "/repo";
    EXPECT_EQ(loc.legacy_local_settings_file(), "/repo/.mcph/settings.local.json");
    EXPECT_EQ(loc.approvals_file(), "/h/.config/mcph/approvals.json");
}

TEST(ConfigLocations, ProjectRootIsTheNearestGitAncestor) {
    ScratchDir dir;
    fs::create_directories(dir.path() / "repo/.git");
    fs::create_directories(dir.path() / "repo/a/b");
    dir.write("repo/a/wt/.git", "gitdir: /elsewhere");  // a worktree or submodule: .git is a file
    fs::create_directories(dir.path() / "repo/a/wt/c");
    fs::create_directories(dir.path() / "plain/d");
    const auto env = vars({{"HOME", "/h"}});
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "repo/a/b").project_root, dir.path() / "repo");
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "repo").project_root, dir.path() / "repo");
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "repo/a/wt/c").project_root, dir.path() / "repo/a/wt");
    // No repository anywhere above (unless the temp folder itself is inside one).
    for (fs::path p = dir.path(); p != p.parent_path(); p = p.parent_path())
        if (fs::exists(p / ".git")) GTEST_SKIP() << "the temp folder is inside a repository";
    auto plain = ConfigLocations::from_variables(env, dir.path() / "plain/d");
    EXPECT_EQ(plain.project_root, dir.path() / "plain/d");
    EXPECT_EQ(plain.cwd, dir.path() / "plain/d");
}

TEST(ConfigLocations, HomeFromThePasswordDatabaseWhenHomeIsUnset) {
    ScratchDir dir;
    const auto loc = ConfigLocations::from_variables(vars({}), dir.path());
    EXPECT_FALSE(loc.config_home.empty());
    EXPECT_NE(loc.config_home.string().rfind("/tmp", 0), 0u) << loc.config_home << ": never a shared folder";
}

// git's safe.directory rule: the upward walk stops at a folder, or a .git, that another user owns.
TEST(ConfigLocations, ProjectWalkStopsAtAnotherUsersFolderOrGit) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown files to another uid";
    ScratchDir dir;
    fs::create_directories(dir.path() / "shared/.git");
    fs::create_directories(dir.path() / "shared/mine/sub");
    const auto env = vars({{"HOME", "/h"}});
    ASSERT_EQ(ConfigLocations::from_variables(env, dir.path() / "shared/mine/sub").project_root, dir.path() / "shared");
    constexpr uid_t kOther = 65534;  // nobody
    ASSERT_EQ(::chown((dir.path() / "shared/.git").c_str(), kOther, kOther), 0);
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "shared/mine/sub").project_root, dir.path() / "shared/mine/sub")
        << "a .git of another user is not our project";
    ASSERT_EQ(::chown((dir.path() / "shared/.git").c_str(), 0, 0), 0);
    ASSERT_EQ(::chown((dir.path() / "shared").c_str(), kOther, kOther), 0);
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "shared/mine/sub").project_root, dir.path() / "shared/mine/sub")
        << "the walk must not pass a folder of another user";
    fs::create_directories(dir.path() / "shared/mine/.git");
    EXPECT_EQ(ConfigLocations::from_variables(env, dir.path() / "shared/mine/sub").project_root, dir.path() / "shared/mine");
}

TEST(ConfigLocations, CwdIsResolvedThroughSymlinks) {
    ScratchDir dir;
    fs::create_directories(dir.path() / "repo/.git");
    fs::create_directory_symlink(dir.path() / "repo", dir.path() / "link");
    auto loc = ConfigLocations::from_variables(vars({{"HOME", "/h"}}), dir.path() / "link");
    EXPECT_EQ(loc.cwd, dir.path() / "repo");
    EXPECT_EQ(loc.project_root, dir.path() / "repo") << "one project, one approval key";
}

TEST(ConfigLocations, ProjectFilesFromRootDownToCwdFarthestFirst) {
    ScratchDir dir;
    fs::create_directories(dir.path() / "repo/.git");
    dir.write(".mcp.json");  // above the project root: not part of the project
    const fs::path root_file = dir.write("repo/.mcp.json");
    const fs::path mid_file = dir.write("repo/a/.mcp.json");
    fs::create_directories(dir.path() / "repo/a/b/.mcp.json");  // a folder, not a file
    const fs::path leaf_file = dir.write("repo/a/b/c/.mcp.json");
    dir.write("repo/other/.mcp.json");  // a sibling of cwd's path
    auto loc = ConfigLocations::from_variables(vars({{"HOME", "/h"}}), dir.path() / "repo/a/b/c");
    EXPECT_EQ(loc.project_files(), (std::vector<fs::path>{root_file, mid_file, leaf_file}));

    auto at_root = ConfigLocations::from_variables(vars({{"HOME", "/h"}}), dir.path() / "repo");
    EXPECT_EQ(at_root.project_files(), (std::vector<fs::path>{root_file}));
}

TEST(ConfigLocations, ProjectFilesWithoutRepositoryIsCwdOnly) {
    ScratchDir dir;
    dir.write(".mcp.json");
    const fs::path own = dir.write("x/.mcp.json");
    auto loc = ConfigLocations::from_variables(vars({{"HOME", "/h"}}), dir.path() / "x");
    EXPECT_EQ(loc.project_files(), (std::vector<fs::path>{own}));
}

}  // namespace
