// Lazy plugin loading: a plugin whose file carries a manifest (.mcph_manifest) is indexed without
// being mapped and loaded when its type is first needed; a manifest that lies about what the plugin
// serves gets the plugin refused, with the difference named; a bad manifest is reported.
#include "plugins/host_services.hpp"
#include "plugins/plugin_manifest.hpp"
#include "plugins/plugin_registry.hpp"
#include "test_plugins.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mcph::plugins::parse_plugin_manifest;
using mcph::plugins::PluginRegistry;
using mcph::plugins::read_plugin_manifest;
using mcph::test::plugin_case_dir;

// Whether this process has mapped a file whose path contains `needle` (/proc/self/maps).
bool mapped(const std::string& needle) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find(needle) != std::string::npos) return true;
    return false;
}

class LazyLoading : public ::testing::Test {
protected:
    mcph::plugins::HostServices services{mcph::plugins::HostServiceBindings{}};
};

TEST_F(LazyLoading, AManifestPluginIsIndexedAtDiscoveryAndLoadedOnFirstNeed) {
    const auto file = plugin_case_dir("lazy") / "libmcph_test_echo_lazy.so";
    ASSERT_FALSE(mapped(file.string())) << "another test of this process loaded it already";
    PluginRegistry registry;
    registry.discover({plugin_case_dir("lazy")}, services.table());
    EXPECT_EQ(registry.loaded_count(), 0u);
    EXPECT_FALSE(mapped(file.string())) << "discovery mapped the plugin";
    EXPECT_EQ(registry.transport_types(), std::vector<std::string>{"echo"});
    EXPECT_FALSE(registry.transport_for("other"));
    EXPECT_EQ(registry.loaded_count(), 0u) << "asking for a type it does not serve loaded it";

    EXPECT_TRUE(registry.transport_for("echo"));
    EXPECT_EQ(registry.loaded_count(), 1u);
    EXPECT_TRUE(mapped(file.string()));
    const auto& infos = registry.infos();
    ASSERT_EQ(infos.size(), 1u);
    EXPECT_TRUE(infos[0].loaded);
    EXPECT_EQ(infos[0].name, "test-echo");
    EXPECT_EQ(infos[0].error, "");
}

TEST_F(LazyLoading, TheListingLoadsEveryPluginSoEachShowsLoadedOrRefused) {
    PluginRegistry registry;
    registry.discover({plugin_case_dir("lying"), plugin_case_dir("good")}, services.table());
    EXPECT_EQ(registry.loaded_count(), 1u) << "only the plugin without a manifest is loaded at discovery";
    const auto& infos = registry.infos();
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_FALSE(infos[0].loaded);
    EXPECT_TRUE(infos[1].loaded);
    EXPECT_EQ(&infos, &registry.infos()) << "the listing is made once";
}

TEST_F(LazyLoading, APluginWhoseManifestLiesIsRefusedNamingTheDifference) {
    PluginRegistry registry;
    registry.discover({plugin_case_dir("lying")}, services.table());
    EXPECT_EQ(registry.transport_types(), std::vector<std::string>{"liar"});
    EXPECT_FALSE(registry.transport_for("liar"));
    EXPECT_FALSE(registry.transport_for("echo")) << "what it really serves is not served either";
    const std::string why = registry.refusal_for("liar");
    EXPECT_NE(why.find("claims transport types liar"), std::string::npos) << why;
    EXPECT_NE(why.find("the plugin serves echo"), std::string::npos) << why;
    EXPECT_NE(why.find("refused"), std::string::npos) << why;
    EXPECT_EQ(registry.loaded_count(), 0u);
    EXPECT_FALSE(registry.infos()[0].loaded);
}

TEST_F(LazyLoading, NothingIsLoadedAfterClear) {
    PluginRegistry registry;
    registry.discover({plugin_case_dir("lazy")}, services.table());
    registry.clear();
    EXPECT_FALSE(registry.transport_for("echo"));
    EXPECT_EQ(registry.loaded_count(), 0u);
}

TEST(PluginManifest, FilesWithoutASectionOrNotElfAreTold) {
    std::string why;
    EXPECT_FALSE(read_plugin_manifest(plugin_case_dir("good") / "libmcph_test_echo_transport.so", why));
    EXPECT_EQ(why, "") << "no manifest is not an error";
    EXPECT_FALSE(read_plugin_manifest(plugin_case_dir("garbage") / "x.so", why));
    EXPECT_EQ(why, "not an ELF file");
    EXPECT_FALSE(read_plugin_manifest("/nonexistent/lib.so", why));
    EXPECT_NE(why.find("cannot open"), std::string::npos) << why;
    auto m = read_plugin_manifest(plugin_case_dir("lazy") / "libmcph_test_echo_lazy.so", why);
    ASSERT_TRUE(m) << why;
    EXPECT_EQ(m->transport_types, std::vector<std::string>{"echo"});
    EXPECT_EQ(m->auth_backend, "");
}

TEST(PluginManifest, ParsesOnlyWellFormedVersionOneManifests) {
    std::string why;
    auto m = parse_plugin_manifest(std::string(R"({"manifest":1,"transports":["sse","sse-ide"],"auth":"x"})") + '\0' + '\0', why);
    ASSERT_TRUE(m) << why;
    EXPECT_EQ(m->transport_types, (std::vector<std::string>{"sse", "sse-ide"}));
    EXPECT_EQ(m->auth_backend, "x");
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"{", "not a JSON object"},
        {"[]", "not a JSON object"},
        {R"({"transports":["a"]})", "not version 1"},
        {R"({"manifest":2,"transports":["a"]})", "not version 1"},
        {R"({"manifest":1,"transports":"a"})", "not an array"},
        {R"({"manifest":1,"transports":[1]})", "not a plain name"},
        {R"({"manifest":1,"transports":["a b"]})", "not a plain name"},
        {R"({"manifest":1,"transports":["a\u001b[2J"]})", "not a plain name"},
        {R"({"manifest":1,"auth":7})", "\"auth\" is not a plain name"},
        {R"({"manifest":1})", "claims no transport type"},
        {R"({"manifest":1,"transports":[]})", "claims no transport type"},
    };
    for (const auto& [text, message] : bad) {
        EXPECT_FALSE(parse_plugin_manifest(text, why)) << text;
        EXPECT_NE(why.find(message), std::string::npos) << text << ": " << why;
    }
    std::string many = R"({"manifest":1,"transports":[)";
    for (int i = 0; i < 17; ++i) many += std::string(i ? "," : "") + "\"t" + std::to_string(i) + "\"";
    EXPECT_FALSE(parse_plugin_manifest(many + "]}", why));
    EXPECT_NE(why.find("at most 16"), std::string::npos) << why;
    EXPECT_FALSE(parse_plugin_manifest(R"({"manifest":1,"transports":[")" + std::string(65, 'a') + "\"]}", why));
    // Deep nesting within the 4 KiB section bound is refused by the depth bound (no recursion).
    EXPECT_FALSE(parse_plugin_manifest(std::string(4000, '['), why));
}

}  // namespace
