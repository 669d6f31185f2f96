// "roots": the shape of the key, how each entry resolves (~, relative to a base, realpath, a
// directory), the confinement of a repository's list (.. and symlinks included), and in the layered
// configuration: per server, the settings' default (local over user), a server's own list over the
// default, a project list leading out of the repository refused for that server only.
#include "config/config_roots.hpp"
#include "config/layered_config.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include "test_helpers.hpp"
#include "test_scratch.hpp"

#include <fstream>

namespace {

namespace fs = std::filesystem;
using host_test::contains;
using host_test::vars;
using mcph::config::resolve_roots;
using mcph::config::roots_member;
using mcph::test::ScratchDir;

std::string roots_error(const std::vector<std::string>& written, const fs::path& base, const fs::path& confined = {},
                        std::map<std::string, std::string> env = {}) {
    try {
        resolve_roots(written, base, confined, vars(std::move(env)), "server 's': ");
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    return "";
}

TEST(ConfigRoots, TheKeyMustBeAnArrayOfNonEmptyStrings) {
    EXPECT_FALSE(roots_member(mcph::parse_json(R"({"command":"x"})"), "w: ").has_value());
    EXPECT_EQ(roots_member(mcph::parse_json(R"({"roots":[]})"), "w: ")->size(), 0u);
    EXPECT_EQ(*roots_member(mcph::parse_json(R"({"roots":["/a","b"]})"), "w: "), (std::vector<std::string>{"/a", "b"}));
    for (const char* bad : {R"({"roots":"/a"})", R"({"roots":[1]})", R"({"roots":[""]})", R"({"roots":{"a":"/a"}})"}) {
        SCOPED_TRACE(bad);
        try {
            roots_member(mcph::parse_json(bad), "server 's': ");
            ADD_FAILURE() << "accepted";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(std::string(e.what()), "server 's': roots must be an array of directory paths (non-empty strings)");
        }
    }
    std::string many = R"({"roots":[)";
    for (std::size_t i = 0; i <= mcph::config::kMaxRoots; ++i) many += (i ? ",\"/a\"" : "\"/a\"");
    try {
        roots_member(mcph::parse_json(many + "]}"), "w: ");
        ADD_FAILURE() << "accepted";
    } catch (const mcph::Error& e) {
        EXPECT_TRUE(contains(e.what(), "more than the 256 a list may have")) << e.what();
    }
}

TEST(ConfigRoots, EntriesResolveToCanonicalDirectories) {
    ScratchDir dir;
    const fs::path real = fs::canonical(dir.path());
    fs::create_directories(real / "base" / "a");
    fs::create_directories(real / "home" / "src");
    fs::create_symlink(real / "base" / "a", real / "base" / "link");
    const auto roots = resolve_roots({"a", "./link", (real / "base" / "a" / ".." / "a").string(), "~/src", "~", "../home"},
                                     real / "base", {}, vars({{"HOME", (real / "home").string()}}), "w: ");
    // "a", "./link" and the absolute spelling are one directory: listed once.
    EXPECT_EQ(roots, (std::vector<fs::path>{real / "base" / "a", real / "home" / "src", real / "home"}));
}

TEST(ConfigRoots, AMissingOrNonDirectoryEntryIsNamed) {
    ScratchDir dir;
    const fs::path real = fs::canonical(dir.path());
    dir.write("file.txt", "x");
    const std::string missing = roots_error({"nope"}, real);
    EXPECT_TRUE(contains(missing, "server 's': roots: \"nope\" (" + (real / "nope").string() + ") cannot be used: No such file"))
        << missing;
    const std::string file = roots_error({"file.txt"}, real);
    EXPECT_TRUE(contains(file, "roots: \"file.txt\" (" + (real / "file.txt").string() + ") is not a directory")) << file;
    const std::string no_home = roots_error({"~/x"}, real);
    EXPECT_TRUE(contains(no_home, "roots: \"~/x\" needs the home directory, and HOME is not set")) << no_home;
}

TEST(ConfigRoots, AConfinedListMustStayInsideTheFolder) {
    ScratchDir dir;
    const fs::path real = fs::canonical(dir.path());
    fs::create_directories(real / "repo" / "src");
    fs::create_directories(real / "home" / ".ssh");
    fs::create_symlink(real / "home" / ".ssh", real / "repo" / "keys");
    const fs::path repo = real / "repo";
    EXPECT_EQ(resolve_roots({".", "src"}, repo, repo, vars({}), "w: "), (std::vector<fs::path>{repo, repo / "src"}));
    for (const std::string& escape : {std::string("../home/.ssh"), std::string("keys"), std::string("~/.ssh"),
                                      (real / "home").string()}) {
        SCOPED_TRACE(escape);
        const std::string why = roots_error({"src", escape}, repo, repo, {{"HOME", (real / "home").string()}});
        EXPECT_TRUE(contains(why, "roots: \"" + escape + "\" resolves to ")) << why;
        EXPECT_TRUE(contains(why, "outside the project " + repo.string())) << why;
    }
    // A sibling whose name starts like the repository's is outside it too.
    fs::create_directories(real / "repo-evil");
    EXPECT_TRUE(contains(roots_error({"../repo-evil"}, repo, repo), "outside the project")) << roots_error({"../repo-evil"}, repo, repo);
}

// A machine as LayeredConfigTest builds it: /home (config home), /repo (with .git), cwd /repo/sub.
class ConfigRootsLayers : public ::testing::Test {
protected:
    ConfigRootsLayers() {
        real = fs::canonical(dir.path());
        loc.managed_dir = real / "managed";
        loc.config_home = real / "cfg";
        loc.project_root = real / "repo";
        loc.cwd = real / "repo" / "sub";
        fs::create_directories(loc.project_root / ".git");
        fs::create_directories(loc.cwd);
        fs::create_directories(real / "repo" / "docs");
        fs::create_directories(real / "home" / "src");
        fs::create_directories(real / "outside");
    }
    void write(const fs::path& file, const std::string& content) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << content;
    }
    mcph::config::LayeredConfig load(std::vector<mcph::config::DynamicConfig> dynamic = {}) {
        return mcph::config::load_layered_config(loc, dynamic, {}, vars({{"HOME", (real / "home").string()}}));
    }
    static const mcph::config::ConfiguredServer* find(const mcph::config::LayeredConfig& c, const std::string& name) {
        for (const auto& s : c.servers)
            if (s.config.name == name) return &s;
        return nullptr;
    }
    static std::string problems(const mcph::config::LayeredConfig& c) {
        std::string out;
        for (const auto& p : c.problems) out += p.origin + " | " + p.server + " | " + p.message + "\n";
        return out;
    }
    ScratchDir dir;
    fs::path real;
    mcph::config::ConfigLocations loc;
};

TEST_F(ConfigRootsLayers, PerServerListsResolveWhereTheirFileStands) {
    // The project file in repo/sub: "../docs" from its folder, ${workspaceFolder} the repository.
    write(loc.cwd / ".mcp.json", R"({"mcpServers":{"p":{"command":"x","roots":["../docs","${workspaceFolder}"]}}})");
    write(loc.user_settings_file(), R"({"mcpServers":{"u":{"command":"x","roots":["~/src", ")" + (real / "outside").string() + R"("]},
                                        "none":{"command":"x","roots":[]}, "unset":{"command":"x"}}})");
    const auto c = load();
    EXPECT_TRUE(c.problems.empty()) << problems(c);
    ASSERT_TRUE(find(c, "p") && find(c, "p")->config.roots);
    EXPECT_EQ(*find(c, "p")->config.roots, (std::vector<fs::path>{real / "repo" / "docs", real / "repo"}));
    EXPECT_EQ(*find(c, "u")->config.roots, (std::vector<fs::path>{real / "home" / "src", real / "outside"}));
    ASSERT_TRUE(find(c, "none")->config.roots);
    EXPECT_TRUE(find(c, "none")->config.roots->empty());  // "no roots", not "the default"
    EXPECT_FALSE(find(c, "unset")->config.roots.has_value());
}

TEST_F(ConfigRootsLayers, TheSettingsDefaultAppliesToServersWithoutTheirOwnLocalOverUser) {
    write(loc.user_settings_file(), R"({"roots":["~/src"],"mcpServers":{"a":{"command":"x"},"b":{"command":"x","roots":["~"]}}})");
    auto c = load();
    EXPECT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_EQ(*find(c, "a")->config.roots, (std::vector<fs::path>{real / "home" / "src"}));
    EXPECT_EQ(*find(c, "b")->config.roots, (std::vector<fs::path>{real / "home"}));  // the server's own list wins

    // The local settings' default (relative to the project root) replaces the user's.
    write(loc.local_settings_file(), R"({"roots":["docs"]})");
    c = load();
    EXPECT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_EQ(*find(c, "a")->config.roots, (std::vector<fs::path>{real / "repo" / "docs"}));
    EXPECT_EQ(*find(c, "b")->config.roots, (std::vector<fs::path>{real / "home"}));
}

TEST_F(ConfigRootsLayers, TheManagedDefaultWinsOverTheUsersAndTheLocalOne) {
    write(loc.user_settings_file(), R"({"roots":["~/src"],"mcpServers":{"a":{"command":"x"},"b":{"command":"x","roots":["~"]}}})");
    write(loc.local_settings_file(), R"({"roots":["docs"]})");
    // Relative to the managed file's folder, "~" from HOME, and never confined: the administrator's.
    fs::create_directories(loc.managed_dir / "shared");
    write(loc.managed_settings_file(), R"({"roots":["shared", ")" + (real / "outside").string() + R"("]})");
    auto c = load();
    EXPECT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_FALSE(c.policy.fail_closed) << c.policy.fail_closed_reason;
    EXPECT_EQ(*find(c, "a")->config.roots, (std::vector<fs::path>{loc.managed_dir / "shared", real / "outside"}));
    EXPECT_EQ(*find(c, "b")->config.roots, (std::vector<fs::path>{real / "home"}));  // the server's own list wins

    // A managed folder missing on this machine: a problem of the managed file, and the local default applies.
    write(loc.managed_settings_file(), R"({"roots":["missing"]})");
    c = load();
    EXPECT_FALSE(c.policy.fail_closed);
    EXPECT_TRUE(contains(problems(c), loc.managed_settings_file().string() + ": roots: \"missing\"")) << problems(c);
    EXPECT_EQ(*find(c, "a")->config.roots, (std::vector<fs::path>{real / "repo" / "docs"}));

    // A list of the wrong shape fails closed, like any other malformed administrator setting.
    write(loc.managed_settings_file(), R"({"roots":"shared"})");
    c = load();
    EXPECT_TRUE(c.policy.fail_closed);
    EXPECT_TRUE(contains(c.policy.fail_closed_reason, "roots must be an array of directory paths")) << c.policy.fail_closed_reason;
}

TEST_F(ConfigRootsLayers, ABadDefaultIsAProblemOfItsFileAndIgnored) {
    write(loc.user_settings_file(), R"({"roots":["~/missing"],"mcpServers":{"a":{"command":"x"}}})");
    const auto c = load();
    ASSERT_TRUE(find(c, "a"));
    EXPECT_FALSE(find(c, "a")->config.roots.has_value());
    EXPECT_TRUE(contains(problems(c), loc.user_settings_file().string() + ": roots: \"~/missing\"")) << problems(c);
    EXPECT_TRUE(contains(problems(c), "the default roots are ignored")) << problems(c);
}

TEST_F(ConfigRootsLayers, AProjectListLeadingOutOfTheRepositoryCostsOnlyThatServer) {
    fs::create_directories(real / "home" / ".ssh");
    fs::create_symlink(real / "home" / ".ssh", loc.project_root / "keys");
    write(loc.project_root / ".mcp.json", R"({"mcpServers":{
        "home":{"command":"x","roots":["~/.ssh"]},
        "link":{"command":"x","roots":["docs","keys"]},
        "up":{"command":"x","roots":["../outside"]},
        "fine":{"command":"x","roots":["docs"]}}})");
    const auto c = load();
    EXPECT_EQ(c.servers.size(), 1u);
    ASSERT_TRUE(find(c, "fine"));
    EXPECT_EQ(*find(c, "fine")->config.roots, (std::vector<fs::path>{real / "repo" / "docs"}));
    const std::string text = problems(c);
    EXPECT_TRUE(contains(text, "| home | server 'home': roots: \"~/.ssh\" resolves to " + (real / "home" / ".ssh").string() +
                                   ", outside the project " + loc.project_root.string()))
        << text;
    EXPECT_TRUE(contains(text, "| link | server 'link': roots: \"keys\" resolves to " + (real / "home" / ".ssh").string()))
        << text;
    EXPECT_TRUE(contains(text, "| up | server 'up': roots: \"../outside\" resolves to " + (real / "outside").string())) << text;

    // The same list in the user's own file may name anything.
    write(loc.user_settings_file(), R"({"mcpServers":{"mine":{"command":"x","roots":["~/.ssh"]}}})");
    const auto mine = load();
    ASSERT_TRUE(find(mine, "mine"));
    EXPECT_EQ(*find(mine, "mine")->config.roots, (std::vector<fs::path>{real / "home" / ".ssh"}));
}

TEST_F(ConfigRootsLayers, ADynamicDocumentResolvesFromTheProjectRoot) {
    const auto c = load({{"--mcp-config (inline)", R"({"mcpServers":{"d":{"command":"x","roots":["docs","${HOME}/src"]}}})"}});
    EXPECT_TRUE(c.problems.empty()) << problems(c);
    ASSERT_TRUE(find(c, "d"));
    EXPECT_EQ(*find(c, "d")->config.roots, (std::vector<fs::path>{real / "repo" / "docs", real / "home" / "src"}));
}

}  // namespace
