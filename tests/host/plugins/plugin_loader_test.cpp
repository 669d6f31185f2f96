// Plugin discovery and loading with the helper plugins of tests/plugin-api: the good one loads,
// every refused one is recorded with the loader's reason, and nothing crashes.
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"
#include "plugins/plugin_registry.hpp"
#include "test_plugins.hpp"
#include "test_scratch.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using mcph::PluginInfo;
using mcph::test::plugin_case_dir;

const fs::path kGoodFile = plugin_case_dir("good") / "libmcph_test_echo_transport.so";

using mcph::test::ScopedEnv;
using TempDir = mcph::test::ScratchDir;

class PluginLoaderTest : public ::testing::Test {
protected:
    mcph::plugins::HostServices services{mcph::plugins::HostServiceBindings{}};
};

TEST_F(PluginLoaderTest, TheHelperPluginsWereBuilt) {
    for (const char* c : {"good", "abi2", "initfail", "nointerface", "noentry", "garbage", "dup"})
        EXPECT_TRUE(fs::is_directory(plugin_case_dir(c))) << plugin_case_dir(c);
    ASSERT_TRUE(fs::exists(kGoodFile)) << kGoodFile;
}

TEST_F(PluginLoaderTest, GoodPluginLoadsAndDescribesItself) {
    PluginInfo info;
    auto plugin = mcph::plugins::load_plugin(kGoodFile, services.table(), info);
    ASSERT_TRUE(plugin) << info.error;
    EXPECT_TRUE(info.loaded);
    EXPECT_EQ(info.error, "");
    EXPECT_EQ(info.path, kGoodFile);
    EXPECT_EQ(info.name, "test-echo");
    EXPECT_EQ(info.version, "1.0.0");
    EXPECT_EQ(info.abi_major, MCPH_ABI_MAJOR);
    EXPECT_EQ(info.abi_minor, MCPH_ABI_MINOR);
    EXPECT_EQ(info.interfaces, std::vector<std::string>{"mcph.transport/1"});
    EXPECT_EQ(info.config_types, std::vector<std::string>{"echo"});
    EXPECT_EQ(info.auth_backend, "");
    EXPECT_NE(plugin->transport(), nullptr);
    EXPECT_EQ(plugin->auth(), nullptr);
    EXPECT_STREQ(plugin->descriptor().name, "test-echo");
}

struct RefusedCase {
    const char* case_dir;
    const char* file;
    const char* reason;  // substring of PluginInfo::error
    const char* name;    // what the loader could still read, "" if nothing
};

const RefusedCase kRefused[] = {
    {"abi2", "libmcph_test_abi2.so", "plugin ABI 2.7 is incompatible with host ABI 1.3 (major versions must match)",
     "abi-two"},
    {"initfail", "libmcph_test_init_fails.so", "init failed: test plugin refuses to start: no widget attached",
     "init-fails"},
    {"nointerface", "libmcph_test_no_interface.so",
     "plugin offers no interface this host understands (mcph.transport/1, mcph.auth/1)", "no-interface"},
    {"noentry", "libmcph_test_no_entry.so", "not an mcph plugin (no mcph_plugin_entry symbol)", ""},
    {"garbage", "x.so", "not loadable: ", ""},
    {"garbage", "does-not-exist.so", "not loadable: ", ""},
};

TEST_F(PluginLoaderTest, RefusedPluginsGetAClearReason) {
    for (const RefusedCase& c : kRefused) {
        SCOPED_TRACE(c.file);
        PluginInfo info;
        const fs::path file = plugin_case_dir(c.case_dir) / c.file;
        auto plugin = mcph::plugins::load_plugin(file, services.table(), info);
        EXPECT_FALSE(plugin);
        EXPECT_FALSE(info.loaded);
        EXPECT_EQ(info.path, file);
        EXPECT_NE(info.error.find(c.reason), std::string::npos) << info.error;
        EXPECT_EQ(info.name, c.name);
        EXPECT_TRUE(info.interfaces.empty());
    }
}

TEST_F(PluginLoaderTest, NotLoadableReasonCarriesTheDynamicLoaderText) {
    PluginInfo info;
    mcph::plugins::load_plugin(plugin_case_dir("garbage") / "x.so", services.table(), info);
    // The throwing Boost.DLL overload keeps dlerror's text (ARCHITECTURE.md §2), which names the file.
    EXPECT_NE(info.error.find("x.so"), std::string::npos) << info.error;
}

TEST_F(PluginLoaderTest, RegistryLoadsTheGoodOneAndRecordsEachRefusal) {
    mcph::plugins::PluginRegistry registry;
    const std::vector<fs::path> dirs = {plugin_case_dir("good"), plugin_case_dir("abi2"), plugin_case_dir("initfail"),
                                        plugin_case_dir("nointerface"), plugin_case_dir("noentry"),
                                        plugin_case_dir("garbage"), "/nonexistent/mcph/plugins"};
    registry.discover(dirs, services.table());
    const auto& infos = registry.infos();
    ASSERT_EQ(infos.size(), 6u);
    // In search order, one file per directory.
    EXPECT_TRUE(infos[0].loaded);
    EXPECT_EQ(infos[0].name, "test-echo");
    EXPECT_EQ(infos[0].error, "");
    for (std::size_t i = 1; i < infos.size(); ++i) {
        EXPECT_FALSE(infos[i].loaded) << infos[i].path;
        EXPECT_NE(infos[i].error, "") << infos[i].path;
    }
    EXPECT_NE(infos[1].error.find("incompatible"), std::string::npos);
    EXPECT_NE(infos[2].error.find("init failed"), std::string::npos);
    EXPECT_NE(infos[3].error.find("no interface"), std::string::npos);
    EXPECT_NE(infos[4].error.find("no mcph_plugin_entry"), std::string::npos);
    EXPECT_NE(infos[5].error.find("not loadable"), std::string::npos);

    EXPECT_TRUE(registry.transport_for("echo"));
    EXPECT_FALSE(registry.transport_for("never")) << "a plugin whose init failed serves nothing";
    EXPECT_FALSE(registry.transport_for("stdio"));
    EXPECT_EQ(registry.transport_types(), std::vector<std::string>{"echo"});
    EXPECT_FALSE(registry.auth_backend("oauth"));
}

TEST_F(PluginLoaderTest, RegistryLoadsEachFileOnceEvenThroughASymlink) {
    TempDir tmp;
    fs::create_symlink(kGoodFile, tmp.path() / "libalias.so");
    mcph::plugins::PluginRegistry registry;
    registry.discover({plugin_case_dir("good"), plugin_case_dir("good"), tmp.path()}, services.table());
    ASSERT_EQ(registry.infos().size(), 1u);
    EXPECT_TRUE(registry.infos()[0].loaded);
}

TEST_F(PluginLoaderTest, FirstPluginToClaimATypeWins) {
    mcph::plugins::PluginRegistry registry;
    registry.discover({plugin_case_dir("good"), plugin_case_dir("dup")}, services.table());
    ASSERT_EQ(registry.infos().size(), 2u);
    EXPECT_EQ(registry.infos()[0].error, "");
    EXPECT_TRUE(registry.infos()[1].loaded);
    EXPECT_NE(registry.infos()[1].error.find("transport type 'echo' already served by an earlier plugin"),
              std::string::npos)
        << registry.infos()[1].error;
    EXPECT_EQ(registry.transport_types().size(), 1u);
}

TEST_F(PluginLoaderTest, OnlySharedLibraryNamesAreConsidered) {
    TempDir tmp;
    { std::ofstream(tmp.path() / "README.txt") << "not a plugin"; }
    { std::ofstream(tmp.path() / "libthing.so.bak.txt") << "x"; }  // has ".so." inside: considered
    fs::create_directory(tmp.path() / "sub.so");                     // a directory, not a file
    fs::copy_file(kGoodFile, tmp.path() / "libecho.so.1");
    mcph::plugins::PluginRegistry registry;
    registry.discover({tmp.path()}, services.table());
    std::vector<std::string> names;
    for (const auto& info : registry.infos()) names.push_back(info.path.filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"libecho.so.1", "libthing.so.bak.txt"}));
    EXPECT_TRUE(registry.transport_for("echo"));
}

TEST_F(PluginLoaderTest, ClearDropsTheRegistryButNotPluginsHeldElsewhere) {
    mcph::plugins::PluginRegistry registry;
    registry.discover({plugin_case_dir("good")}, services.table());
    auto kept = registry.transport_for("echo");
    ASSERT_TRUE(kept);
    registry.clear();
    EXPECT_FALSE(registry.transport_for("echo"));
    EXPECT_EQ(registry.infos().size(), 1u) << "the record of what was found stays";
    EXPECT_STREQ(kept->descriptor().name, "test-echo") << "the library is still mapped";
}

// ---- search path and the Host's view ------------------------------------------------------------

TEST(PluginSearchPath, EnvFirstThenConfiguredThenDefaults) {
    ScopedEnv env("MCPH_PLUGIN_PATH", "/env/one::/env/two");
    mcph::HostOptions options;
    options.plugin_dirs = {"/configured"};
    auto dirs = mcph::plugins::plugin_search_path(options);
    const auto defaults = mcph::plugins::default_plugin_dirs();
    ASSERT_FALSE(defaults.empty());
    ASSERT_EQ(dirs.size(), 3 + defaults.size());
    EXPECT_EQ(dirs[0], fs::path("/env/one"));
    EXPECT_EQ(dirs[1], fs::path("/env/two"));
    EXPECT_EQ(dirs[2], fs::path("/configured"));
    EXPECT_TRUE(std::equal(defaults.begin(), defaults.end(), dirs.begin() + 3));

    options.use_env_plugin_path = false;
    options.use_default_plugin_dir = false;
    EXPECT_EQ(mcph::plugins::plugin_search_path(options), std::vector<fs::path>{"/configured"});
}

// The defaults come in the documented order: beside libmcph (relocatable), the compiled-in
// install directory, next to the running binary — each once.
TEST(PluginSearchPath, DefaultsAreLibraryThenInstalledThenExecutable) {
    const fs::path library = mcph::plugins::library_plugin_dir();
    const fs::path installed = mcph::plugins::installed_plugin_dir();
    const fs::path executable = mcph::plugins::executable_plugin_dir();
    // The build compiles in ${CMAKE_INSTALL_FULL_LIBDIR}/mcph/plugins.
    ASSERT_FALSE(installed.empty()) << "MCPH_INSTALLED_PLUGIN_DIR was not defined by the build";
    EXPECT_TRUE(installed.is_absolute()) << installed;
    EXPECT_EQ(installed.filename(), "plugins");
    EXPECT_EQ(installed.parent_path().filename(), "mcph");
    ASSERT_FALSE(executable.empty());
    EXPECT_EQ(executable, (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "lib" / "mcph" / "plugins").lexically_normal());
    // When libmcph is a shared library its directory leads; linked statically there is none.
    if (!library.empty()) {
        EXPECT_TRUE(library.is_absolute()) << library;
        EXPECT_EQ(library.filename(), "plugins");
        EXPECT_TRUE(fs::exists(library.parent_path().parent_path())) << library;
    }

    std::vector<fs::path> expected;
    for (const fs::path& d : {library, installed, executable})
        if (!d.empty() && std::find(expected.begin(), expected.end(), d) == expected.end()) expected.push_back(d);
    EXPECT_EQ(mcph::plugins::default_plugin_dirs(), expected);
}

// Two spellings of one directory (dots, a symlink) are one entry: the first spelling stays.
TEST(PluginSearchPath, DuplicatesAreDroppedWhateverTheirSpelling) {
    TempDir tmp;
    fs::create_directories(tmp.path() / "real" / "plugins");
    fs::create_directory_symlink(tmp.path() / "real", tmp.path() / "link");
    const fs::path first = tmp.path() / "real" / "plugins";
    std::vector<fs::path> dirs{first};
    mcph::plugins::append_unique_dirs(dirs, {tmp.path() / "real" / "." / "plugins",
                                             tmp.path() / "real" / "x" / ".." / "plugins",
                                             tmp.path() / "link" / "plugins",
                                             {},
                                             "/not/there",
                                             "/not/./there"});
    EXPECT_EQ(dirs, (std::vector<fs::path>{first, "/not/there"}));

    // The same through the public entry point: an env entry repeated in the configured dirs.
    ScopedEnv env("MCPH_PLUGIN_PATH", (first.string() + ":" + first.string()).c_str());
    mcph::HostOptions options;
    options.use_default_plugin_dir = false;
    options.plugin_dirs = {tmp.path() / "link" / "plugins", "/configured"};
    EXPECT_EQ(mcph::plugins::plugin_search_path(options), (std::vector<fs::path>{first, "/configured"}));
}

mcph::HostOptions quiet_options() {
    mcph::HostOptions options;
    options.use_env_plugin_path = false;
    options.use_default_plugin_dir = false;
    options.logger = [](mcph::LogLevel, std::string_view, std::string_view) {};
    return options;
}

TEST(HostPlugins, ReportsLoadedAndRefusedPlugins) {
    mcph::HostOptions options = quiet_options();
    options.plugin_dirs = {plugin_case_dir("good"), plugin_case_dir("abi2"), plugin_case_dir("initfail"),
                           plugin_case_dir("noentry"), plugin_case_dir("garbage")};
    mcph::Host host(options);
    const auto& plugins = host.plugins();
    ASSERT_EQ(plugins.size(), 5u);
    EXPECT_TRUE(plugins[0].loaded);
    EXPECT_EQ(plugins[0].config_types, std::vector<std::string>{"echo"});
    for (std::size_t i = 1; i < plugins.size(); ++i) {
        EXPECT_FALSE(plugins[i].loaded) << plugins[i].path;
        EXPECT_FALSE(plugins[i].error.empty()) << plugins[i].path;
    }
    // The status view carries the same, for `mcph plugins` / `/mcp`.
    mcph::Json status = host.status_json();
    ASSERT_TRUE(status["plugins"].IsArray());
    ASSERT_EQ(status["plugins"].Size(), 5u);
    EXPECT_TRUE(status["plugins"][0]["loaded"].GetBool());
    EXPECT_STREQ(status["plugins"][0]["abi"].GetString(), "1.3");
    EXPECT_FALSE(status["plugins"][1]["loaded"].GetBool());
    EXPECT_NE(std::string(status["plugins"][1]["error"].GetString()).find("incompatible"), std::string::npos);
}

TEST(HostPlugins, HonoursMcphPluginPath) {
    const std::string path = "/nonexistent/dir:" + plugin_case_dir("good").string();
    ScopedEnv env("MCPH_PLUGIN_PATH", path.c_str());
    mcph::HostOptions options = quiet_options();
    options.use_env_plugin_path = true;
    {
        mcph::Host host(options);
        ASSERT_EQ(host.plugins().size(), 1u);
        EXPECT_TRUE(host.plugins()[0].loaded);
        EXPECT_EQ(host.plugins()[0].name, "test-echo");
    }
    options.use_env_plugin_path = false;
    mcph::Host without(options);
    EXPECT_TRUE(without.plugins().empty());
}

TEST(HostPlugins, NoPluginsMeansNoTransport) {
    mcph::Host host(quiet_options());
    EXPECT_TRUE(host.plugins().empty());
    host.add_config_json(R"({"mcpServers":{"e":{"type":"echo"}}})");
    try {
        host.connect("e");
        FAIL() << "connected without a plugin";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Plugin);
        EXPECT_NE(std::string(e.what()).find("'echo'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("available: none"), std::string::npos) << e.what();
    }
}


// ---- the process-wide library cache (plugins/library_cache.hpp) ---------------------------------

// `from` copied to `to` through a rename, as a package update replaces a file: a new inode.
void replace_file(const fs::path& from, const fs::path& to) {
    const fs::path staged = to.string() + ".new";
    fs::copy_file(from, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, to);
}

TEST(PluginLibraryCache, TwoHostsInSequenceMapTheLibraryOnce) {
    TempDir dir;  // a path of its own: no other test of this process has mapped it
    fs::copy_file(kGoodFile, dir.path() / "libplug.so");
    mcph::HostOptions options = quiet_options();
    options.plugin_dirs = {dir.path()};
    const std::size_t before = mcph::plugins::plugin_libraries_opened();
    for (int i = 0; i < 2; ++i) {
        mcph::Host host(options);
        ASSERT_EQ(host.plugins().size(), 1u);
        EXPECT_TRUE(host.plugins()[0].loaded) << host.plugins()[0].error;
        EXPECT_EQ(host.plugins()[0].name, "test-echo");
        EXPECT_EQ(mcph::plugins::plugin_libraries_opened(), before + 1) << "Host " << i << " opened it again";
    }
}

TEST(PluginLibraryCache, AFileReplacedOnDiskBetweenTwoHostsIsLoadedAnew) {
    TempDir dir;
    const fs::path file = dir.path() / "libplug.so";
    fs::copy_file(kGoodFile, file);
    mcph::HostOptions options = quiet_options();
    options.plugin_dirs = {dir.path()};
    {
        mcph::Host host(options);
        ASSERT_EQ(host.plugins().size(), 1u);
        EXPECT_EQ(host.plugins()[0].config_types, std::vector<std::string>{"echo"});
    }
    replace_file(plugin_case_dir("abi10") / "libmcph_test_abi10.so", file);
    const std::size_t before = mcph::plugins::plugin_libraries_opened();
    mcph::Host host(options);
    ASSERT_EQ(host.plugins().size(), 1u);
    EXPECT_TRUE(host.plugins()[0].loaded) << host.plugins()[0].error;
    EXPECT_EQ(host.plugins()[0].config_types, std::vector<std::string>{"abi10"}) << "the stale copy was used";
    EXPECT_EQ(mcph::plugins::plugin_libraries_opened(), before + 1);
}

TEST_F(PluginLoaderTest, AFileReplacedWhileTheOldCopyIsInUseIsRefusedNotServedStale) {
    TempDir dir;
    const fs::path file = dir.path() / "libplug.so";
    fs::copy_file(kGoodFile, file);
    PluginInfo first;
    auto in_use = mcph::plugins::load_plugin(file, services.table(), first);
    ASSERT_TRUE(in_use) << first.error;
    replace_file(plugin_case_dir("abi10") / "libmcph_test_abi10.so", file);
    PluginInfo second;
    EXPECT_FALSE(mcph::plugins::load_plugin(file, services.table(), second));
    EXPECT_FALSE(second.loaded);
    EXPECT_EQ(second.path, file);
    EXPECT_NE(second.error.find("changed on disk while the copy loaded earlier is still in use"), std::string::npos)
        << second.error;
    in_use.reset();  // the old copy's last holder gone: the new file loads
    PluginInfo third;
    auto fresh = mcph::plugins::load_plugin(file, services.table(), third);
    ASSERT_TRUE(fresh) << third.error;
    EXPECT_EQ(third.config_types, std::vector<std::string>{"abi10"});
}

TEST(PluginLibraryCache, APluginThatFailsToLoadIsNotCachedAsLoadedAndTheErrorNamesTheFile) {
    mcph::HostOptions options = quiet_options();
    options.plugin_dirs = {plugin_case_dir("initfail"), plugin_case_dir("noentry")};
    std::size_t opened_by_the_first = 0;
    for (int i = 0; i < 2; ++i) {
        const std::size_t before = mcph::plugins::plugin_libraries_opened();
        mcph::Host host(options);
        ASSERT_EQ(host.plugins().size(), 2u);
        for (const auto& p : host.plugins()) EXPECT_FALSE(p.loaded) << p.path;
        EXPECT_NE(host.plugins()[0].error.find("init failed: test plugin refuses to start"), std::string::npos)
            << "Host " << i << ": init ran again and failed again: " << host.plugins()[0].error;
        EXPECT_EQ(host.plugins()[0].path, plugin_case_dir("initfail") / "libmcph_test_init_fails.so");
        EXPECT_NE(host.plugins()[1].error.find("no mcph_plugin_entry symbol"), std::string::npos) << host.plugins()[1].error;
        const std::size_t opened = mcph::plugins::plugin_libraries_opened() - before;
        if (i == 0) opened_by_the_first = opened;
        // The init-fails plugin's mapping is kept (a valid plugin file; its init runs per host):
        // the second host opens only the library without an entry point, which was unmapped
        // after its refusal.
        if (i == 1) {
            EXPECT_EQ(opened, 1u) << "the first host opened " << opened_by_the_first;
        }
    }
}

}  // namespace
