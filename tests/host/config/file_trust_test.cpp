// Which files may be trusted: owner and mode (issue #9 items 2 and 10), symlinks out of a project,
// and the explicit migration of an in-repository local settings file.
#include "config/file_trust.hpp"
#include "config/local_migration.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace {

using mcph::test::ScratchDir;
using mcph::test::slurp;
namespace fs = std::filesystem;
using namespace mcph::config;

constexpr TrustRule kPrivate{Owner::CurrentUser, false};
constexpr TrustRule kRepository{Owner::CurrentUser, true};

TEST(FileTrust, ModesOthersCanWriteAreRefused) {
    ScratchDir dir;
    const fs::path f = dir.write("f.json");
    struct Case {
        mode_t mode;
        bool private_ok, repository_ok;
    } cases[] = {{0600, true, true}, {0644, true, true}, {0660, false, true}, {0664, false, true}, {0606, false, false},
                 {0666, false, false}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.mode);
        ASSERT_EQ(::chmod(f.c_str(), c.mode), 0);
        EXPECT_EQ(!distrust_reason(f, kPrivate), c.private_ok);
        EXPECT_EQ(!distrust_reason(f, kRepository), c.repository_ok);
    }
    ASSERT_EQ(::chmod(f.c_str(), 0666), 0);
    const auto why = distrust_reason(f, kRepository);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("mode 0666"), std::string::npos) << *why;
    EXPECT_NE(why->find("chmod go-w " + f.string()), std::string::npos) << *why;
    EXPECT_FALSE(distrust_reason(dir.path() / "absent", kPrivate)) << "absence is the reader's business";
    EXPECT_THROW(require_trusted(f, kRepository), mcph::Error);
}

TEST(FileTrust, FilesOfAnotherUserAreRefusedRootOnlyForAdminFiles) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown files to another uid";
    ScratchDir dir;
    const fs::path f = dir.write("f.json");
    ASSERT_EQ(::chown(f.c_str(), 65534, 65534), 0);
    const auto why = distrust_reason(f, kRepository);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("belongs to uid 65534"), std::string::npos) << *why;
    EXPECT_NE(why->find("planted"), std::string::npos) << *why;
    EXPECT_TRUE(distrust_reason(f, {Owner::CurrentUserOrRoot, true})) << "nobody is neither you nor root";
}

TEST(FileTrust, ResolvesInside) {
    ScratchDir dir;
    fs::create_directories(dir.path() / "repo/sub");
    const fs::path inside = dir.write("repo/sub/a.json");
    const fs::path outside = dir.write("outside.json");
    fs::create_symlink(outside, dir.path() / "repo/link.json");
    fs::create_symlink(inside, dir.path() / "repo/ok.json");
    EXPECT_TRUE(resolves_inside(inside, dir.path() / "repo"));
    EXPECT_TRUE(resolves_inside(dir.path() / "repo/ok.json", dir.path() / "repo"));
    EXPECT_FALSE(resolves_inside(dir.path() / "repo/link.json", dir.path() / "repo"));
    EXPECT_FALSE(resolves_inside(dir.path() / "repo/../outside.json", dir.path() / "repo"));
}

class LocalMigration : public ::testing::Test {
protected:
    LocalMigration() {
        loc.config_home = dir.path() / "home";
        loc.project_root = dir.path() / "repo";
        loc.cwd = loc.project_root;
        fs::create_directories(loc.project_root / ".git");
    }
    ScratchDir dir;
    ConfigLocations loc;
};

TEST_F(LocalMigration, MovesTheFileIntoTheConfigHome) {
    EXPECT_THROW(migrate_legacy_local_settings(loc), mcph::Error) << "nothing to migrate";
    const std::string content = R"({"mcpServers":{"mine":{"command":"/bin/mine"}}})";
    dir.write("repo/.mcph/settings.local.json", content);
    const fs::path to = migrate_legacy_local_settings(loc);
    EXPECT_EQ(to, loc.local_settings_file());
    EXPECT_EQ(slurp(to), content);
    struct stat st {};
    ASSERT_EQ(::stat(to.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_FALSE(fs::exists(loc.legacy_local_settings_file()));
    EXPECT_FALSE(fs::exists(loc.project_root / ".mcph")) << "the emptied folder goes too";
}

TEST_F(LocalMigration, RefusesToOverwriteAMalformedFileOrASymlinkOut) {
    dir.write("repo/.mcph/settings.local.json", "{not json");
    EXPECT_THROW(migrate_legacy_local_settings(loc), mcph::Error);
    EXPECT_TRUE(fs::exists(loc.legacy_local_settings_file()));
    dir.write("repo/.mcph/settings.local.json", "{}");
    fs::create_directories(loc.local_settings_file().parent_path());
    dir.write(fs::relative(loc.local_settings_file(), dir.path()), R"({"theirs":1})");
    EXPECT_THROW(migrate_legacy_local_settings(loc), mcph::Error) << "an existing local file is merged by hand";
    EXPECT_EQ(slurp(loc.local_settings_file()), R"({"theirs":1})");
    fs::remove(loc.local_settings_file());
    // A committed .mcph symlink to a folder outside the project: neither read nor deleted.
    fs::remove_all(loc.project_root / ".mcph");
    const fs::path elsewhere = dir.path() / "elsewhere";
    dir.write("elsewhere/settings.local.json", "{}");
    fs::create_directory_symlink(elsewhere, loc.project_root / ".mcph");
    EXPECT_THROW(migrate_legacy_local_settings(loc), mcph::Error);
    EXPECT_TRUE(fs::exists(elsewhere / "settings.local.json"));
}

}  // namespace
