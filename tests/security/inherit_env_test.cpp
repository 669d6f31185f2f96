// Issue #14, "inheritEnv": what a stdio server receives from the user's environment, through the real
// `mcph` binary and a real child (fake-mcp-server --mode env answers with its whole environment).
//  - by default a secret of the host's environment never reaches a server; `true` hands over the
//    whole environment (Claude Code's behaviour), a list only its names; the definition's env wins;
//    an exported bash function never passes;
//  - a bad value costs only its server, with a problem naming the key;
//  - a repository cannot turn the default on, and changing what an approved project server inherits
//    (its own key, or the user's default that reaches it) asks for the approval again.
#include "trust_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

// The host's environment every test runs mcph with: a secret, a proxy, a locale, an exported bash
// function, and a variable the definition's env overrides.
const std::map<std::string, std::string>& host_environment() {
    static const std::map<std::string, std::string> env{{"MCPH_TEST_SECRET", "hunter2"},
                                                        {"MCPH_TEST_PROXY", "http://proxy.example:3128"},
                                                        {"LC_MCPH_TEST", "fr_FR.UTF-8"},
                                                        {"MCPH_TEST_FUNC", "() { echo pwned; }"},
                                                        {"MCPH_TEST_OVER", "inherited"}};
    return env;
}

// A fake server answering with its environment; `inherit` is the entry's "inheritEnv" (JSON), or
// empty for none; env MCPH_TEST_OVER=configured.
std::string env_server(const std::string& inherit) {
    std::string entry = fake_server_config_text({"--mode", "env"});
    entry.insert(entry.size() - 1, ",\"env\":{\"MCPH_TEST_OVER\":\"configured\"}" + (inherit.empty() ? "" : ",\"inheritEnv\":" + inherit));
    return entry;
}

class InheritEnvCli : public ::testing::Test {
protected:
    // The environment the child of `server` received, as a JSON object (empty when the call failed).
    Json child_env(const std::string& server, const fs::path& cwd = {}) {
        const CliResult r = t.mcph({"call", server + "/work", "{}", "--json"}, cwd, host_environment());
        EXPECT_EQ(r.exit_code, 0) << r.describe();
        t.last = r.describe();
        const Json doc = parse_or_fail(r.out, "`mcph call --json`");
        const JsonValue* content = member_at(doc, "content");
        if (!content || !content->IsArray() || content->Empty()) return Json(rapidjson::kObjectType);
        return parse_or_fail(string_at((*content)[0], "text"), "the environment the server reports");
    }
    static bool has(const Json& env, const char* name) { return env.IsObject() && env.HasMember(name); }
    void user_servers(const std::string& servers, const std::string& top = "") {
        write_file(t.config_home / "settings.json", "{" + top + "\"mcpServers\":{" + servers + "}}");
    }
    TrustTree t;
};

TEST_F(InheritEnvCli, ByDefaultAHostSecretNeverReachesTheServer) {
    user_servers("\"plain\":" + env_server("") + ",\"off\":" + env_server("false"));
    for (const char* server : {"plain", "off"}) {
        const Json env = child_env(server);
        EXPECT_FALSE(has(env, "MCPH_TEST_SECRET")) << server << " received the host's secret\n" << t.last;
        EXPECT_FALSE(has(env, "MCPH_TEST_PROXY")) << server << "\n" << t.last;
        EXPECT_TRUE(has(env, "PATH")) << "the allow-list is kept\n" << t.last;
        EXPECT_EQ(string_at(env, "MCPH_TEST_OVER"), "configured") << t.last;
    }
}

TEST_F(InheritEnvCli, TrueHandsOverTheWholeEnvironmentExceptExportedFunctions) {
    user_servers("\"all\":" + env_server("true"));
    const Json env = child_env("all");
    EXPECT_EQ(string_at(env, "MCPH_TEST_SECRET"), "hunter2") << t.last;
    EXPECT_EQ(string_at(env, "MCPH_TEST_PROXY"), "http://proxy.example:3128") << t.last;
    EXPECT_EQ(string_at(env, "MCPH_TEST_OVER"), "configured") << "the definition's env must win\n" << t.last;
    EXPECT_FALSE(has(env, "MCPH_TEST_FUNC")) << "an exported bash function passed\n" << t.last;
    EXPECT_FALSE(has(env, "MCPH_CHILD_NOFILE_SOFT")) << "the CLI's own note passed\n" << t.last;
}

TEST_F(InheritEnvCli, AListPassesOnlyItsNamesAndPrefixes) {
    user_servers("\"some\":" + env_server(R"(["MCPH_TEST_PROXY","LC_*","MCPH_TEST_FUNC","MCPH_TEST_OVER"])"));
    const Json env = child_env("some");
    EXPECT_EQ(string_at(env, "MCPH_TEST_PROXY"), "http://proxy.example:3128") << t.last;
    EXPECT_EQ(string_at(env, "LC_MCPH_TEST"), "fr_FR.UTF-8") << t.last;
    EXPECT_FALSE(has(env, "MCPH_TEST_SECRET")) << "a name not listed passed\n" << t.last;
    EXPECT_FALSE(has(env, "MCPH_TEST_FUNC")) << "a listed exported function passed\n" << t.last;
    EXPECT_EQ(string_at(env, "MCPH_TEST_OVER"), "configured") << t.last;
    EXPECT_TRUE(has(env, "PATH")) << t.last;
}

TEST_F(InheritEnvCli, TheUserDefaultReachesServersAndTheServersOwnValueWins) {
    user_servers("\"plain\":" + env_server("") + ",\"own\":" + env_server("false"), R"("inheritEnv":["MCPH_TEST_SECRET"],)");
    EXPECT_EQ(string_at(child_env("plain"), "MCPH_TEST_SECRET"), "hunter2") << t.last;
    EXPECT_FALSE(has(child_env("own"), "MCPH_TEST_SECRET")) << t.last;
    const CliResult get = t.mcph({"get", "plain"});
    EXPECT_TRUE(contains(get.out, "inheritEnv: [\"MCPH_TEST_SECRET\"] (the default of " + (t.config_home / "settings.json").string()))
        << get.describe();
}

TEST_F(InheritEnvCli, BadShapesAreRefusedNamingTheKeyAndCostOnlyTheirServer) {
    user_servers("\"yes\":" + env_server("\"yes\"") + ",\"number\":" + env_server("[1]") + ",\"equals\":" +
                 env_server(R"(["A=B"])") + ",\"good\":" + env_server(""));
    const Json doc = t.status({}, host_environment());
    const std::string problems = problems_about(doc, "");
    EXPECT_TRUE(contains(problems, "server 'yes': inheritEnv must be true, false or an array of variable names")) << t.last;
    EXPECT_TRUE(contains(problems, "server 'number': inheritEnv entry 0 1 is not a string")) << t.last;
    EXPECT_TRUE(contains(problems, "server 'equals': inheritEnv entry 0 'A=B' is not a variable name")) << t.last;
    const JsonValue* good = find_named(member_at(doc, "servers"), "good");
    ASSERT_TRUE(good) << t.last;
    EXPECT_EQ(string_at(*good, "state"), "connected") << t.last;

    // And `mcph add-json` saves nothing.
    const CliResult add = t.mcph({"add-json", "bad", R"({"command":"x","inheritEnv":["A=B"]})"});
    EXPECT_EQ(add.exit_code, 2) << add.describe();
    EXPECT_TRUE(contains(add.err, "inheritEnv entry 0 'A=B' is not a variable name")) << add.describe();
    EXPECT_FALSE(contains(read_file(t.config_home / "settings.json"), "\"bad\"")) << add.describe();
}

TEST_F(InheritEnvCli, AProjectFileCannotTurnTheDefaultOn) {
    const fs::path mcp_json = t.repo / ".mcp.json";
    write_file(mcp_json, "{\"inheritEnv\":true,\"mcpServers\":{\"proj\":" + env_server("") + "}}");
    ASSERT_EQ(t.mcph({"approve", "proj"}, {}, host_environment()).exit_code, 0) << t.last;
    const Json env = child_env("proj");
    EXPECT_FALSE(has(env, "MCPH_TEST_SECRET")) << "a repository turned the default on\n" << t.last;
    const std::string problems = problems_about(t.status({}, host_environment()), mcp_json.string());
    EXPECT_TRUE(contains(problems, "\"inheritEnv\" at the top of this file is ignored")) << t.last;
    EXPECT_TRUE(contains(problems, "never from a repository's file")) << t.last;
}

TEST_F(InheritEnvCli, ChangingWhatAnApprovedProjectServerInheritsNeedsReapproval) {
    const fs::path trace = t.dir / "trace-proj";
    t.traces = {trace};
    auto define = [&](const std::string& inherit) {
        std::string entry = env_server(inherit);
        entry.insert(entry.find("\"--mode\""), "\"--trace\"," + json_quote(trace.string()) + ",");
        write_file(t.repo / ".mcp.json", "{\"mcpServers\":{\"proj\":" + entry + "}}");
    };
    auto unapproved = [&] {
        const std::size_t starts = trace_events(read_trace(trace), "start").size();
        const Json doc = t.status({}, host_environment());
        const bool listed = find_named(member_at(doc, "unapproved"), "proj") != nullptr;
        if (listed) {
            EXPECT_EQ(trace_events(read_trace(trace), "start").size(), starts) << "an unapproved server was started\n" << t.last;
        }
        return listed;
    };
    define("");
    const CliResult approve = t.mcph({"approve", "proj"}, {}, host_environment());
    ASSERT_EQ(approve.exit_code, 0) << approve.describe();
    EXPECT_TRUE(contains(approve.err, "inheritEnv: false (the default: only HOME LOGNAME PATH")) << approve.describe();
    ASSERT_FALSE(unapproved()) << t.last;

    define("true");  // the repository widens what its server receives
    EXPECT_TRUE(unapproved()) << "a server's new inheritEnv kept its approval\n" << t.last;
    const CliResult again = t.mcph({"approve", "proj"}, {}, host_environment());
    ASSERT_EQ(again.exit_code, 0) << again.describe();
    EXPECT_TRUE(contains(again.err, "inheritEnv: true (set by the definition)")) << again.describe();
    EXPECT_EQ(string_at(child_env("proj"), "MCPH_TEST_SECRET"), "hunter2") << t.last;

    // The user's default reaching an approved server changes what it receives too.
    define("");
    ASSERT_EQ(t.mcph({"approve", "proj"}, {}, host_environment()).exit_code, 0) << t.last;
    ASSERT_FALSE(unapproved()) << t.last;
    write_file(t.config_home / "settings.json", R"({"inheritEnv":true})");
    EXPECT_TRUE(unapproved()) << "turning the default on kept the approval of a server that inherits it\n" << t.last;
}

TEST_F(InheritEnvCli, AddInheritEnvSavesTheKeyAndRefusesBadNamesAndRemoteServers) {
    const fs::path settings = t.config_home / "settings.json";
    const CliResult add = t.mcph({"add", "-s", "user", "--inherit-env", "MCPH_TEST_PROXY,LC_*", "some", "--",
                                  fake_server_path().string(), "--mode", "env"});
    ASSERT_EQ(add.exit_code, 0) << add.describe();
    EXPECT_TRUE(contains(read_file(settings), R"("inheritEnv": [)")) << read_file(settings);
    const Json env = child_env("some");
    EXPECT_EQ(string_at(env, "MCPH_TEST_PROXY"), "http://proxy.example:3128") << t.last;
    EXPECT_EQ(string_at(env, "LC_MCPH_TEST"), "fr_FR.UTF-8") << t.last;
    EXPECT_FALSE(has(env, "MCPH_TEST_SECRET")) << t.last;

    const std::string before = read_file(settings);
    const CliResult bad = t.mcph({"add", "-s", "user", "--inherit-env", "OK,A=B", "bad", "--", "/bin/true"});
    EXPECT_EQ(bad.exit_code, 2) << bad.describe();
    EXPECT_TRUE(contains(bad.err, "inheritEnv entry 1 'A=B' is not a variable name")) << bad.describe();
    const CliResult remote = t.mcph({"add", "-s", "user", "--inherit-env", "true", "web", "https://mcp.example.com/mcp"});
    EXPECT_EQ(remote.exit_code, 2) << remote.describe();
    EXPECT_TRUE(contains(remote.err, "--inherit-env is for stdio servers")) << remote.describe();
    EXPECT_EQ(read_file(settings), before) << "a refused add saved something";
}

}  // namespace
}  // namespace mcph::test
