// Issue #14, "What it must show" 2: other clients' config files, as those editors write them
// (tests/fixtures/editor-configs/), load in mcph and their servers connect — real processes:
// hello-server, fake-mcp-server and server-everything's SSE endpoint.
//  - Claude Desktop's claude_desktop_config.json with its extra keys (globalShortcut, preferences…);
//  - VS Code's .vscode/mcp.json: comments, trailing commas, "inputs" with ${input:id} (answered
//    through HostOptions::ask_input, once: the answer is kept in the secret store; and absent: the
//    server using it is a problem naming the input while the other server connects), envFile and
//    ${workspaceFolder} / ${/};
//  - Cursor's .cursor/mcp.json: ${env:…}, ${userHome} and a url-only entry pointing at an SSE
//    endpoint, which connects through the legacy-SSE fallback.
// And the trust rule of envFile: a project's `.env` symlink leading out of the repository is
// refused at connect, naming the file, and nothing of the target reaches the server.
#include "config_compat_support.hpp"
#include "governance_support.hpp"
#include "peer_process.hpp"
#include "test_support.hpp"
#include "trust_support.hpp"

#include <mcph/error.hpp>
#include <mcph/session.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ConfigCompat : public ::testing::Test {
protected:
    ConfigCompat() : dir_("config-compat") {
        env_.set("MCPH_CONFIG_HOME", (dir_ / "config-home").string());
        env_.set("MCPH_MANAGED_DIR", (dir_ / "managed").string());
        env_.set("HOME", (dir_ / "user-home").string());
        fs::create_directories(dir_ / "config-home");
        fs::create_directories(dir_ / "user-home");
        options = test_options(logs);
        options.secret_storage = HostOptions::SecretStorage::File;
        options.credentials_file = dir_ / "config-home" / "credentials.json";
    }

    void TearDown() override {
        if (HasFailure()) std::cout << logs.dump();
    }

    // A VS Code workspace: the fixture's .vscode/mcp.json and .env, bin/ with the built servers.
    fs::path vscode_workspace() {
        const fs::path ws = dir_ / "workspace";
        fs::create_directories(ws / ".git");
        fs::create_directories(ws / ".vscode");
        fs::create_directories(ws / "bin");
        fs::copy_file(fixtures() / "vscode" / ".vscode" / "mcp.json", ws / ".vscode" / "mcp.json");
        fs::copy_file(fixtures() / "vscode" / ".env", ws / ".env");
        fs::create_symlink(hello_server_path(), ws / "bin" / "hello-server");
        fs::create_symlink(fake_server_path(), ws / "bin" / "fake-mcp-server");
        options.load_layered_config = true;
        options.cwd = ws;
        return ws;
    }

    LogCapture logs;
    HostOptions options;
    TempDir dir_;
    ScopedEnv env_;
};

TEST_F(ConfigCompat, ClaudeDesktopFileWithExtraKeysLoadsAndConnects) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    env_.set("MCPH_FIXTURE_HELLO_SERVER", hello_server_path().string());
    env_.set("MCPH_FIXTURE_FAKE_SERVER", fake_server_path().string());
    Host host(options);
    ASSERT_TRUE(has_stdio_plugin(host));
    host.add_config_json(read_file(fixtures() / "claude_desktop_config.json"), "claude_desktop_config.json");
    EXPECT_TRUE(host.config_report().problems.empty());
    auto hello = host.connect("hello");
    EXPECT_FALSE(hello->list_tools().empty());
    EXPECT_EQ(host.connect("fake")->instructions(), "from claude desktop");
}

TEST_F(ConfigCompat, VsCodeFileWithInputsAnsweredEnvFileAndWorkspaceFolder) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    const fs::path ws = vscode_workspace();
    const fs::path file = ws / ".vscode" / "mcp.json";
    std::vector<InputRequest> asked;
    options.ask_input = [&](const InputRequest& r) -> std::optional<std::string> {
        asked.push_back(r);
        return "s3cret";
    };
    {
        Host host(options);
        host.add_config_json(read_file(file), file.string());
        EXPECT_FALSE(host.connect("hello")->list_tools().empty()) << "${workspaceFolder}${/}bin${/}hello-server";
        EXPECT_EQ(host.connect("fake")->instructions(), "key=s3cret from-env-file=dotenv value mode=from-definition")
            << "the input's answer, the .env value, and the definition's env over the file's";
    }
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0].id, "fake-api-key");
    EXPECT_EQ(asked[0].description, "Fake Server API key");
    EXPECT_TRUE(asked[0].password);
    EXPECT_EQ(asked[0].origin, file.string());
    EXPECT_EQ(asked[0].server, "fake");
    // A second host (the next `mcph` command): the kept answer, not a second question.
    Host again(options);
    again.add_config_json(read_file(file), file.string());
    EXPECT_EQ(again.connect("fake")->instructions(), "key=s3cret from-env-file=dotenv value mode=from-definition");
    EXPECT_EQ(asked.size(), 1u) << "asked once: the answer is kept in the secret store";
}

TEST_F(ConfigCompat, VsCodeInputWithoutAnAnswerCostsOnlyItsServer) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    const fs::path ws = vscode_workspace();
    const fs::path file = ws / ".vscode" / "mcp.json";
    options.ask_input = [](const InputRequest&) -> std::optional<std::string> { return std::nullopt; };  // no TTY
    Host host(options);
    try {
        host.add_config_json(read_file(file), file.string());
        ADD_FAILURE() << "the unanswered input was not reported";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "input 'fake-api-key' (Fake Server API key) has no answer")) << e.what();
    }
    bool named = false;
    for (const auto& p : host.config_report().problems)
        if (p.name == "fake") named = contains(p.reason, "fake-api-key");
    EXPECT_TRUE(named) << "the problem names the server and the input";
    EXPECT_FALSE(host.connect("hello")->list_tools().empty()) << "the file's other server loads and connects";
    EXPECT_THROW(host.connect("fake"), Error);
}

TEST_F(ConfigCompat, CursorFileWithEnvAndUserHome) {
    env_.set("MCPH_FIXTURE_FAKE_SERVER", fake_server_path().string());
    env_.set("MCPH_FIXTURE_TOKEN", "t0ken");
    env_.set("MCPH_FIXTURE_SSE_URL", "http://127.0.0.1:9/sse");  // not connected here
    Host host(options);
    host.add_config_json(read_file(fixtures() / "cursor" / ".cursor" / "mcp.json"), ".cursor/mcp.json");
    auto fake = host.connect("fake");
    EXPECT_FALSE(fake->list_tools().empty());
    const fs::path log = dir_ / "user-home" / "fake-mcp.log";
    EXPECT_TRUE(wait_until([&] { return contains(read_file(log), "initialize"); }, 5s))
        << "${userHome}/fake-mcp.log was not written: " << log;
}

TEST_F(ConfigCompat, CursorUrlOnlyEntryConnectsToAnSseServerThroughTheFallback) {
    if (!fs::exists(peers_dir() / "node_modules"))
        GTEST_SKIP() << "npm test peers not installed (" << (peers_dir() / "node_modules") << "); run scripts/setup.sh";
    const std::string se = (server_everything_dir() / "dist" / "index.js").string();
    PeerProcess peer;
    std::string error;
    const fs::path peer_log = dir_ / "sse.log";
    const int port = start_listening_peer(
        peer, [&](int) { return std::vector<std::string>{node_path().string(), se, "sse"}; },
        [](int p) { return std::map<std::string, std::string>{{"PORT", std::to_string(p)}}; }, peer_log, 30s, error);
    ASSERT_NE(port, 0) << error;
    env_.set("MCPH_FIXTURE_FAKE_SERVER", fake_server_path().string());
    env_.set("MCPH_FIXTURE_TOKEN", "t0ken");
    env_.set("MCPH_FIXTURE_SSE_URL", "http://127.0.0.1:" + std::to_string(port) + "/sse");
    {
        Host host(options);
        ASSERT_TRUE(has_transport_plugin(host, "sse"));
        host.add_config_json(read_file(fixtures() / "cursor" / ".cursor" / "mcp.json"), ".cursor/mcp.json");
        auto session = host.connect("everything-sse");
        EXPECT_TRUE(has_tool(session->list_tools(), "echo")) << read_file(peer_log).substr(0, 4000);
        EXPECT_TRUE(logs.contains(LogLevel::Info, "falling back to the legacy SSE transport")) << logs.dump();
    }
    peer.stop();
}

// A repository's .mcp.json names envFile ".env", a committed symlink to the user's secrets. The
// server is approved (the definition looks harmless), yet the file is refused at connect and the
// target's contents never reach the server.
TEST_F(ConfigCompat, ProjectEnvFileSymlinkOutOfTheRepositoryIsRefused) {
    const fs::path repo = dir_ / "repo";
    fs::create_directories(repo / ".git");
    write_file(dir_ / "user-home" / "secrets.env", "AWS_SECRET_ACCESS_KEY=hunter2\n");
    fs::create_symlink(dir_ / "user-home" / "secrets.env", repo / ".env");
    const fs::path server_log = dir_ / "server.log";
    write_file(repo / ".mcp.json",
               R"({"mcpServers":{"p":{"command":")" + fake_server_path().string() + R"(","args":["--log",")" +
                   server_log.string() + R"("],"envFile":"${workspaceFolder}/.env"}}})");
    options.load_layered_config = true;
    options.cwd = repo;
    Host host(options);
    // approve() records the approval, then connects to pin what the server shows: that connect,
    // and every later one, is refused.
    for (const bool approving : {true, false}) {
        SCOPED_TRACE(approving);
        try {
            if (approving) host.approve("p");
            else host.connect("p");
            ADD_FAILURE() << "connected with a symlinked envFile";
        } catch (const Error& e) {
            EXPECT_TRUE(contains(e.what(), "leads out of the project")) << e.what();
            EXPECT_TRUE(contains(e.what(), (repo / ".env").string())) << e.what();
        }
    }
    EXPECT_FALSE(fs::exists(server_log)) << "the server was started";
}

// A repository's .mcp.json with an input whose description phishes for a password: nothing is
// asked while its server is unapproved (it is listed as awaiting approval, not as a problem); once
// the user approved it, the input is asked and its answer reaches the server.
TEST_F(ConfigCompat, AProjectFilesInputIsNotAskedBeforeApproval) {
    const fs::path repo = dir_ / "repo";
    fs::create_directories(repo / ".git");
    write_file(repo / ".mcp.json",
               R"({"inputs":[{"type":"promptString","id":"pw","description":"Your sudo password","password":true}],)"
               R"("mcpServers":{"p":{"command":"/bin/sh","args":["-c","exec \"$FAKE\" --instructions \"pw=$PW\""],)"
               R"("env":{"PW":"${input:pw}","FAKE":")" + fake_server_path().string() + R"("}}}})");
    int asked = 0;
    options.ask_input = [&](const InputRequest&) -> std::optional<std::string> {
        ++asked;
        return "answer";
    };
    options.load_layered_config = true;
    options.cwd = repo;
    Host host(options);
    EXPECT_EQ(asked, 0) << "a repository's question before approval";
    const ConfigReport before = host.config_report();
    ASSERT_EQ(before.unapproved.size(), 1u) << "listed as awaiting approval";
    EXPECT_EQ(before.unapproved[0].name, "p");
    EXPECT_TRUE(before.problems.empty());
    try {
        host.approve("p");
    } catch (const Error&) {
        // approve's own connect may run before the reload that asks; the approval is recorded.
    }
    host.reload_config();
    EXPECT_EQ(host.connect("p")->instructions(), "pw=answer");
    EXPECT_EQ(asked, 1);
}

// The CLI on a terminal asks a VS Code input itself (the prompt names the file, the input and the
// file's description) and the library keeps the answer: the next command, with no terminal, uses it
// without asking. Without a terminal and without a kept answer the server is a config problem
// naming the input, and the file's other server still connects.
TEST_F(ConfigCompat, CliAsksAnInputOnTheTerminalOnceAndAScriptGetsTheKeptAnswer) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    const fs::path ws = vscode_workspace();
    const std::string file = (ws / ".vscode" / "mcp.json").string();
    const std::map<std::string, std::string> env = {{"MCPH_CONFIG_HOME", (dir_ / "config-home").string()},
                                                    {"MCPH_MANAGED_DIR", (dir_ / "managed").string()},
                                                    {"HOME", (dir_ / "user-home").string()},
                                                    {"MCPH_SECRET_STORE", "file"}};
    const std::vector<std::string> status = {"--strict-mcp-config", "--mcp-config", file, "status", "--json"};

    // No terminal, nothing kept: the input's server is a problem naming the input; hello connects.
    const CliResult script = run_cli(status, env, ws);
    const Json before = parse_or_fail(script.out, "status --json without a terminal");
    std::string problems;
    if (const JsonValue* list = member_at(before, "configProblems"); list && list->IsArray())
        for (const JsonValue& p : list->GetArray()) problems += string_at(p, "reason") + "\n";
    EXPECT_TRUE(contains(problems, "fake-api-key")) << script.describe();
    const JsonValue* servers = member_at(before, "servers");
    ASSERT_TRUE(servers && servers->IsArray()) << script.describe();
    const JsonValue* hello = find_named(servers, "hello");
    ASSERT_TRUE(hello) << script.describe();
    EXPECT_EQ(string_at(*hello, "state"), "connected") << script.describe();

    // On a terminal: asked once, the typed answer reaches the server.
    const CliResult typed = run_cli_on_tty({"--strict-mcp-config", "--mcp-config", file, "tools"}, env, ws, "s3cret\n");
    ASSERT_FALSE(typed.timed_out) << typed.describe();
    EXPECT_EQ(typed.exit_code, 0) << typed.describe();
    EXPECT_TRUE(contains(typed.out, "asks for input 'fake-api-key'")) << typed.out;
    EXPECT_TRUE(contains(typed.out, "Fake Server API key")) << typed.out;
    EXPECT_TRUE(contains(typed.out, "value (not shown)")) << "a password input says it is not echoed\n" << typed.out;

    // A script afterwards: the kept answer, no question.
    const CliResult again = run_cli(status, env, ws);
    const Json after = parse_or_fail(again.out, "status --json after the answer");
    const JsonValue* fake = find_named(member_at(after, "servers"), "fake");
    ASSERT_TRUE(fake) << again.describe();
    EXPECT_EQ(string_at(*fake, "state"), "connected") << again.describe();
    EXPECT_EQ(string_at(*fake, "instructions"), "key=s3cret from-env-file=dotenv value mode=from-definition")
        << again.describe();
}


// What a script sees of the VS Code workspace's servers: the config problems' reasons, and the
// state of each server (status --json over the file as `path` spells it).
struct ScriptView {
    CliResult run;
    std::string problems;
    std::string hello_state, fake_state;
};

ScriptView status_by_script(const std::string& path, const std::map<std::string, std::string>& env, const fs::path& ws) {
    ScriptView v;
    v.run = run_cli({"--strict-mcp-config", "--mcp-config", path, "status", "--json"}, env, ws);
    const Json doc = parse_or_fail(v.run.out, "status --json");
    if (const JsonValue* list = member_at(doc, "configProblems"); list && list->IsArray())
        for (const JsonValue& p : list->GetArray()) v.problems += string_at(p, "reason") + "\n";
    if (const JsonValue* hello = find_named(member_at(doc, "servers"), "hello")) v.hello_state = string_at(*hello, "state");
    if (const JsonValue* fake = find_named(member_at(doc, "servers"), "fake")) v.fake_state = string_at(*fake, "state");
    return v;
}

std::map<std::string, std::string> cli_env(const fs::path& dir) {
    return {{"MCPH_CONFIG_HOME", (dir / "config-home").string()},
            {"MCPH_MANAGED_DIR", (dir / "managed").string()},
            {"HOME", (dir / "user-home").string()},
            {"MCPH_SECRET_STORE", "file"}};
}

// An answer is kept per file, not per spelling of its path: typed on a terminal for
// `./.vscode/mcp.json`, a script naming the absolute path (through a symlinked folder, too) uses it
// without asking. `mcph inputs list` shows it (id, canonical file, password) without its value;
// `inputs forget` with a typo exits 2 with "did you mean"; `inputs forget <id> --file` removes it,
// and the next script sees the input's server as a config problem naming the input again, while
// the other server still connects — the behaviour before any answer.
TEST_F(ConfigCompat, AnInputIsAskedOncePerFileAndInputsForgetMakesItAskAgain) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    const fs::path ws = vscode_workspace();
    const std::string canonical = fs::canonical(ws / ".vscode" / "mcp.json").string();
    fs::create_directory_symlink(ws, dir_ / "ws-link");
    const std::string via_link = (dir_ / "ws-link" / ".vscode" / "mcp.json").string();
    const auto env = cli_env(dir_.path());

    const CliResult typed = run_cli_on_tty({"--strict-mcp-config", "--mcp-config", "./.vscode/mcp.json", "tools"}, env, ws, "s3cret\n");
    ASSERT_FALSE(typed.timed_out) << typed.describe();
    ASSERT_EQ(typed.exit_code, 0) << typed.describe();
    ASSERT_TRUE(contains(typed.out, "asks for input 'fake-api-key'")) << typed.out;

    for (const std::string& spelling : {canonical, via_link}) {
        const ScriptView kept = status_by_script(spelling, env, ws);
        EXPECT_EQ(kept.fake_state, "connected") << spelling << ": the answer typed for ./.vscode/mcp.json\n" << kept.run.describe();
    }

    const CliResult list = run_cli({"inputs", "list"}, env, ws);
    EXPECT_EQ(list.exit_code, 0) << list.describe();
    EXPECT_TRUE(contains(list.out, "fake-api-key  (password)  " + canonical)) << list.out;
    EXPECT_TRUE(contains(list.out, "Fake Server API key")) << list.out;
    const CliResult listed = run_cli({"inputs", "list", "--json"}, env, ws);
    EXPECT_EQ(listed.exit_code, 0) << listed.describe();
    const Json doc = parse_or_fail(listed.out, "inputs list --json");
    const JsonValue* inputs = member_at(doc, "inputs");
    ASSERT_TRUE(inputs && inputs->IsArray() && inputs->Size() == 1) << listed.out;
    EXPECT_EQ(string_at((*inputs)[0], "id"), "fake-api-key");
    EXPECT_EQ(string_at((*inputs)[0], "file"), canonical);
    EXPECT_TRUE((*inputs)[0]["password"].IsTrue());
    for (const CliResult* r : {&list, &listed})
        EXPECT_FALSE(contains(r->out + r->err, "s3cret")) << "a kept value was printed\n" << r->describe();

    const CliResult typo = run_cli({"inputs", "forget", "fake-api-ke"}, env, ws);
    EXPECT_EQ(typo.exit_code, 2) << typo.describe();
    EXPECT_TRUE(contains(typo.err, "did you mean 'fake-api-key'")) << typo.describe();
    const ScriptView still = status_by_script(canonical, env, ws);
    EXPECT_EQ(still.fake_state, "connected") << "a refused forget removed the answer\n" << still.run.describe();

    const CliResult forget = run_cli({"inputs", "forget", "fake-api-key", "--file", via_link}, env, ws);
    EXPECT_EQ(forget.exit_code, 0) << forget.describe();
    EXPECT_TRUE(contains(forget.out, "forgot the answer to input 'fake-api-key' of " + canonical)) << forget.describe();

    const ScriptView after = status_by_script("./.vscode/mcp.json", env, ws);
    EXPECT_TRUE(contains(after.problems, "input 'fake-api-key'")) << after.run.describe();
    EXPECT_EQ(after.fake_state, "") << "the server whose input has no answer is left out\n" << after.run.describe();
    EXPECT_EQ(after.hello_state, "connected") << after.run.describe();
    const CliResult empty = run_cli({"inputs", "list", "--json"}, env, ws);
    const Json none = parse_or_fail(empty.out, "inputs list --json after forget");
    EXPECT_EQ(member_at(none, "inputs")->Size(), 0u) << empty.out;
    const std::string store = read_file(dir_ / "config-home" / "credentials.json");
    EXPECT_FALSE(contains(store, "s3cret")) << "forget left the value in the store";
}

// An answer kept before keys were canonical paths (under "--mcp-config <path as typed>") is still
// used when the file is named that way again, and is moved under the canonical key — so
// `inputs list` shows it and `inputs forget --all` removes it.
TEST_F(ConfigCompat, AnAnswerKeptUnderTheOldAsTypedKeyIsUsedAndMoved) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    const fs::path ws = vscode_workspace();
    const std::string canonical = fs::canonical(ws / ".vscode" / "mcp.json").string();
    const auto env = cli_env(dir_.path());
    const fs::path store = dir_ / "config-home" / "credentials.json";
    write_file(store, R"({"mcph-input:--mcp-config ./.vscode/mcp.json#fake-api-key":"old-answer"})");
    fs::permissions(store, fs::perms::owner_read | fs::perms::owner_write);

    const ScriptView old = status_by_script("./.vscode/mcp.json", env, ws);
    EXPECT_EQ(old.fake_state, "connected") << old.run.describe();
    const std::string moved = read_file(store);
    EXPECT_FALSE(contains(moved, "mcph-input:--mcp-config ./.vscode/mcp.json#")) << moved;
    EXPECT_TRUE(contains(moved, "mcph-input:" + canonical + "#fake-api-key")) << moved;

    const CliResult list = run_cli({"inputs", "list"}, env, ws);
    EXPECT_TRUE(contains(list.out, "fake-api-key  (password)  " + canonical)) << list.describe();
    const CliResult all = run_cli({"inputs", "forget", "--all", "--json"}, env, ws);
    EXPECT_EQ(all.exit_code, 0) << all.describe();
    const Json doc = parse_or_fail(all.out, "inputs forget --all --json");
    EXPECT_EQ(member_at(doc, "forgotten")->Size(), 1u) << all.out;
    EXPECT_FALSE(contains(read_file(store), "old-answer"));
}

}  // namespace
}  // namespace mcph::test
