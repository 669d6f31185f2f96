// A plugin built against the frozen ABI 1.0 header (tests/plugin-api/plugins/abi10_transport.cpp)
// in the current host: it loads, shows ABI 1.0 in the plugin list and the status view, carries a
// session (handshake, tools/list, tools/call, ping), its text warnings are log lines that never
// drop the connection, and its close detail in the 1.0 convention still yields the stderr tail.
#include "test_plugins.hpp"
#include "test_helpers.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::parse_json;

using host_test::contains;

mcph::HostOptions options() {
    mcph::HostOptions o;
    o.plugin_dirs = {mcph::test::plugin_case_dir("abi10")};
    o.use_env_plugin_path = false;
    o.use_default_plugin_dir = false;
    o.secret_storage = mcph::HostOptions::SecretStorage::Memory;
    o.request_timeout = 10s;
    o.connect_timeout = 10s;
    o.reconnect = mcph::HostOptions::Reconnect{};
    o.reconnect->max_attempts = 0;  // a loss ends in "failed": the test sees the close itself
    o.logger = [](mcph::LogLevel, std::string_view, std::string_view) {};
    return o;
}

const char* kConfig = R"({"mcpServers":{"old":{"type":"abi10"}}})";

TEST(Abi10Plugin, LoadsAndShowsAbiOnePointZero) {
    mcph::Host host(options());
    const mcph::PluginInfo* found = nullptr;
    for (const auto& p : host.plugins())
        if (p.name == "test-abi10") found = &p;
    ASSERT_NE(found, nullptr) << "the abi10 test plugin is not in the plugin list";
    EXPECT_TRUE(found->loaded) << found->error;
    EXPECT_EQ(found->abi_major, 1u);
    EXPECT_EQ(found->abi_minor, 0u);
    EXPECT_EQ(found->config_types, std::vector<std::string>{"abi10"});

    const mcph::Json status = host.status_json();
    ASSERT_TRUE(status.HasMember("plugins") && status["plugins"].IsArray());
    bool shown = false;
    for (const auto& p : status["plugins"].GetArray())
        if (p.HasMember("name") && std::string(p["name"].GetString()) == "test-abi10") {
            ASSERT_TRUE(p.HasMember("abi"));
            EXPECT_STREQ(p["abi"].GetString(), "1.0");
            shown = true;
        }
    EXPECT_TRUE(shown) << mcph::to_json(status["plugins"]);
}

TEST(Abi10Plugin, CarriesASessionAndItsWarningsAreOnlyLogLines) {
    mcph::Host host(options());
    host.add_config_json(kConfig);
    auto session = host.connect("old");
    ASSERT_TRUE(session->connected());
    EXPECT_EQ(session->server_info().name, "abi10-server");
    const auto tools = session->list_tools();
    ASSERT_EQ(tools.size(), 3u);
    EXPECT_EQ(tools[0].name, "echo");
    EXPECT_EQ(host.call_tool("mcp__old__echo", parse_json(R"({"n":1})")).text(), R"(echo {"n":1})");
    session->call("ping", mcph::Json(rapidjson::kObjectType));
    // Three warnings worded like a dead link, twice: before ABI 1.1 the host matched such text and
    // reconnected after three in a row; now only typed failures count, and a 1.0 plugin sends none.
    for (int i = 0; i < 2; ++i) EXPECT_EQ(host.call_tool("mcp__old__warn", parse_json("{}")).text(), "warn {}");
    EXPECT_EQ(host.call_tool("mcp__old__echo", parse_json(R"({"n":2})")).text(), R"(echo {"n":2})");
    EXPECT_TRUE(session->connected());
    EXPECT_EQ(host.status()[0].state, "connected");
}

TEST(Abi10Plugin, ItsCloseDetailYieldsMessageAndStderrTail) {
    mcph::Host host(options());
    host.add_config_json(kConfig);
    host.connect("old");
    Error e(ErrorKind::Usage, "<none>");
    try {
        host.call_tool("mcp__old__crash", parse_json("{}"));
        ADD_FAILURE() << "the crash call returned";
    } catch (const Error& caught) {
        e = caught;
    }
    EXPECT_EQ(e.kind(), ErrorKind::Connection);
    EXPECT_TRUE(contains(e.what(), "abi10 server crashed")) << e.what();
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (host.status()[0].state != "failed" && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    const mcph::ServerStatus status = host.status()[0];
    EXPECT_EQ(status.state, "failed");
    EXPECT_EQ(status.stderr_tail, (std::vector<std::string>{"line one", "line two"}));
    EXPECT_TRUE(contains(status.error, "abi10 server crashed")) << status.error;
}

}  // namespace
