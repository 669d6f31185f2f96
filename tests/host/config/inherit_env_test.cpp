// "inheritEnv": the shape checked per server (a bad value costs only its server, naming the key and
// the entry), refused for remote servers, and the default of the user's own settings — never of a
// repository's file — given to stdio servers that do not set it, in the config the plugin receives
// and in what an approval hashes.
#include "config/inherit_env.hpp"
#include "config/layered_config.hpp"
#include "config/server_config.hpp"
#include "governance/server_signature.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include "test_helpers.hpp"
#include "test_scratch.hpp"

#include <fstream>

namespace {

namespace fs = std::filesystem;
using namespace mcph::config;

// The problem parse_server_config reports for `entry` (as JSON), or "" when it is accepted.
std::string inherit_env_refusal(const std::string& entry) {
    try {
        parse_server_config("srv", mcph::parse_json(entry));
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    return "";
}

TEST(InheritEnvConfig, TheThreeShapesAreAcceptedAndKept) {
    for (const char* value : {"true", "false", R"(["HTTPS_PROXY","no_proxy","LC_*"])", "[]"}) {
        const ServerConfig c = parse_server_config("srv", mcph::parse_json(std::string(R"({"command":"x","inheritEnv":)") + value + "}"));
        EXPECT_EQ(c.inherit_env_json, mcph::to_json(mcph::parse_json(value)));
        EXPECT_EQ(mcph::to_json(mcph::parse_json(c.config_json)["inheritEnv"]), c.inherit_env_json) << "the plugin must receive it";
        EXPECT_TRUE(c.inherit_env_from.empty());
    }
    EXPECT_TRUE(parse_server_config("srv", mcph::parse_json(R"({"command":"x"})")).inherit_env_json.empty());
}

TEST(InheritEnvConfig, BadShapesAreRefusedNamingTheServerTheKeyAndTheEntry) {
    struct Case {
        const char* value;
        const char* expected;
    };
    for (const Case& c : {Case{R"("yes")", "server 'srv': inheritEnv must be true, false or an array of variable names"},
                          Case{"1", "inheritEnv must be true, false or an array"},
                          Case{"{}", "inheritEnv must be true, false or an array"},
                          Case{"[1]", "inheritEnv entry 0 1 is not a string"},
                          Case{R"(["OK","A=B"])", "inheritEnv entry 1 'A=B' is not a variable name"},
                          Case{R"([""])", "inheritEnv entry 0 '' is not a variable name"},
                          Case{R"(["*"])", "inheritEnv entry 0 '*' is not a variable name"},
                          Case{R"(["1A"])", "entry 0 '1A'"},
                          Case{R"(["A B"])", "entry 0 'A B'"},
                          Case{R"(["A*B"])", "entry 0 'A*B'"}}) {
        const std::string message = inherit_env_refusal(std::string(R"({"command":"x","inheritEnv":)") + c.value + "}");
        EXPECT_NE(message.find(c.expected), std::string::npos) << c.value << " -> " << message;
    }
}

TEST(InheritEnvConfig, ListsAreBoundedInCountAndNameLength) {
    std::string many = "[";
    for (std::size_t i = 0; i <= kMaxInheritEnvNames; ++i) many += (i ? ",\"V" : "\"V") + std::to_string(i) + "\"";
    many += "]";
    EXPECT_NE(inherit_env_refusal(R"({"command":"x","inheritEnv":)" + many + "}").find("257 names, more than the 256 allowed"),
              std::string::npos);
    const std::string longest(kMaxInheritEnvNameBytes, 'A');
    EXPECT_EQ(inherit_env_refusal(R"({"command":"x","inheritEnv":[")" + longest + "\"]}"), "");
    const std::string refused = inherit_env_refusal(R"({"command":"x","inheritEnv":[")" + longest + "A\"]}");
    EXPECT_NE(refused.find("at most 256 bytes"), std::string::npos) << refused;
    EXPECT_LT(refused.size(), 2 * kMaxInheritEnvNameBytes + 200) << "the message must not echo an unbounded name";
}

TEST(InheritEnvConfig, ARemoteServerRefusesItSayingWhy) {
    for (const char* entry : {R"({"url":"https://x.example/mcp","inheritEnv":true})",
                              R"({"type":"sse","url":"https://x.example/sse","inheritEnv":["A"]})",
                              R"({"type":"ws","url":"wss://x.example/ws","inheritEnv":false})"}) {
        const std::string message = inherit_env_refusal(entry);
        EXPECT_NE(message.find("inheritEnv applies only to stdio servers"), std::string::npos) << entry << " -> " << message;
    }
}

// A machine with a config home and a repository, as the layered loader sees it.
class InheritEnvLayers : public ::testing::Test {
protected:
    InheritEnvLayers() {
        loc.managed_dir = dir.path() / "managed";
        loc.config_home = dir.path() / "home";
        loc.project_root = dir.path() / "repo";
        loc.cwd = loc.project_root;
        fs::create_directories(loc.project_root / ".git");
    }
    void write(const fs::path& file, const std::string& content) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << content;
    }
    LayeredConfig load() { return load_layered_config(loc, {}, {}, host_test::vars({})); }
    static const ConfiguredServer& named(const LayeredConfig& c, const std::string& name) {
        for (const auto& s : c.servers)
            if (s.config.name == name) return s;
        ADD_FAILURE() << "no server " << name;
        static const ConfiguredServer none;
        return none;
    }
    static std::string sent(const ConfiguredServer& s) {  // what the plugin receives, "" when absent
        const mcph::Json doc = mcph::parse_json(s.config.config_json);
        return doc.HasMember("inheritEnv") ? mcph::to_json(doc["inheritEnv"]) : "";
    }
    static std::string problems(const LayeredConfig& c) {
        std::string out;
        for (const auto& p : c.problems) out += p.origin + " [" + p.server + "] " + p.message + "\n";
        return out;
    }

    mcph::test::ScratchDir dir;
    ConfigLocations loc;
};

TEST_F(InheritEnvLayers, TheUserDefaultReachesStdioServersWithoutTheirOwnAndTheLocalOneWins) {
    write(loc.user_settings_file(), R"({"inheritEnv":["HTTPS_PROXY"],"mcpServers":{)"
                                    R"("plain":{"command":"/bin/a"},"own":{"command":"/bin/b","inheritEnv":false},)"
                                    R"("remote":{"url":"https://x.example/mcp"}}})");
    LayeredConfig c = load();
    EXPECT_EQ(c.problems.size(), 0u) << problems(c);
    EXPECT_EQ(sent(named(c, "plain")), R"(["HTTPS_PROXY"])");
    EXPECT_EQ(named(c, "plain").config.inherit_env_from, loc.user_settings_file().string());
    EXPECT_EQ(sent(named(c, "own")), "false") << "the server's own value wins over the default";
    EXPECT_TRUE(named(c, "own").config.inherit_env_from.empty());
    EXPECT_EQ(sent(named(c, "remote")), "") << "a remote server gets no inheritEnv";

    write(loc.local_settings_file(), R"({"inheritEnv":true})");
    c = load();
    EXPECT_EQ(sent(named(c, "plain")), "true");
    EXPECT_EQ(named(c, "plain").config.inherit_env_from, loc.local_settings_file().string());
}

TEST_F(InheritEnvLayers, ABadDefaultIsAProblemOfItsFileAndIsNotUsed) {
    write(loc.user_settings_file(), R"({"inheritEnv":["A=B"],"mcpServers":{"plain":{"command":"/bin/a"}}})");
    const LayeredConfig c = load();
    ASSERT_EQ(c.problems.size(), 1u) << problems(c);
    EXPECT_NE(c.problems[0].message.find("inheritEnv entry 0 'A=B' is not a variable name"), std::string::npos) << problems(c);
    EXPECT_NE(c.problems[0].message.find("the default is not used"), std::string::npos) << problems(c);
    EXPECT_EQ(sent(named(c, "plain")), "") << "the server loads, with the plugin's default";
}

TEST_F(InheritEnvLayers, ABadServerValueCostsOnlyThatServer) {
    write(loc.user_settings_file(), R"({"mcpServers":{"bad":{"command":"/bin/a","inheritEnv":"yes"},"good":{"command":"/bin/b"}}})");
    const LayeredConfig c = load();
    ASSERT_EQ(c.servers.size(), 1u) << problems(c);
    EXPECT_EQ(c.servers[0].config.name, "good");
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_EQ(c.problems[0].server, "bad");
    EXPECT_NE(c.problems[0].message.find("inheritEnv must be true, false"), std::string::npos) << problems(c);
}

TEST_F(InheritEnvLayers, TheManagedDefaultWinsOverTheUsersAndTheLocalOne) {
    write(loc.user_settings_file(), R"({"inheritEnv":true,"mcpServers":{"plain":{"command":"/bin/a"},"own":{"command":"/bin/b","inheritEnv":true}}})");
    write(loc.local_settings_file(), R"({"inheritEnv":["LOCAL_*"]})");
    write(loc.managed_settings_file(), R"({"inheritEnv":["HTTPS_PROXY"]})");
    LayeredConfig c = load();
    EXPECT_EQ(c.problems.size(), 0u) << problems(c);
    EXPECT_FALSE(c.policy.fail_closed) << c.policy.fail_closed_reason;
    EXPECT_EQ(sent(named(c, "plain")), R"(["HTTPS_PROXY"])");
    EXPECT_EQ(named(c, "plain").config.inherit_env_from, loc.managed_settings_file().string());
    EXPECT_EQ(sent(named(c, "own")), "true") << "a server's own value is still its own";
    // A managed file without the key leaves the personal defaults in place.
    write(loc.managed_settings_file(), R"({"deniedMcpServers":[]})");
    c = load();
    EXPECT_EQ(sent(named(c, "plain")), R"(["LOCAL_*"])");
}

TEST_F(InheritEnvLayers, ABadManagedDefaultFailsClosedLikeTheAdministratorsOtherSettings) {
    write(loc.user_settings_file(), R"({"mcpServers":{"plain":{"command":"/bin/a"}}})");
    write(loc.managed_settings_file(), R"({"inheritEnv":null})");
    const LayeredConfig c = load();
    EXPECT_TRUE(c.policy.fail_closed);
    EXPECT_NE(c.policy.fail_closed_reason.find(loc.managed_settings_file().string() + ": inheritEnv must be true, false"),
              std::string::npos)
        << c.policy.fail_closed_reason;
    EXPECT_TRUE(c.servers.empty());
}

TEST_F(InheritEnvLayers, ARepositoryCannotSetTheDefault) {
    write(loc.project_root / ".mcp.json", R"({"inheritEnv":true,"mcpServers":{"proj":{"command":"/bin/p"}}})");
    write(loc.legacy_local_settings_file(), R"({"inheritEnv":true,"mcpServers":{"legacy":{"command":"/bin/l"}}})");
    write(loc.user_settings_file(), R"({"mcpServers":{"mine":{"command":"/bin/m"}}})");
    const LayeredConfig c = load();
    for (const char* name : {"proj", "legacy", "mine"}) EXPECT_EQ(sent(named(c, name)), "") << name << " got a repository's default";
    const std::string all = problems(c);
    for (const fs::path& file : {loc.project_root / ".mcp.json", loc.legacy_local_settings_file()})
        EXPECT_NE(all.find(file.string() + ": \"inheritEnv\" at the top of this file is ignored"), std::string::npos) << all;
    EXPECT_NE(all.find("never from a repository's file"), std::string::npos) << all;
}

// The approval of a project server hashes what it receives: its own inheritEnv (part of the entry)
// and the default given to it, which is absent from the written form when no default applies, so
// approvals made before the key existed stay valid.
TEST_F(InheritEnvLayers, WhatAnApprovalHashesChangesWithTheInheritEnvTheServerGets) {
    const fs::path mcp_json = loc.project_root / ".mcp.json";
    auto fingerprint = [&] { return mcph::governance::written_fingerprint(named(load(), "proj")); };
    write(mcp_json, R"({"mcpServers":{"proj":{"command":"/bin/p"}}})");
    const std::string plain = fingerprint();
    write(loc.user_settings_file(), R"({"mcpServers":{}})");
    EXPECT_EQ(fingerprint(), plain) << "settings without a default must not revoke approvals";
    write(loc.user_settings_file(), R"({"inheritEnv":true})");
    const std::string with_default = fingerprint();
    EXPECT_NE(with_default, plain) << "turning the default on must ask again";
    write(loc.user_settings_file(), R"({"inheritEnv":["A"]})");
    EXPECT_NE(fingerprint(), with_default);
    EXPECT_NE(fingerprint(), plain);
    write(loc.user_settings_file(), "{}");
    EXPECT_EQ(fingerprint(), plain);
    write(mcp_json, R"({"mcpServers":{"proj":{"command":"/bin/p","inheritEnv":true}}})");
    EXPECT_NE(fingerprint(), plain) << "the server's own inheritEnv is part of its entry";
}

}  // namespace
