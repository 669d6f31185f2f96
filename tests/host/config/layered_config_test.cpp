// The layered configuration: precedence across every scope, enterprise exclusivity, failing closed
// on an administrator's broken file, per-file and per-entry problems, nested project files, plugin
// files, the allow/deny policy and the disabled/enabled lists.
#include "config/layered_config.hpp"
#include "config/file_read.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <fstream>
#include <map>

#include <sys/stat.h>

namespace {

using mcph::test::ScratchDir;

namespace fs = std::filesystem;
using namespace mcph::config;


using host_test::vars;

// {"mcpServers":{"<name>":{"command":"<command>"}}}
std::string servers_doc(const std::map<std::string, std::string>& name_to_command, const char* key = "mcpServers") {
    std::string out = std::string("{\"") + key + "\":{";
    bool first = true;
    for (const auto& [name, command] : name_to_command) {
        out += (first ? "\"" : ",\"") + name + "\":{\"command\":\"" + command + "\"}";
        first = false;
    }
    return out + "}}";
}

std::string command_of(const ConfiguredServer& s) {
    mcph::Json doc = mcph::parse_json(s.config.config_json);
    return doc.HasMember("command") ? doc["command"].GetString() : "";
}

// A machine: /managed, /home (config home), /repo (with .git) and cwd /repo/sub.
class LayeredConfigTest : public ::testing::Test {
protected:
    LayeredConfigTest() {
        loc.managed_dir = dir.path() / "managed";
        loc.config_home = dir.path() / "home";
        loc.project_root = dir.path() / "repo";
        loc.cwd = dir.path() / "repo/sub";
        fs::create_directories(loc.project_root / ".git");
        fs::create_directories(loc.cwd);
    }

    void write(const fs::path& file, const std::string& content) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << content;
    }
    void enterprise(const std::string& c) { write(loc.enterprise_file(), c); }
    void managed(const std::string& c) { write(loc.managed_settings_file(), c); }
    void user(const std::string& c) { write(loc.user_settings_file(), c); }
    void local(const std::string& c) { write(loc.local_settings_file(), c); }
    void project(const std::string& c, const char* sub = "") { write(loc.project_root / sub / ".mcp.json", c); }

    LayeredConfig load(std::vector<DynamicConfig> dynamic = {}, std::vector<PluginContribution> plugins = {},
                       std::map<std::string, std::string> env = {}) {
        return load_layered_config(loc, dynamic, std::move(plugins), vars(std::move(env)));
    }

    static const ConfiguredServer* find(const LayeredConfig& c, const std::string& name) {
        for (const auto& s : c.servers)
            if (s.config.name == name) return &s;
        return nullptr;
    }
    static std::vector<std::string> names(const LayeredConfig& c) {
        std::vector<std::string> out;
        for (const auto& s : c.servers) out.push_back(s.config.name);
        return out;
    }
    static std::string problems_text(const LayeredConfig& c) {
        std::string out;
        for (const auto& p : c.problems) out += p.origin + " | " + p.server + " | " + p.message + "\n";
        return out;
    }

    ScratchDir dir;
    ConfigLocations loc;
};

TEST_F(LayeredConfigTest, MissingFilesAreSilentlyAbsent) {
    auto c = load();
    EXPECT_TRUE(c.servers.empty());
    EXPECT_TRUE(c.problems.empty()) << problems_text(c);
    EXPECT_FALSE(c.policy.fail_closed);
    EXPECT_FALSE(c.policy.allowed.has_value());
    EXPECT_TRUE(c.policy.denied.empty());
    EXPECT_FALSE(c.enterprise_exclusive);
    EXPECT_EQ(c.project_root, loc.project_root);
}

// For each scope, the same name defined in that scope and every lower one: that scope wins.
TEST_F(LayeredConfigTest, SameNameInEveryScopeHighestPrecedenceWins) {
    const Scope order[] = {Scope::Plugin, Scope::User, Scope::Project, Scope::Local, Scope::Dynamic, Scope::Managed};
    for (size_t top = 0; top < std::size(order); ++top) {
        fs::remove_all(loc.managed_dir);
        fs::remove_all(loc.config_home);
        fs::remove_all(loc.project_root / ".mcp.json");
        fs::remove_all(loc.project_root / ".mcph");
        std::vector<PluginContribution> plugins;
        std::vector<DynamicConfig> dynamic;
        for (size_t i = 0; i <= top; ++i) {
            const std::string doc = servers_doc({{"s", std::string(scope_name(order[i]))}});
            switch (order[i]) {
                case Scope::Plugin: plugins.push_back({"plug", "plugin:plug", doc}); break;
                case Scope::User: user(doc); break;
                case Scope::Project: project(doc); break;
                case Scope::Local: local(doc); break;
                case Scope::Dynamic: dynamic.push_back({"api", doc}); break;
                case Scope::Managed: managed(doc); break;
                case Scope::Webapp:  // a web service: remote_config_test.cpp (tests/security)
                case Scope::Enterprise: break;
            }
        }
        auto c = load(dynamic, plugins);
        ASSERT_EQ(c.servers.size(), 1u) << problems_text(c);
        EXPECT_EQ(c.servers[0].scope, order[top]) << "top scope " << scope_name(order[top]);
        EXPECT_EQ(command_of(c.servers[0]), scope_name(order[top]));
        EXPECT_TRUE(c.problems.empty()) << problems_text(c);
    }
}

TEST_F(LayeredConfigTest, ProvenanceOfEachScope) {
    managed(servers_doc({{"m", "m"}}));
    user(servers_doc({{"u", "u"}}));
    project(servers_doc({{"p", "p"}}));
    local(servers_doc({{"l", "l"}}));
    auto c = load({{"--mcp-config x.json", servers_doc({{"d", "d"}})}}, {{"plug", "plugin:plug", servers_doc({{"g", "g"}})}});
    ASSERT_EQ(names(c), (std::vector<std::string>{"g", "u", "p", "l", "d", "m"})) << problems_text(c);
    EXPECT_EQ(find(c, "g")->plugin_source, "plug");
    EXPECT_EQ(find(c, "g")->origin, "plugin:plug");
    EXPECT_EQ(find(c, "u")->origin, loc.user_settings_file().string());
    EXPECT_EQ(find(c, "p")->origin, (loc.project_root / ".mcp.json").string());
    EXPECT_EQ(find(c, "p")->project_root, loc.project_root.string());
    EXPECT_TRUE(find(c, "u")->project_root.empty()) << "only project servers carry the approval key";
    EXPECT_EQ(find(c, "l")->origin, loc.local_settings_file().string());
    EXPECT_EQ(find(c, "d")->origin, "--mcp-config x.json");
    EXPECT_EQ(find(c, "m")->scope, Scope::Managed);
}

TEST_F(LayeredConfigTest, OrderIsFirstDefinitionLowestScopeFirstAndReplacementIsWhole) {
    user(R"({"mcpServers":{"b":{"command":"ub","args":["keep?"]},"a":{"command":"ua"}}})");
    project(servers_doc({{"c", "pc"}, {"b", "pb"}}));
    auto c = load();
    EXPECT_EQ(names(c), (std::vector<std::string>{"b", "a", "c"}));
    EXPECT_EQ(find(c, "b")->scope, Scope::Project);
    mcph::Json b = mcph::parse_json(find(c, "b")->config.config_json);
    EXPECT_FALSE(b.HasMember("args")) << "whole-entry replacement, no field merging";
}

TEST_F(LayeredConfigTest, DynamicSourcesMergeInTheGivenOrder) {
    auto c = load({{"first", servers_doc({{"x", "one"}, {"y", "y"}})}, {"second", servers_doc({{"x", "two"}})}});
    EXPECT_EQ(names(c), (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(command_of(*find(c, "x")), "two");
    EXPECT_EQ(find(c, "x")->origin, "second");
}

TEST_F(LayeredConfigTest, NestedProjectFilesCloserToCwdWin) {
    project(servers_doc({{"shared", "root"}, {"rootonly", "r"}}));
    project(servers_doc({{"shared", "sub"}, {"subonly", "s"}}), "sub");
    auto c = load();
    EXPECT_EQ(names(c), (std::vector<std::string>{"rootonly", "shared", "subonly"}));
    EXPECT_EQ(command_of(*find(c, "shared")), "sub");
    EXPECT_EQ(find(c, "shared")->origin, (loc.cwd / ".mcp.json").string());
    EXPECT_EQ(find(c, "shared")->project_root, loc.project_root.string()) << "approvals are per project, not per file";
    EXPECT_EQ(find(c, "rootonly")->origin, (loc.project_root / ".mcp.json").string());
}

TEST_F(LayeredConfigTest, ProjectFileInVsCodeShape) {
    project(R"({"servers":{"v":{"type":"stdio","command":"vs"}},"inputs":[]})");
    auto c = load();
    ASSERT_EQ(names(c), (std::vector<std::string>{"v"})) << problems_text(c);
    EXPECT_EQ(find(c, "v")->scope, Scope::Project);
}

TEST_F(LayeredConfigTest, PluginFilesAreTaggedWithTheirPlugin) {
    const fs::path a = dir.path() / "plugins-a";
    const fs::path b = dir.path() / "plugins-b";
    write(a / "github.mcp.json", servers_doc({{"gh", "gh"}, {"dup", "from-github"}}));
    write(a / "zeta.mcp.json", servers_doc({{"dup", "from-zeta"}}));
    write(a / "notes.txt", servers_doc({{"ignored1", "x"}}));
    write(a / "old.mcp.json.bak", servers_doc({{"ignored2", "x"}}));
    write(a / ".mcp.json", servers_doc({{"ignored3", "x"}}));  // no plugin name
    fs::create_directories(a / "nested");
    write(a / "nested/deep.mcp.json", servers_doc({{"ignored4", "x"}}));  // directly inside only
    write(b / "vs.mcp.json", servers_doc({{"v", "v"}}, "servers"));
    loc.plugin_dirs = {a, b, dir.path() / "no-such-folder"};
    user(servers_doc({{"gh", "user"}}));
    auto c = load({}, {{"given", "plugin:given", servers_doc({{"given", "g"}})}});
    // servers_doc writes names in sorted order: "dup" before "gh".
    EXPECT_EQ(names(c), (std::vector<std::string>{"given", "dup", "gh", "v"})) << problems_text(c);
    EXPECT_TRUE(c.problems.empty()) << problems_text(c);
    EXPECT_EQ(find(c, "given")->plugin_source, "given");
    EXPECT_EQ(find(c, "dup")->plugin_source, "zeta") << "files are read in name order; the later wins";
    EXPECT_EQ(find(c, "dup")->scope, Scope::Plugin);
    EXPECT_EQ(find(c, "dup")->origin, (a / "zeta.mcp.json").string());
    EXPECT_EQ(find(c, "v")->plugin_source, "vs");
    EXPECT_EQ(find(c, "gh")->scope, Scope::User) << "plugin is the lowest scope";
    EXPECT_TRUE(find(c, "gh")->plugin_source.empty());
}

TEST_F(LayeredConfigTest, EnterpriseIsExclusive) {
    enterprise(R"({"mcpServers":{"corp":{"url":"https://corp.example/mcp"}},"deniedMcpServers":[{"serverName":"e-deny"}]})");
    managed(R"({"mcpServers":{"m":{"command":"m"}},"allowedMcpServers":[{"serverName":"corp"}],"deniedMcpServers":["m-deny"]})");
    user(R"({"mcpServers":{"u":{"command":"u"}},"deniedMcpServers":["u-deny"],"disabledMcpServers":["corp"]})");
    local(R"({"mcpServers":{"corp":{"command":"override"}},"deniedMcpServers":["l-deny"]})");
    project(servers_doc({{"p", "p"}}));
    loc.plugin_dirs = {dir.path() / "plugins"};
    write(dir.path() / "plugins/x.mcp.json", servers_doc({{"x", "x"}}));
    auto c = load({{"api", servers_doc({{"d", "d"}})}}, {{"plug", "o", servers_doc({{"g", "g"}})}});
    EXPECT_TRUE(c.enterprise_exclusive);
    EXPECT_FALSE(c.policy.fail_closed);
    ASSERT_EQ(names(c), (std::vector<std::string>{"corp"})) << "nobody adds a server beside the administrator";
    EXPECT_EQ(c.servers[0].scope, Scope::Enterprise);
    EXPECT_EQ(c.servers[0].config.type, "http") << "the local override is ignored too";
    EXPECT_TRUE(c.servers[0].config.disabled) << "a user may still switch an enterprise server off";
    std::vector<std::string> denied;
    for (const auto& r : c.policy.denied) denied.push_back(r.name);
    EXPECT_EQ(denied, (std::vector<std::string>{"e-deny", "m-deny", "u-deny", "l-deny"}));
    ASSERT_TRUE(c.policy.allowed.has_value());
    ASSERT_EQ(c.policy.allowed->size(), 1u);
    EXPECT_EQ(c.policy.allowed->at(0).name, "corp");
}

TEST_F(LayeredConfigTest, UnderEnterpriseBrokenPersonalFilesAreStillReported) {
    enterprise(servers_doc({{"corp", "corp"}}));
    user("{");
    local(R"({"deniedMcpServers":"x"})");
    auto c = load();
    EXPECT_EQ(names(c), std::vector<std::string>{"corp"});
    ASSERT_EQ(c.problems.size(), 2u) << problems_text(c);
    EXPECT_EQ(c.problems[0].origin, loc.user_settings_file().string());
    EXPECT_EQ(c.problems[1].origin, loc.local_settings_file().string());
}

struct FailClosedCase {
    bool enterprise_file;
    const char* content;  // nullptr: make the file a folder (present but unreadable)
    const char* reason_part;
};

TEST_F(LayeredConfigTest, BrokenAdministratorFilesFailClosed) {
    const FailClosedCase cases[] = {
        {true, "{not json", "malformed JSON at offset 1"},
        {true, "[]", "must hold a JSON object"},
        {true, R"({"deniedMcpServers":[]})", "expected {\"mcpServers\""},
        {true, R"({"mcpServers":[]})", "mcpServers must be an object"},
        {true, R"({"mcpServers":{},"deniedMcpServers":[{"bogus":1}]})", "policy rule"},
        {true, nullptr, "cannot read"},
        {false, "{\"mcpServers\":{", "malformed JSON"},
        {false, "\"text\"", "must hold a JSON object"},
        {false, R"({"mcpServers":"x"})", "mcpServers must be an object"},
        {false, R"({"allowedMcpServers":{"serverName":"a"}})", "allowedMcpServers must be an array"},
        {false, R"({"deniedMcpServers":[{"serverUrl":""}]})", "serverUrl must be a non-empty string"},
        {false, R"({"allowManagedMcpServersOnly":"yes"})", "allowManagedMcpServersOnly must be true or false"},
        {false, R"({"pluginOnlyMcpServers":1})", "pluginOnlyMcpServers must be true or false"},
        {false, R"({"xaaIdp":"x"})", "xaaIdp must be an object"},
        {false, nullptr, "cannot read"},
    };
    user(servers_doc({{"u", "u"}}));
    project(servers_doc({{"p", "p"}}));
    for (const auto& c : cases) {
        fs::remove_all(loc.managed_dir);
        const fs::path file = c.enterprise_file ? loc.enterprise_file() : loc.managed_settings_file();
        if (c.content)
            write(file, c.content);
        else
            fs::create_directories(file);
        auto result = load({{"api", servers_doc({{"d", "d"}})}});
        SCOPED_TRACE(file.string() + ": " + (c.content ? c.content : "<folder>"));
        EXPECT_TRUE(result.policy.fail_closed);
        EXPECT_NE(result.policy.fail_closed_reason.find(file.string()), std::string::npos) << result.policy.fail_closed_reason;
        EXPECT_NE(result.policy.fail_closed_reason.find(c.reason_part), std::string::npos) << result.policy.fail_closed_reason;
        EXPECT_TRUE(result.servers.empty());
        EXPECT_EQ(result.enterprise_exclusive, c.enterprise_file);
    }
}

TEST_F(LayeredConfigTest, OtherMalformedFilesAreSkippedWithAProblem) {
    user("{oops");
    local(R"({"mcpServers":[1]})");
    project(servers_doc({{"root", "r"}}));
    project("[]", "sub");
    auto c = load({{"api-bad", "nope"}, {"api-shape", R"({"other":{}})"}, {"api-good", servers_doc({{"d", "d"}})}},
                  {{"plug", "plugin:plug", "{"}});
    EXPECT_FALSE(c.policy.fail_closed);
    EXPECT_EQ(names(c), (std::vector<std::string>{"root", "d"}));
    std::map<std::string, std::string> by_origin;
    for (const auto& p : c.problems) {
        EXPECT_TRUE(p.server.empty());
        by_origin[p.origin] = p.message;
    }
    EXPECT_EQ(by_origin.size(), 6u) << problems_text(c);
    EXPECT_EQ(c.problems.size(), 6u) << "each reported once: " << problems_text(c);
    EXPECT_NE(by_origin[loc.user_settings_file().string()].find("malformed JSON"), std::string::npos);
    EXPECT_NE(by_origin[loc.local_settings_file().string()].find("mcpServers must be an object"), std::string::npos);
    EXPECT_NE(by_origin[(loc.cwd / ".mcp.json").string()].find("must hold a JSON object"), std::string::npos);
    EXPECT_NE(by_origin["api-bad"].find("malformed JSON"), std::string::npos);
    EXPECT_NE(by_origin["api-shape"].find("expected {\"mcpServers\""), std::string::npos);
    EXPECT_NE(by_origin["plugin:plug"].find("malformed JSON"), std::string::npos);
    for (const auto& [origin, message] : by_origin) EXPECT_EQ(message.rfind(origin, 0), 0u) << "names the file: " << message;
}

TEST_F(LayeredConfigTest, OneBadEntryCostsOnlyItself) {
    user(R"({"mcpServers":{"keep":{"command":"user-keep"},"token":{"command":"user-token"}}})");
    project(R"({"mcpServers":{
        "novalue":{"args":["x"]},
        "token":{"command":"srv","env":{"TOKEN":"${SECRET}"}},
        "good":{"command":"${TOOL:-default-tool}","cwd":"${WORK_DIR:-/srv}"}}})");
    auto c = load();
    EXPECT_EQ(names(c), (std::vector<std::string>{"keep", "token", "good"}));
    EXPECT_EQ(command_of(*find(c, "token")), "user-token") << "the lower definition stays when the higher one is broken";
    EXPECT_EQ(command_of(*find(c, "good")), "default-tool") << "expanded before validation";
    EXPECT_EQ(mcph::parse_json(find(c, "good")->config.config_json)["cwd"].GetString(), std::string("/srv"))
        << "cwd is expanded (VS Code's ${workspaceFolder}/sub)";
    ASSERT_EQ(c.problems.size(), 2u) << problems_text(c);
    const std::string project_file = (loc.project_root / ".mcp.json").string();
    EXPECT_EQ(c.problems[0].origin, project_file);
    EXPECT_EQ(c.problems[0].server, "novalue");
    EXPECT_NE(c.problems[0].message.find("command or url"), std::string::npos) << c.problems[0].message;
    EXPECT_EQ(c.problems[1].server, "token");
    EXPECT_EQ(c.problems[1].message, "server 'token': env.TOKEN: ${SECRET} is not set");

    auto with_secret = load({}, {}, {{"SECRET", "s3"}, {"TOOL", "t"}});
    ASSERT_EQ(with_secret.problems.size(), 1u) << problems_text(with_secret);
    EXPECT_EQ(with_secret.problems[0].server, "novalue");
    EXPECT_EQ(find(with_secret, "token")->scope, Scope::Project);
    EXPECT_EQ(command_of(*find(with_secret, "good")), "t");
}

TEST_F(LayeredConfigTest, BadEntryInEnterpriseIsAProblemNotAFailure) {
    enterprise(R"({"mcpServers":{"bad":{"url":"${CORP_URL}"},"ok":{"command":"ok"}}})");
    auto c = load();
    EXPECT_FALSE(c.policy.fail_closed);
    EXPECT_EQ(names(c), (std::vector<std::string>{"ok"}));
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_EQ(c.problems[0].server, "bad");
    EXPECT_EQ(c.problems[0].origin, loc.enterprise_file().string());
}

struct AllowCase {
    const char* name;
    const char* managed;  // nullptr: no file
    const char* user;
    const char* local;
    std::optional<std::vector<std::string>> allowed;
};

TEST_F(LayeredConfigTest, AllowListsAndAllowManagedMcpServersOnly) {
    using Names = std::vector<std::string>;
    const AllowCase cases[] = {
        {"nothing defined: no allow list", nullptr, "{}", "{}", std::nullopt},
        {"user only", nullptr, R"({"allowedMcpServers":["u"]})", "{}", Names{"u"}},
        {"empty list is defined", nullptr, R"({"allowedMcpServers":[]})", "{}", Names{}},
        {"union of every source", R"({"allowedMcpServers":["m"]})", R"({"allowedMcpServers":["u"]})",
         R"({"allowedMcpServers":["l"]})", Names{"m", "u", "l"}},
        {"managed only: users cannot widen", R"({"allowManagedMcpServersOnly":true,"allowedMcpServers":["m"]})",
         R"({"allowedMcpServers":["u"]})", R"({"allowedMcpServers":["l"]})", Names{"m"}},
        {"managed only without a managed list: nothing", R"({"allowManagedMcpServersOnly":true})",
         R"({"allowedMcpServers":["u"]})", "{}", Names{}},
        {"flag false behaves as absent", R"({"allowManagedMcpServersOnly":false})", R"({"allowedMcpServers":["u"]})", "{}",
         Names{"u"}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        fs::remove_all(loc.managed_dir);
        if (c.managed) managed(c.managed);
        user(c.user);
        local(c.local);
        auto result = load();
        EXPECT_TRUE(result.problems.empty()) << problems_text(result);
        ASSERT_EQ(result.policy.allowed.has_value(), c.allowed.has_value());
        if (!c.allowed) continue;
        Names got;
        for (const auto& r : *result.policy.allowed) got.push_back(r.name);
        EXPECT_EQ(got, *c.allowed);
    }
}

TEST_F(LayeredConfigTest, DenyListsAreTheUnionAndKeepTheirOrigin) {
    managed(R"({"deniedMcpServers":[{"serverUrl":"https://*.bad.example/*"}],"pluginOnlyMcpServers":true})");
    user(R"({"deniedMcpServers":[{"serverCommand":["npx","evil"]}]})");
    local(R"({"deniedMcpServers":["l"]})");
    project(R"({"mcpServers":{},"deniedMcpServers":["from-repo"],"allowedMcpServers":["from-repo"]})");
    auto c = load();
    ASSERT_EQ(c.policy.denied.size(), 3u) << "a repository's .mcp.json carries no policy";
    EXPECT_EQ(c.policy.denied[0].kind, mcph::governance::PolicyRule::Kind::Url);
    EXPECT_EQ(c.policy.denied[0].origin, loc.managed_settings_file().string());
    EXPECT_EQ(c.policy.denied[1].kind, mcph::governance::PolicyRule::Kind::Command);
    EXPECT_EQ(c.policy.denied[1].origin, loc.user_settings_file().string());
    EXPECT_EQ(c.policy.denied[2].name, "l");
    EXPECT_FALSE(c.policy.allowed.has_value());
    EXPECT_TRUE(c.policy.plugin_only_agents);
}

TEST_F(LayeredConfigTest, BadPersonalListIsIgnoredWithAProblem) {
    user(R"({"mcpServers":{"u":{"command":"u"}},"allowedMcpServers":[{"serverName":""}],
             "deniedMcpServers":["ok-deny"],"disabledMcpServers":"u"})");
    local(R"({"deniedMcpServers":[42],"enabledMcpServers":[1]})");
    auto c = load();
    EXPECT_FALSE(c.policy.fail_closed);
    EXPECT_FALSE(c.policy.allowed.has_value()) << "the broken allow list is ignored, not an empty list";
    ASSERT_EQ(c.policy.denied.size(), 1u);
    EXPECT_EQ(c.policy.denied[0].name, "ok-deny");
    EXPECT_EQ(names(c), (std::vector<std::string>{"u"}));
    EXPECT_FALSE(c.servers[0].config.disabled);
    ASSERT_EQ(c.problems.size(), 4u) << problems_text(c);
    for (const auto& p : c.problems) EXPECT_NE(p.message.find("the list is ignored"), std::string::npos) << p.message;
    EXPECT_EQ(c.problems[0].origin, loc.user_settings_file().string());
    EXPECT_EQ(c.problems[3].origin, loc.local_settings_file().string());
}

TEST_F(LayeredConfigTest, DisabledAndEnabledLists) {
    project(R"({"mcpServers":{
        "a":{"command":"a"},"b":{"command":"b"},"c":{"command":"c"},"d":{"command":"d"},
        "e":{"command":"e","disabled":true},"f":{"command":"f"},"g":{"command":"g","disabled":true}}})");
    user(R"({"disabledMcpServers":["a","b","c","nonexistent"],"enabledMcpServers":["c","e"]})");
    local(R"({"disabledMcpServers":["d"],"enabledMcpServers":["b"]})");
    auto c = load();
    ASSERT_TRUE(c.problems.empty()) << problems_text(c);
    const std::map<std::string, bool> expected{
        {"a", true},   // user disables
        {"b", false},  // local re-enables what user disabled
        {"c", false},  // enabled beats disabled within one file
        {"d", true},   // local disables
        {"e", false},  // an explicit enable overrides the definition's own flag
        {"f", false},  // not mentioned
        {"g", true},   // the definition's own flag
    };
    for (const auto& [name, disabled] : expected) EXPECT_EQ(find(c, name)->config.disabled, disabled) << name;
    EXPECT_EQ(find(c, "nonexistent"), nullptr);
}

TEST_F(LayeredConfigTest, LocalDisablesWinOverUserEnables) {
    user(R"({"mcpServers":{"s":{"command":"s"}},"enabledMcpServers":["s"]})");
    local(R"({"disabledMcpServers":["s"]})");
    EXPECT_TRUE(load().servers.at(0).config.disabled);
}

TEST_F(LayeredConfigTest, SharedXaaIdpReachesEachXaaServer) {
    user(R"({"xaaIdp":{"issuer":"https://idp.example"},
             "mcpServers":{"x":{"url":"https://x.example/mcp","oauth":{"xaa":true}}}})");
    auto c = load();
    ASSERT_EQ(c.servers.size(), 1u) << problems_text(c);
    mcph::Json auth = mcph::parse_json(c.servers[0].config.auth_config_json);
    ASSERT_TRUE(auth.HasMember("idp"));
    EXPECT_STREQ(auth["idp"]["issuer"].GetString(), "https://idp.example");
}

TEST(LoadDynamicConfig, OnlyTheGivenDocuments) {
    auto c = load_dynamic_config({{"a", servers_doc({{"x", "one"}})}, {"b", servers_doc({{"x", "two"}, {"y", "${Y:-why}"}})},
                                  {"c", "{"}},
                                 vars({}));
    ASSERT_EQ(c.servers.size(), 2u);
    EXPECT_EQ(command_of(c.servers[0]), "two");
    EXPECT_EQ(c.servers[0].scope, Scope::Dynamic);
    EXPECT_EQ(command_of(c.servers[1]), "why");
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_EQ(c.problems[0].origin, "c");
    EXPECT_FALSE(c.policy.allowed.has_value());
}

// ---- trust by location (issue #9) ----------------------------------------------------------------

// <repo>/.mcph/settings.local.json is inside the work tree: its servers are project servers, its
// lists count for nothing, and a problem says how to migrate it.
TEST_F(LayeredConfigTest, InRepositoryLocalSettingsHaveProjectTrustOnly) {
    user(R"({"mcpServers":{"off":{"command":"/bin/off"}},"disabledMcpServers":["off"]})");
    write(loc.legacy_local_settings_file(),
          R"({"mcpServers":{"runner":{"command":"/bin/sh"}},"allowedMcpServers":[{"serverName":"x"}],)"
          R"("deniedMcpServers":[{"serverName":"off"}],"enabledMcpServers":["off"]})");
    const auto c = load();
    const ConfiguredServer* runner = find(c, "runner");
    ASSERT_TRUE(runner);
    EXPECT_EQ(runner->scope, Scope::Project);
    EXPECT_EQ(runner->origin, loc.legacy_local_settings_file().string());
    EXPECT_EQ(runner->project_root, loc.project_root.string());
    EXPECT_TRUE(find(c, "off")->config.disabled) << "enabledMcpServers of a repository file must not count";
    EXPECT_FALSE(c.policy.allowed.has_value()) << "nor its allow list";
    EXPECT_TRUE(c.policy.denied.empty()) << "nor any of its lists";
    EXPECT_EQ(c.legacy_local_file, loc.legacy_local_settings_file());
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_NE(c.problems[0].message.find("mcph migrate-local"), std::string::npos) << c.problems[0].message;
    EXPECT_NE(c.problems[0].message.find(loc.local_settings_file().string()), std::string::npos) << c.problems[0].message;
}

TEST_F(LayeredConfigTest, LocalSettingsInTheConfigHomeAreTheUsers) {
    user(R"({"mcpServers":{"off":{"command":"/bin/off"}},"disabledMcpServers":["off"]})");
    local(R"({"mcpServers":{"mine":{"command":"/bin/mine"}},"enabledMcpServers":["off"]})");
    const auto c = load();
    ASSERT_TRUE(find(c, "mine"));
    EXPECT_EQ(find(c, "mine")->scope, Scope::Local);
    EXPECT_EQ(find(c, "mine")->project_root, loc.project_root.string()) << "local approvals are per project";
    EXPECT_FALSE(find(c, "off")->config.disabled);
    EXPECT_TRUE(c.problems.empty());
}

TEST_F(LayeredConfigTest, ReplacedDefinitionsAreRecordedAsShadows) {
    user(servers_doc({{"github", "/bin/user-github"}}));
    project(servers_doc({{"github", "/bin/evil"}}));
    project(servers_doc({{"github", "/bin/evil-sub"}}), "sub");
    const auto c = load();
    const ConfiguredServer* gh = find(c, "github");
    ASSERT_TRUE(gh);
    ASSERT_EQ(gh->shadows.size(), 2u);
    EXPECT_EQ(gh->shadows[0].scope, Scope::User);
    EXPECT_EQ(gh->shadows[0].origin, loc.user_settings_file().string());
    EXPECT_EQ(gh->shadows[1].scope, Scope::Project);
}

// The approval hash covers the entry as written: ${VAR} unexpanded.
TEST_F(LayeredConfigTest, WrittenDefinitionIsKeptBeforeExpansion) {
    project(R"({"mcpServers":{"s":{"command":"/bin/s","env":{"TOKEN":"${TOKEN}"}}}})");
    const auto one = load({}, {}, {{"TOKEN", "one"}});
    const auto two = load({}, {}, {{"TOKEN", "two"}});
    ASSERT_TRUE(find(one, "s") && find(two, "s"));
    EXPECT_EQ(find(one, "s")->written_json, find(two, "s")->written_json);
    EXPECT_NE(find(one, "s")->written_json.find("${TOKEN}"), std::string::npos) << find(one, "s")->written_json;
    EXPECT_NE(find(one, "s")->config.config_json, find(two, "s")->config.config_json);
}

TEST_F(LayeredConfigTest, FilesOthersCanWriteAndSymlinksOutOfTheProjectAreRefused) {
    project(servers_doc({{"p", "/bin/p"}}));
    ::chmod((loc.project_root / ".mcp.json").c_str(), 0666);
    write(dir.path() / "outside.json", servers_doc({{"o", "/bin/o"}}));
    fs::create_directories(loc.cwd);
    fs::create_symlink(dir.path() / "outside.json", loc.cwd / ".mcp.json");
    user(servers_doc({{"u", "/bin/u"}}));
    ::chmod(loc.user_settings_file().c_str(), 0620);
    const auto c = load();
    EXPECT_TRUE(c.servers.empty()) << names(c).size();
    ASSERT_EQ(c.problems.size(), 3u);
    std::string all;
    for (const auto& p : c.problems) all += p.origin + ": " + p.message + "\n";
    EXPECT_NE(all.find("other users can change it"), std::string::npos) << all;
    EXPECT_NE(all.find("symlink leading out of the project"), std::string::npos) << all;
    EXPECT_NE(all.find(loc.user_settings_file().string()), std::string::npos) << all;
}

TEST_F(LayeredConfigTest, AConfigHomeOthersCanWriteIsNotRead) {
    user(servers_doc({{"u", "/bin/u"}}));
    ::chmod(loc.config_home.c_str(), 0777);
    const auto c = load();
    EXPECT_FALSE(find(c, "u"));
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_NE(c.problems[0].message.find("is not used"), std::string::npos) << c.problems[0].message;
    ::chmod(loc.config_home.c_str(), 0700);
}

// ---- other clients' files: JSONC, VS Code inputs, ${workspaceFolder} ------------------------

const char* kVsCodeDoc = R"({
  // VS Code's shape, with inputs
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "API key", "password": true},
    {"type": "promptString", "id": "other", "description": "Unused"},
    {"type": "command", "id": "cmd"},
    {"description": "no id"},
  ],
  "servers": {
    "needs-key": {"command": "x", "env": {"KEY": "${input:api-key}"}},
    "plain": {"command": "${workspaceFolder}/bin/plain",},
    "unknown-input": {"command": "y", "args": ["${input:nosuch}"]},
    "bad-type-input": {"command": "z", "args": ["${input:cmd}"]},
  },
})";

TEST_F(LayeredConfigTest, InputsAnsweredThroughTheResolverAreAskedOncePerFile) {
    project(kVsCodeDoc);
    project(R"({"servers":{"also-key":{"command":"w","args":["${input:api-key}"],"env":{"K":"${input:api-key}"}}},
                "inputs":[{"type":"promptString","id":"api-key","description":"Sub key"}]})",
            "sub");
    std::vector<InputQuestion> asked;
    const InputResolver resolver = [&](const InputQuestion& q) -> std::optional<std::string> {
        asked.push_back(q);
        return "answer-for-" + q.origin.substr(q.origin.size() - 14);
    };
    LayeredConfig c = load_layered_config(loc, {}, {}, vars({}), resolver);
    const ConfiguredServer* s = find(c, "needs-key");
    ASSERT_NE(s, nullptr) << problems_text(c);
    EXPECT_NE(mcph::parse_json(s->config.config_json)["env"]["KEY"].GetString(), std::string("${input:api-key}"));
    ASSERT_EQ(asked.size(), 2u) << "one question per file and input, however many references";
    EXPECT_EQ(asked[0].input.id, "api-key");
    EXPECT_TRUE(asked[0].input.password);
    EXPECT_EQ(asked[0].input.description, "API key");
    EXPECT_EQ(asked[0].origin, (loc.project_root / ".mcp.json").string());
    EXPECT_EQ(asked[1].origin, (loc.project_root / "sub/.mcp.json").string()) << "answers are per file";
    // The bad input entries cost only themselves; the servers using them are problems naming them.
    const ConfiguredServer* plain = find(c, "plain");
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(command_of(*plain), (loc.project_root / "bin/plain").string()) << "${workspaceFolder} is the project root";
    EXPECT_EQ(find(c, "unknown-input"), nullptr);
    EXPECT_EQ(find(c, "bad-type-input"), nullptr);
    const std::string text = problems_text(c);
    EXPECT_NE(text.find("unknown-input | server 'unknown-input': args[0]: ${input:nosuch}: no input with that id"), std::string::npos) << text;
    EXPECT_NE(text.find("inputs[2] has type \"command\""), std::string::npos) << text;
    EXPECT_NE(text.find("inputs[3] needs a non-empty string \"id\""), std::string::npos) << text;
}

TEST_F(LayeredConfigTest, AnUnansweredInputCostsOnlyTheServersUsingIt) {
    project(kVsCodeDoc);
    for (const bool with_resolver : {false, true}) {
        SCOPED_TRACE(with_resolver);
        const InputResolver declines = [](const InputQuestion&) -> std::optional<std::string> { return std::nullopt; };
        LayeredConfig c = load_layered_config(loc, {}, {}, vars({}), with_resolver ? declines : InputResolver{});
        EXPECT_EQ(find(c, "needs-key"), nullptr);
        EXPECT_NE(find(c, "plain"), nullptr) << "the file's other servers load";
        bool named = false;
        for (const auto& p : c.problems)
            if (p.server == "needs-key")
                named = p.message.find("input 'api-key' (API key) has no answer") != std::string::npos;
        EXPECT_TRUE(named) << problems_text(c);
    }
}

TEST_F(LayeredConfigTest, DynamicDocumentsAreJsoncWithInputsToo) {
    const InputResolver resolver = [](const InputQuestion& q) -> std::optional<std::string> { return "v-" + q.input.id; };
    LayeredConfig c = load_dynamic_config(
        {{"--mcp-config x", R"({"inputs":[{"id":"t"}], /* c */ "servers":{"a":{"command":"${input:t}",},},})"}}, vars({}), resolver);
    ASSERT_EQ(c.servers.size(), 1u) << problems_text(c);
    EXPECT_EQ(command_of(c.servers[0]), "v-t");
}

TEST_F(LayeredConfigTest, MalformedJsoncNamesLineAndColumn) {
    project("{\n  // ok\n  \"mcpServers\": {\n    \"a\": {\"command\": x}\n  }\n}");
    LayeredConfig c = load();
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_NE(c.problems[0].message.find("(line 4, column 22)"), std::string::npos) << c.problems[0].message;
}

TEST_F(LayeredConfigTest, JsoncFilesKeepTheSizeBound) {
    // Valid JSONC all the way: a comment that makes the file one byte over the bound.
    std::string text = "{\"mcpServers\":{\"a\":{\"command\":\"x\",},}} // ";
    text.append(kMaxConfigFileBytes + 1 - text.size(), 'c');
    project(text);
    LayeredConfig c = load();
    EXPECT_TRUE(c.servers.empty());
    ASSERT_EQ(c.problems.size(), 1u) << problems_text(c);
    EXPECT_NE(c.problems[0].message.find("larger than the 16 MiB"), std::string::npos) << c.problems[0].message;
}

}  // namespace
