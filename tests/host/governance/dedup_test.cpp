// Dedup of servers that reach us from several channels (seed 000 §18.7).
#include "governance/dedup.hpp"
#include "test_helpers.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

namespace {

using mcph::config::ConfiguredServer;
using mcph::config::Scope;
using mcph::governance::dedup_servers;

ConfiguredServer configured(const std::string& name, const std::string& entry, Scope scope, const std::string& plugin = {}) {
    ConfiguredServer s;
    s.config = mcph::config::parse_server_config(name, mcph::parse_json(entry));
    s.scope = scope;
    s.origin = scope == Scope::Plugin ? "plugin:" + plugin : "test";
    s.plugin_source = plugin;
    return s;
}

std::vector<std::string> names(const std::vector<ConfiguredServer>& servers) {
    std::vector<std::string> out;
    for (const auto& s : servers) out.push_back(s.config.name);
    return out;
}

using host_test::contains;

constexpr const char* kSlack = R"({"command":"npx","args":["-y","slack-mcp"],"env":{"TEAM":"t1"}})";
constexpr const char* kSlackOtherEnvOrder = R"({"env":{"TEAM":"t1"},"args":["-y","slack-mcp"],"command":"npx"})";
constexpr const char* kGithub = R"({"url":"https://api.github.test/mcp"})";
constexpr const char* kGithubViaProxy = R"({"url":"https://proxy.test/c?mcp_url=https%3A%2F%2Fapi.github.test%2Fmcp"})";

TEST(Dedup, ManualBeatsPluginWithAnotherName) {
    // The plugin's copy comes first in the list: manual still wins.
    auto result = dedup_servers({configured("slack-connector", kSlackOtherEnvOrder, Scope::Plugin, "slack-plugin"),
                                 configured("slack", kSlack, Scope::User)});
    EXPECT_EQ(names(result.kept), std::vector<std::string>{"slack"});
    ASSERT_EQ(result.suppressed.size(), 1u);
    const auto& s = result.suppressed[0];
    EXPECT_EQ(s.server.config.name, "slack-connector");
    EXPECT_EQ(s.server.plugin_source, "slack-plugin");
    EXPECT_EQ(s.duplicate_of, "slack");
    EXPECT_EQ(s.reason,
              "server 'slack-connector' from plugin 'slack-plugin' is a duplicate of manually configured server "
              "'slack' (same command, env and inheritEnv)");
}

TEST(Dedup, AnotherInheritEnvIsAnotherServer) {
    // The plugin's copy passes the whole environment: not the user's server, so both are kept.
    const std::string inherit_all = R"({"command":"npx","args":["-y","slack-mcp"],"env":{"TEAM":"t1"},"inheritEnv":true})";
    auto result = dedup_servers({configured("slack-connector", inherit_all, Scope::Plugin, "slack-plugin"),
                                 configured("slack", kSlack, Scope::User)});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"slack-connector", "slack"}));
    EXPECT_TRUE(result.suppressed.empty());
    // The same inheritEnv on both: the manual server still wins.
    result = dedup_servers({configured("slack-connector", inherit_all, Scope::Plugin, "slack-plugin"),
                            configured("slack", inherit_all, Scope::User)});
    EXPECT_EQ(names(result.kept), std::vector<std::string>{"slack"});
    ASSERT_EQ(result.suppressed.size(), 1u);
    EXPECT_EQ(result.suppressed[0].duplicate_of, "slack");
}

TEST(Dedup, ProxiedPluginUrlIsADuplicateOfTheDirectOne) {
    auto result = dedup_servers({configured("github", kGithub, Scope::Project),
                                 configured("gh", kGithubViaProxy, Scope::Plugin, "web-connectors")});
    EXPECT_EQ(names(result.kept), std::vector<std::string>{"github"});
    ASSERT_EQ(result.suppressed.size(), 1u);
    EXPECT_TRUE(contains(result.suppressed[0].reason, "plugin 'web-connectors'")) << result.suppressed[0].reason;
    EXPECT_TRUE(contains(result.suppressed[0].reason, "(same URL and headers)")) << result.suppressed[0].reason;
    EXPECT_FALSE(contains(result.suppressed[0].reason, "proxy.test")) << "URLs may carry tokens; not echoed";
}

TEST(Dedup, FirstPluginWinsOverALaterPlugin) {
    auto result = dedup_servers({configured("slack-a", kSlack, Scope::Plugin, "plugin-a"),
                                 configured("other", kGithub, Scope::Plugin, "plugin-a"),
                                 configured("slack-b", kSlack, Scope::Plugin, "plugin-b")});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"slack-a", "other"}));
    ASSERT_EQ(result.suppressed.size(), 1u);
    EXPECT_EQ(result.suppressed[0].duplicate_of, "slack-a");
    EXPECT_EQ(result.suppressed[0].reason,
              "server 'slack-b' from plugin 'plugin-b' is a duplicate of server 'slack-a' from plugin 'plugin-a' "
              "(same command, env and inheritEnv)");
}

TEST(Dedup, ManualServersAreNeverSuppressed) {
    auto result = dedup_servers({configured("slack", kSlack, Scope::User), configured("slack2", kSlack, Scope::Project),
                                 configured("slack3", kSlack, Scope::Managed)});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"slack", "slack2", "slack3"}));
    EXPECT_TRUE(result.suppressed.empty());
}

TEST(Dedup, DifferentServersAreAllKeptInOrder) {
    auto result = dedup_servers({configured("p1", kGithub, Scope::Plugin, "p"),
                                 configured("m1", kSlack, Scope::Local),
                                 configured("p2", R"({"command":"npx","args":["-y","slack-mcp"],"env":{"TEAM":"t2"}})",
                                            Scope::Plugin, "p")});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"p1", "m1", "p2"}));
    EXPECT_TRUE(result.suppressed.empty());
}

TEST(Dedup, PluginDuplicatesOfOneManualServerAreAllSuppressed) {
    auto result = dedup_servers({configured("a", kSlack, Scope::Plugin, "pa"), configured("b", kSlack, Scope::Plugin, "pb"),
                                 configured("slack", kSlack, Scope::User)});
    EXPECT_EQ(names(result.kept), std::vector<std::string>{"slack"});
    ASSERT_EQ(result.suppressed.size(), 2u);
    EXPECT_EQ(result.suppressed[0].duplicate_of, "slack");
    EXPECT_EQ(result.suppressed[1].duplicate_of, "slack");
}

// Only servers of a synced server's kind are compared with it (the others get no signature, so a
// config whose synced servers run commands parses no URL): each synced copy still finds the
// manual server of its own kind, wherever the kinds sit in the list.
TEST(Dedup, EachSyncedCopyIsFoundAmongServersOfItsKind) {
    auto result = dedup_servers({configured("gh", kGithub, Scope::User), configured("slack-copy", kSlack, Scope::Plugin, "p"),
                                 configured("slack", kSlack, Scope::Project),
                                 configured("gh-copy", kGithubViaProxy, Scope::Plugin, "q")});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"gh", "slack"}));
    ASSERT_EQ(result.suppressed.size(), 2u);
    EXPECT_EQ(result.suppressed[0].duplicate_of, "slack");
    EXPECT_EQ(result.suppressed[1].duplicate_of, "gh");
    // A synced command beside manual remote servers: nothing of another kind is taken for it.
    result = dedup_servers({configured("gh", kGithub, Scope::User), configured("slack-copy", kSlack, Scope::Plugin, "p")});
    EXPECT_EQ(names(result.kept), (std::vector<std::string>{"gh", "slack-copy"}));
    EXPECT_TRUE(result.suppressed.empty());
}

TEST(Dedup, EmptyInput) {
    auto result = dedup_servers({});
    EXPECT_TRUE(result.kept.empty());
    EXPECT_TRUE(result.suppressed.empty());
}

}  // namespace
