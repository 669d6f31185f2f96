// A repository plants shared libraries named like mcph's own dependencies and the user runs the
// built mcph inside it. Before, CMake's padding of the build tree's RUNPATH ("...::::", room for the
// install-time rewrite) gave ld.so empty entries, which it reads as the current directory: the
// planted libicuuc.so.72 was mapped before the system's (a real ELF would have run its
// constructors). The planted files here are text, so mapping any of them makes the loader fail
// ("file too short"): mcph has to start as if they were not there.
#include "trust_support.hpp"

#include <gtest/gtest.h>

#include <link.h>

#include <set>
#include <string>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

// The sonames this test process has mapped: the C++ runtime, libc, ICU, yaml-cpp, libidn2...,
// most of what the CLI maps too (without naming versions this test would have to keep current).
std::set<std::string> mapped_library_names() {
    std::set<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            const std::string path = info->dlpi_name ? info->dlpi_name : "";
            if (path.find(".so") != std::string::npos)
                static_cast<std::set<std::string>*>(out)->insert(fs::path(path).filename().string());
            return 0;
        },
        &names);
    return names;
}

TEST(TrustLibrarySearch, LibrariesPlantedInTheCurrentFolderAreNeverLoaded) {
    TrustTree t;
    std::set<std::string> planted = mapped_library_names();
    planted.insert("libedit.so.2");  // the CLI's own (line editing), not this test's
    for (const auto& entry : fs::directory_iterator(cli_path().parent_path().parent_path() / "lib"))
        if (entry.path().filename().string().rfind("libmcph.so", 0) == 0) planted.insert(entry.path().filename().string());
    ASSERT_GT(planted.size(), 5u);
    for (const std::string& name : planted) {
        write_file(t.repo / name, "not a shared library\n");
        write_file(t.repo / "glibc-hwcaps" / "x86-64-v2" / name, "not a shared library\n");
    }

    const CliResult version = t.mcph({"--version"}, t.repo);
    EXPECT_EQ(version.exit_code, 0) << "a library planted in the current folder was loaded\n" << version.describe();
    EXPECT_TRUE(contains(version.out, "mcph ")) << version.describe();
    // A command that loads a plugin and spawns a server there too.
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"mine\":" + fake_server_config_text({}) + "}}");
    const CliResult tools = t.mcph({"tools"}, t.repo);
    EXPECT_EQ(tools.exit_code, 0) << tools.describe();
    EXPECT_TRUE(contains(tools.out, "mcp__mine__")) << tools.describe();
}

}  // namespace
}  // namespace mcph::test
