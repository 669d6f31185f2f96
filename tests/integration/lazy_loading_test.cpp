// What a one-stdio-server host maps: the stdio plugin only. Neither a call nor the status view
// loads the plugins no server needs (listed from their manifests), and nothing that does not touch
// a stored secret opens libsecret and GLib (the secret store is chosen on first use), nor
// libcrypto (opened for skill files' base64 only).
#include "test_support.hpp"

#include "dynload/on_demand_library.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace mcph::test {
namespace {

// Whether this process has mapped a file whose path contains `needle` (/proc/self/maps).
bool is_mapped(const std::string& needle) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find(needle) != std::string::npos) return true;
    return false;
}

const JsonValue* plugin_entry(const Json& status, const std::string& file_name) {
    for (const JsonValue& p : status["plugins"].GetArray())
        if (std::string(p["path"].GetString()).find(file_name) != std::string::npos) return &p;
    return nullptr;
}

TEST(LazyLoading, AStdioCallAndTheStatusViewMapNeitherTheHttpPluginNorLibsecret) {
    // ctest runs each test in a process of its own; run alone, an earlier test may have mapped them.
    ASSERT_FALSE(is_mapped("libmcph_transport_http.so")) << "another test of this process loaded it already";
    ASSERT_FALSE(is_mapped("libsecret-1.so")) << "another test of this process opened it already";
    ASSERT_FALSE(is_mapped("libcrypto.so")) << "another test of this process opened it already";
    LogCapture logs;
    Host host(test_options(logs));
    host.add_server("fake", fake_config("normal"));
    host.connect("fake");
    EXPECT_FALSE(host.call_tool("mcp__fake__work", parse_json("{}")).is_error);
    EXPECT_FALSE(is_mapped("libsecret-1.so")) << "a call that stores no secret opened libsecret";
    EXPECT_FALSE(dynload::libsecret().opened());
    EXPECT_FALSE(is_mapped("libcrypto.so")) << "a stdio call mapped libcrypto (only skill files' base64 needs it)";

    const Json status = host.status_json();
    EXPECT_TRUE(status["secretStore"].HasMember("kind")) << "the status view still names the store";
    EXPECT_FALSE(is_mapped("libmcph_transport_http.so")) << "the status view loaded the HTTP plugin";
    EXPECT_FALSE(is_mapped("libmcph_transport_ws.so")) << "the status view loaded the WebSocket plugin";
    const JsonValue* http = plugin_entry(status, "libmcph_transport_http.so");
    ASSERT_NE(http, nullptr) << to_json(status["plugins"]);
    EXPECT_FALSE((*http)["loaded"].GetBool());
    EXPECT_TRUE(http->HasMember("notLoadedYet")) << to_json(*http);
    EXPECT_FALSE(http->HasMember("error")) << to_json(*http);
    EXPECT_EQ(to_json((*http)["transportTypes"]), R"(["http"])") << "named from its manifest";
    const JsonValue* stdio = plugin_entry(status, "libmcph_transport_stdio.so");
    ASSERT_NE(stdio, nullptr);
    EXPECT_TRUE((*stdio)["loaded"].GetBool());
    EXPECT_FALSE(stdio->HasMember("notLoadedYet"));

    // The full listing (`mcph plugins`) still loads and checks every one.
    host.plugins();
    EXPECT_TRUE(is_mapped("libmcph_transport_http.so"));
    const Json status_after = host.status_json();
    const JsonValue* after = plugin_entry(status_after, "libmcph_transport_http.so");
    ASSERT_NE(after, nullptr);
    EXPECT_TRUE((*after)["loaded"].GetBool());
    EXPECT_FALSE(after->HasMember("notLoadedYet"));
}

}  // namespace
}  // namespace mcph::test
