// Issue #14, "What it must show" 3: `mcph shell` driven through a pty as a person drives it —
// two calls to a server that keeps state only in its memory see the same state (and a one-shot
// `mcph call` does not: it starts its own server); a list change arrives live and the next
// command sees the new tool; Tab completes a tool name; Ctrl-C cancels a running call (the server
// is sent notifications/cancelled) and the next command works; Ctrl-C at the prompt clears the
// line; Ctrl-D ends. Without a terminal the shell runs a script line by line and exits with the
// last command's status. And `--debug` shows a request and its response, a secret-named key
// redacted. A server that hangs at start does not hold the prompt: Ctrl-C shows it while that
// server goes on connecting, and leaving ends the attempt; a one-shot command at a terminal names
// such a server while it waits for it. A Ctrl-C while the shell sleeps writing to a stopped
// terminal loses no later output; one at a server's form cancels the form, and the next form is
// asked; a server's question while the prompt waits is not asked. Real processes: the built `mcph` and
// fake-mcp-server (modes memory, list-changed, never-answer, no-init; --elicit-file, --elicit-delay-ms).
#include "governance_support.hpp"
#include "pty_session.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Waits (bounded) until `path` contains `needle`: the fake server logs each line it reads.
bool file_gets(const fs::path& path, std::string_view needle, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (read_text(path).find(needle) != std::string::npos) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

class CliShell : public ::testing::Test {
protected:
    CliShell() : dir_("cli-shell") {
        fs::create_directories(dir_ / "config-home");
        fs::create_directories(dir_ / "managed");
        fs::create_directories(dir_ / "home");
        config_ = (dir_ / "servers.json").string();
        write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) +
                                ",\"lc\":" + fake_server_config_text({"--mode", "list-changed"}) + ",\"slow\":" +
                                fake_server_config_text({"--mode", "never-answer", "--log", (dir_ / "slow.log").string()}) +
                                "}}");
        env_ = {{"MCPH_CONFIG_HOME", (dir_ / "config-home").string()},
                {"MCPH_MANAGED_DIR", (dir_ / "managed").string()},
                {"HOME", (dir_ / "home").string()},
                {"MCPH_SECRET_STORE", "file"},
                {"TERM", "xterm"}};
    }

    std::vector<std::string> shell_args() const { return {"--strict-mcp-config", "--mcp-config", config_, "shell"}; }

    // `mcph shell` with `script` on stdin (a file, not a terminal): exit status (-1: it did not
    // exit) and all output. `options`: global options given before `shell` (quoted as typed).
    std::pair<int, std::string> run_script(const std::string& script, const std::string& options = "") {
        write_file(dir_ / "script.txt", script);
        std::string command = "cd '" + dir_.path().string() + "' &&";
        for (const auto& [k, v] : env_) command += " " + k + "='" + v + "'";
        command += " timeout 20 '" + cli_path().string() + "' --strict-mcp-config --mcp-config '" + config_ + "' " +
                   options + " shell < script.txt 2>&1";
        FILE* p = ::popen(command.c_str(), "r");
        std::string out;
        char buffer[4096];
        std::size_t n = 0;
        while (p && (n = std::fread(buffer, 1, sizeof buffer, p)) > 0) out.append(buffer, n);
        const int status = p ? ::pclose(p) : -1;
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
    }

    // An elicitation/create params file for fake-mcp-server --elicit-file: a form asking one
    // required string, `name`. Its path.
    std::string write_name_form() {
        const fs::path file = dir_ / "elicit.json";
        write_file(file, R"({"message":"Who are you?","requestedSchema":{"type":"object",)"
                         R"("properties":{"name":{"type":"string"}},"required":["name"]}})");
        return file.string();
    }

    TempDir dir_;
    std::string config_;
    std::map<std::string, std::string> env_;
};

TEST_F(CliShell, TwoCallsShareTheServersMemoryAndAListChangeArrivesLive) {
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    EXPECT_NE(shell.output().find("3 of 3 servers connected"), std::string::npos) << shell.output();

    shell.type("call mem/remember '{\"key\":\"alpha\",\"value\":\"42\"}'\r");
    at = shell.wait_for("remembered alpha", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    // Tab completes the tool's name (unique prefix), then the second call reads the state back.
    // (libedit repaints only what changed, so the screen shows "all " after the Tab, not the word;
    // the call's answer proves the line became `call mem/recall …`: "mem/rec" is no tool.)
    shell.type("call mem/rec\t");
    at = shell.wait_for("all ", *at);
    ASSERT_TRUE(at) << "Tab did not complete mem/rec\n" << shell.output();
    shell.type("'{\"key\":\"alpha\"}'\r");
    at = shell.wait_for("alpha = 42", *at);
    ASSERT_TRUE(at) << "the second call did not see the first call's state (or Tab did not complete)\n" << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    // lc changes its tool list after its first call and says so: the line arrives by itself...
    shell.type("call lc/work\r");
    at = shell.wait_for("tools of lc changed", *at);
    ASSERT_TRUE(at) << shell.output();
    // ...and the shell's host has the new list: the next command lists the new tool.
    shell.type("tools --brief lc\r");
    at = shell.wait_for("mcp__lc__fresh-tool", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    // Ctrl-D on an empty line. Typed once the editor reads keys itself (Tab on an empty line lists
    // the commands only then): between commands the terminal is in cooked mode, where the kernel
    // would take a ^D as its own end-of-line and the editor would never see it.
    shell.type("\t");
    at = shell.wait_for("servers", *at);
    ASSERT_TRUE(at) << "Tab on an empty line did not list the commands\n" << shell.output();
    shell.type("\x04");
    EXPECT_EQ(shell.wait_exit(), 0) << shell.output();

    // A one-shot command starts a server of its own: nothing is remembered there.
    const CliResult once = run_cli({"--strict-mcp-config", "--mcp-config", config_, "call", "mem/recall", "{\"key\":\"alpha\"}"},
                                   env_, dir_.path(), 20s);
    EXPECT_NE(once.out.find("nothing remembered under alpha"), std::string::npos) << once.describe();
}

// A server line that arrives while a person is typing is printed above the prompt, and the
// half-typed line is redrawn and stays whole. The server: a small sh script speaking MCP that sends
// a log notification when the test says so (the file `go`), so it arrives mid-line for certain.
TEST_F(CliShell, ALiveLineArrivesAboveThePromptWithoutCorruptingTheTypedLine) {
    const fs::path go = dir_ / "go";
    write_file(dir_ / "ticker.sh",
               "while IFS= read -r line; do\n"
               "  id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p')\n"
               "  case \"$line\" in\n"
               "    *server/discover*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,\"message\":\"no\"}}\\n' \"$id\" ;;\n"
               "    *'\"initialize\"'*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"logging\":{}},\"serverInfo\":{\"name\":\"ticker\",\"version\":\"1\"}}}\\n' \"$id\" ;;\n"
               "    *notifications/initialized*) ( while [ ! -f '" + go.string() + "' ]; do sleep 0.05; done;\n"
               "        printf '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":\"bg\",\"data\":\"tick\"}}\\n' ) & ;;\n"
               "    *'\"id\"'*) printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\\n' \"$id\" ;;\n"
               "  esac\n"
               "done\n");
    const std::string config = (dir_ / "ticker.json").string();
    write_file(config, "{\"mcpServers\":{\"ticker\":{\"command\":\"/bin/sh\",\"args\":[" +
                           json_quote((dir_ / "ticker.sh").string()) + "],\"shutdownGraceMs\":200}}}");
    PtySession shell({"--strict-mcp-config", "--mcp-config", config, "shell"}, env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    shell.type("sta");
    at = shell.wait_for("sta", *at);
    ASSERT_TRUE(at) << shell.output();
    write_file(go, "");
    at = shell.wait_for("[ticker/bg info] tick", *at);
    ASSERT_TRUE(at) << shell.output();
    // Redrawn below the line: the prompt and what was typed.
    at = shell.wait_for("mcph> sta", *at);
    ASSERT_TRUE(at) << "the typed line was not redrawn\n" << shell.output();
    shell.type("tus\r");
    at = shell.wait_for("ticker  [stdio", *at);
    ASSERT_TRUE(at) << "the line did not stay `status`\n" << shell.output();
    if (std::getenv("MCPH_TEST_SHOW")) std::cout << shell.output() << std::endl;
    shell.type("exit\r");
    EXPECT_EQ(shell.wait_exit(), 0) << shell.output();
}

TEST_F(CliShell, CtrlCCancelsARunningCallAndTheShellStaysUp) {
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();

    shell.type("call slow/work\r");
    ASSERT_TRUE(file_gets(dir_ / "slow.log", "tools/call")) << "the call never reached the server\n" << shell.output();
    shell.type("\x03");  // Ctrl-C: SIGINT through the terminal
    at = shell.wait_for("mcph: cancelled", *at);
    ASSERT_TRUE(at) << shell.output();
    EXPECT_TRUE(file_gets(dir_ / "slow.log", "notifications/cancelled")) << read_text(dir_ / "slow.log");
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    // The next command works on the same host.
    shell.type("call mem/remember '{\"key\":\"b\",\"value\":\"after\"}'\r");
    at = shell.wait_for("remembered b", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    // Ctrl-C at the prompt clears the line: "garbage" is not run before `exit 5`.
    shell.type("garbage");
    ASSERT_TRUE(shell.wait_for("garbage", *at)) << shell.output();
    shell.type("\x03");
    ASSERT_TRUE(shell.wait_for("^C", *at)) << shell.output();
    shell.type("exit 5\r");
    EXPECT_EQ(shell.wait_exit(), 5) << shell.output();
    EXPECT_EQ(shell.output().find("unknown command 'garbageexit'"), std::string::npos) << shell.output();

    // The history is kept in the config home, readable by the user only (lines hold arguments).
    const fs::path history = dir_ / "config-home" / "shell_history";
    ASSERT_TRUE(fs::exists(history)) << shell.output();
    EXPECT_EQ(fs::status(history).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_NE(read_text(history).find("call"), std::string::npos) << read_text(history);
}

TEST_F(CliShell, WithoutATerminalItRunsTheScriptAndExitsWithTheLastStatus) {
    auto [code, out] = run_script(
        "# a comment\n"
        "call mem/remember '{\"key\":\"k\",\"value\":\"v1\"}'\n"
        "\n"
        "call mem/recall '{\"key\":\"k\"}'\n");
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("remembered k"), std::string::npos) << out;
    EXPECT_NE(out.find("k = v1"), std::string::npos) << "state kept between the script's lines\n" << out;
    EXPECT_EQ(out.find("mcph> "), std::string::npos) << "no prompt without a terminal\n" << out;

    std::tie(code, out) = run_script("call mem/recall '{\"key\":\"k\"}'\nnosuch\n");
    EXPECT_EQ(code, 2) << "the last command was a usage error\n" << out;
    EXPECT_NE(out.find("unknown command 'nosuch'"), std::string::npos) << out;

    std::tie(code, out) = run_script("nosuch\ncall mem/recall '{\"key\":\"k\"}'\n");
    EXPECT_EQ(code, 0) << "an earlier failure does not decide the status\n" << out;

    std::tie(code, out) = run_script("exit 3\ncall mem/recall '{}'\n");
    EXPECT_EQ(code, 3) << out;
    EXPECT_EQ(out.find("nothing remembered"), std::string::npos) << "nothing runs after exit\n" << out;

    std::tie(code, out) = run_script("call mem/recall '{\"key\":\"unterminated}\n");
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("unmatched quote"), std::string::npos) << out;
}

TEST_F(CliShell, DebugTracesARequestAndItsResponseWithSecretsRedacted) {
    const CliResult r = run_cli({"--debug", "--strict-mcp-config", "--mcp-config", config_, "call", "mem/remember",
                                 "{\"key\":\"k\",\"value\":\"v\",\"api_key\":\"sk-live-123\",\"password\":\"hunter2\"}"},
                                env_, dir_.path(), 20s);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    const std::string& err = r.err;
    const auto request = err.find("mcph: [trace] mem \xE2\x86\x92 {\"jsonrpc\":\"2.0\",\"id\":");
    ASSERT_NE(request, std::string::npos) << err;
    const auto call = err.find("\"method\":\"tools/call\"");
    ASSERT_NE(call, std::string::npos) << err;
    EXPECT_NE(err.find("\"api_key\":\"***\""), std::string::npos) << err;
    EXPECT_NE(err.find("\"password\":\"***\""), std::string::npos) << err;
    EXPECT_NE(err.find("\"key\":\"k\""), std::string::npos) << "a key that names no secret is shown\n" << err;
    EXPECT_EQ(err.find("sk-live-123"), std::string::npos) << err;
    EXPECT_EQ(err.find("hunter2"), std::string::npos) << err;
    const auto response = err.find("mcph: [trace] mem \xE2\x86\x90 ", call);
    ASSERT_NE(response, std::string::npos) << err;
    EXPECT_NE(err.find("remembered k", response), std::string::npos) << err;
    EXPECT_EQ(r.out.find("[trace]"), std::string::npos) << "the trace is on stderr only\n" << r.out;

    // MCPH_LOG_LEVEL=trace is the same switch.
    auto env = env_;
    env["MCPH_LOG_LEVEL"] = "trace";
    const CliResult t = run_cli({"--strict-mcp-config", "--mcp-config", config_, "tools", "mem"}, env, dir_.path(), 20s);
    EXPECT_NE(t.err.find("mcph: [trace] mem \xE2\x86\x92 "), std::string::npos) << t.describe();
    const CliResult quiet = run_cli({"--strict-mcp-config", "--mcp-config", config_, "tools", "mem"}, env_, dir_.path(), 20s);
    EXPECT_EQ(quiet.err.find("[trace]"), std::string::npos) << quiet.describe();
}

// Ctrl-C cancels a `prompt` (prompts/get) as it cancels a `call`: the server gets
// notifications/cancelled, the shell says so and takes the next command. (`read` goes through the
// same RequestOptions::is_cancelled.)
TEST_F(CliShell, CtrlCCancelsARunningPromptAndTheShellStaysUp) {
    write_file(dir_ / "prompts.json", R"([{"name":"slow-prompt","description":"never answered"}])");
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"sp\":" +
                            fake_server_config_text({"--mode", "never-answer", "--prompts-file", (dir_ / "prompts.json").string(),
                                                     "--log", (dir_ / "sp.log").string()}) +
                            "}}");
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    shell.type("prompt sp/slow-prompt\r");
    ASSERT_TRUE(file_gets(dir_ / "sp.log", "prompts/get")) << "the request never reached the server\n" << shell.output();
    shell.type("\x03");
    at = shell.wait_for("mcph: cancelled", *at);
    ASSERT_TRUE(at) << shell.output();
    EXPECT_TRUE(file_gets(dir_ / "sp.log", "notifications/cancelled")) << read_text(dir_ / "sp.log");
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("call mem/remember '{\"key\":\"b\",\"value\":\"after\"}'\r");
    at = shell.wait_for("remembered b", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("exit 7\r");
    EXPECT_EQ(shell.wait_exit(), 7) << shell.output();
}

// A Ctrl-C that lands while the shell is blocked writing to the terminal (a terminal that does not
// keep up, or one stopped with Ctrl-S) does not break the terminal's streams: the write goes on,
// and every later command's output and errors are still shown. Before, the write failed with
// EINTR, std::cout (or std::cerr) turned bad and the shell printed nothing more on it.
TEST_F(CliShell, ACtrlCDuringAWriteToTheTerminalLosesNoLaterOutput) {
    // The answer comes only after a form is answered, so Ctrl-S can stop the terminal's output
    // first: the next write then starts on a stopped terminal and sleeps in write(2).
    const std::string form = write_name_form();
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"form\":" +
                            fake_server_config_text({"--elicit-file", form}) + "}}");
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    shell.type("call form/work\r");
    at = shell.wait_for("  > ", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("alice\r");
    at = shell.wait_for("Send them?", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("y\r\x13");  // the answer, then Ctrl-S (XOFF): the line discipline stops output at once
    ASSERT_TRUE(shell.wait_blocked_writing()) << "the shell never blocked writing to the terminal\n" << shell.output();
    shell.type("\x03");  // Ctrl-C: SIGINT while write(2) sleeps (it also restarts the output)
    at = shell.wait_for(R"({"action":"accept","content":{"name":"alice"}})", *at);
    ASSERT_TRUE(at) << "the answer being written was lost\n" << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    shell.type("call mem/remember '{\"key\":\"b\",\"value\":\"after\"}'\r");
    at = shell.wait_for("remembered b", *at);
    ASSERT_TRUE(at) << "stdout went silent after the Ctrl-C\n" << shell.output();
    shell.type("call mem/nosuch-tool\r");
    at = shell.wait_for("did not list a tool named 'nosuch-tool'", *at);
    ASSERT_TRUE(at) << "stderr went silent after the Ctrl-C\n" << shell.output();
    shell.type("exit 4\r");
    EXPECT_EQ(shell.wait_exit(), 4) << shell.output();
}

// Ctrl-C at a server's form (elicitation/create) cancels the form, as Ctrl-D does, and the next
// form is asked again: the shell's reads are restarted after a signal (see the test above), so
// the form's wait looks at the shell's Ctrl-C itself, and a cancelled answer leaves the terminal's
// input usable.
TEST_F(CliShell, CtrlCCancelsAFormAndTheNextFormIsAsked) {
    const std::string form = write_name_form();
    write_file(config_, "{\"mcpServers\":{\"form\":" +
                            fake_server_config_text({"--elicit-file", form, "--log",
                                                     (dir_ / "form.log").string()}) +
                            "}}");
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    shell.type("call form/work\r");
    at = shell.wait_for("  > ", *at);
    ASSERT_TRUE(at) << "no form\n" << shell.output();
    shell.type("\x03");
    at = shell.wait_for("cancelled", *at);
    ASSERT_TRUE(at) << "Ctrl-C did not end the form\n" << shell.output();
    EXPECT_TRUE(file_gets(dir_ / "form.log", "\"action\":\"cancel\"")) << read_text(dir_ / "form.log");
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    shell.type("call form/work\r");
    at = shell.wait_for("  > ", *at);
    ASSERT_TRUE(at) << "the second form was not asked\n" << shell.output();
    shell.type("alice\r");
    at = shell.wait_for("Send them?", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("y\r");
    at = shell.wait_for(R"({"action":"accept","content":{"name":"alice"}})", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("exit 6\r");
    EXPECT_EQ(shell.wait_exit(), 6) << shell.output();
}

// A server that asks a question while the shell waits at its prompt (here: it ignored the
// cancellation of the call it asks for) is not asked: a form would read the line being typed at
// the prompt, and the server would get it. The shell says so above the prompt, answers "cancel",
// and the line being typed is still the prompt's.
TEST_F(CliShell, AServerQuestionWhileThePromptWaitsIsNotAskedAndTakesNoTypedLine) {
    const std::string form = write_name_form();
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"late\":" +
                            fake_server_config_text({"--elicit-file", form, "--elicit-delay-ms",
                                                     "3000", "--log", (dir_ / "late.log").string()}) +
                            "}}");
    PtySession shell(shell_args(), env_, dir_.path());
    auto at = shell.wait_for("mcph> ");
    ASSERT_TRUE(at) << shell.output();
    shell.type("call late/work\r");
    ASSERT_TRUE(file_gets(dir_ / "late.log", "tools/call")) << shell.output();
    shell.type("\x03");
    at = shell.wait_for("mcph: cancelled", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("call mem/remember '{\"key\":\"k\",\"value\":\"typed\"}'");  // no Enter yet
    at = shell.wait_for("mcph: server 'late' asked for a form while no command was running: not asked (cancelled)", *at);
    ASSERT_TRUE(at) << shell.output();
    EXPECT_TRUE(file_gets(dir_ / "late.log", "\"action\":\"cancel\"")) << read_text(dir_ / "late.log");
    shell.type("\r");
    at = shell.wait_for("remembered k", *at);
    ASSERT_TRUE(at) << "the line typed at the prompt did not stay the prompt's\n" << shell.output();
    shell.type("exit 3\r");
    EXPECT_EQ(shell.wait_exit(), 3) << shell.output();
}

// A server that never answers initialize does not hold the prompt for the connect timeout: after a
// second the shell names the server it waits for, Ctrl-C shows the prompt while that server goes
// on connecting (the others work), and its failure is printed above the prompt when the timeout
// ends the attempt.
TEST_F(CliShell, CtrlCAtStartShowsThePromptWhileAHangingServerConnectsAndItsFailureArrivesLater) {
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"mute\":" +
                            fake_server_config_text({"--mode", "no-init", "--log", (dir_ / "mute.log").string()}) + "}}");
    PtySession shell({"--strict-mcp-config", "--mcp-config", config_, "--connect-timeout", "4s", "shell"}, env_, dir_.path());
    auto at = shell.wait_for("(Ctrl-C stops waiting");
    ASSERT_TRUE(at) << shell.output();
    // Ctrl-C once the whole notice is written: one that lands inside a write to the terminal is a
    // problem of its own (the write fails with EINTR and std::cerr turns bad; see #16's note).
    at = shell.wait_for("on connecting)", *at);
    ASSERT_TRUE(at) << shell.output();
    EXPECT_NE(shell.output().find("mute..."), std::string::npos) << shell.output();
    ASSERT_TRUE(file_gets(dir_ / "mute.log", "initialize")) << "the handshake never began\n" << shell.output();
    shell.type("\x03");
    // (mem is normally connected by then; on a slow machine it may be named too)
    at = shell.wait_for("mcph shell: stopped waiting for ", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mute; ", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();
    EXPECT_EQ(shell.output().find("failed"), std::string::npos) << "the prompt came only after the timeout\n" << shell.output();

    shell.type("call mem/remember '{\"key\":\"k\",\"value\":\"v\"}'\r");
    at = shell.wait_for("remembered k", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph: server 'mute' failed: server 'mute' did not answer initialize within 4000 ms", *at,
                        std::chrono::seconds(20));
    ASSERT_TRUE(at) << shell.output();
    shell.type("servers\r");
    at = shell.wait_for("failed", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("exit 4\r");
    EXPECT_EQ(shell.wait_exit(), 4) << shell.output();
}

// A command that connects waits for a hanging server no more than the person wants: `tools` names
// the server after a second, Ctrl-C stops the wait (exit status 130, the server goes on
// connecting) and the next command works. Leaving the shell then ends both attempts — the
// start-up's and the command's — instead of waiting out the connect timeout, here a minute: the
// exit comes within the PtySession's 10 s, and nothing is announced for an attempt ended on purpose.
TEST_F(CliShell, CtrlCStopsACommandWaitingForAHangingServerAndLeavingEndsTheAttempts) {
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"mute\":" +
                            fake_server_config_text({"--mode", "no-init", "--log", (dir_ / "mute.log").string()}) + "}}");
    PtySession shell({"--strict-mcp-config", "--mcp-config", config_, "--connect-timeout", "60s", "shell"}, env_, dir_.path());
    auto at = shell.wait_for("(Ctrl-C stops waiting");
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("on connecting)", *at);  // the whole notice first (see the test above)
    ASSERT_TRUE(at) << shell.output();
    ASSERT_TRUE(file_gets(dir_ / "mute.log", "initialize")) << "the handshake never began\n" << shell.output();
    shell.type("\x03");
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    shell.type("tools\r");
    at = shell.wait_for("mcph: connecting mute... (Ctrl-C stops waiting; it goes on connecting)", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("\x03");
    at = shell.wait_for("mcph: stopped waiting for mute; it goes on connecting", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();
    shell.type("call mem/remember '{\"key\":\"k\",\"value\":\"v\"}'\r");
    at = shell.wait_for("remembered k", *at);
    ASSERT_TRUE(at) << shell.output();
    at = shell.wait_for("mcph> ", *at);
    ASSERT_TRUE(at) << shell.output();

    shell.type("exit 6\r");
    EXPECT_EQ(shell.wait_exit(), 6) << shell.output();
    EXPECT_EQ(shell.output().find("mcph: server 'mute'"), std::string::npos) << shell.output();
}

// Without a terminal a script waits for every server, as before: the hanging one fails at its
// connect timeout, and the script's commands run after that.
TEST_F(CliShell, AScriptWaitsForEveryServerBeforeItsFirstCommand) {
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"mute\":" +
                            fake_server_config_text({"--mode", "no-init"}) + "}}");
    const auto [status, out] = run_script("servers\n", "--connect-timeout 2s");
    ASSERT_NE(status, -1) << out;
    const auto failed = out.find("mcph: server 'mute' failed:");
    const auto listed = out.find("mute  [");
    ASSERT_NE(failed, std::string::npos) << out;
    ASSERT_NE(listed, std::string::npos) << out;
    EXPECT_LT(failed, listed) << "the script ran before the start-up attempts ended\n" << out;
    EXPECT_EQ(out.find("Ctrl-C"), std::string::npos) << out;
}

// A one-shot command at a terminal names the server it still waits for instead of sitting silent
// for that server's connect timeout; the listing of the servers that answered comes after, and
// Ctrl-C ends the command long before a 60 s timeout.
TEST_F(CliShell, AOneShotCommandAtATerminalNamesTheHangingServerItWaitsFor) {
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"mute\":" +
                            fake_server_config_text({"--mode", "no-init"}) + "}}");
    PtySession tools({"--strict-mcp-config", "--mcp-config", config_, "--connect-timeout", "4s", "tools"}, env_, dir_.path());
    auto at = tools.wait_for("mcph: connecting mute... (Ctrl-C ends the command)");
    ASSERT_TRUE(at) << tools.output();
    ASSERT_TRUE(tools.wait_for("did not answer initialize within 4000 ms", *at)) << tools.output();
    ASSERT_TRUE(tools.wait_exit()) << tools.output();
    const auto listed = tools.output().find("mcp__mem__remember");
    ASSERT_NE(listed, std::string::npos) << tools.output();
    EXPECT_LT(tools.output().find("mcph: connecting mute"), listed) << tools.output();

    PtySession call({"--strict-mcp-config", "--mcp-config", config_, "--connect-timeout", "60s", "call", "mute/anything"}, env_,
                    dir_.path());
    ASSERT_TRUE(call.wait_for("mcph: connecting mute... (Ctrl-C ends the command)")) << call.output();
    call.type("\x03");
    EXPECT_EQ(call.wait_exit(), 130) << call.output();
}

// Without a terminal the same wait prints nothing of the kind: scripts read stderr too.
TEST_F(CliShell, AOneShotCommandWithoutATerminalWaitsWithoutANotice) {
    write_file(config_, "{\"mcpServers\":{\"mem\":" + fake_server_config_text({"--mode", "memory"}) + ",\"mute\":" +
                            fake_server_config_text({"--mode", "no-init"}) + "}}");
    const CliResult r =
        run_cli({"--strict-mcp-config", "--mcp-config", config_, "--connect-timeout", "2s", "tools"}, env_, dir_.path());
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_NE(r.out.find("did not answer initialize within 2000 ms"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mcp__mem__remember"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("mcph: connecting"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mcph::test
