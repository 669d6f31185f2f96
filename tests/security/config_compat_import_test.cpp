// `mcph import` (issue #14): other clients' config files, as those editors write them
// (tests/fixtures/editor-configs/), copied into one of mcph's scopes by the real `mcph` binary.
// Each case checks the files on disk: what was written, and that a refused import wrote nothing.
//  - Claude Desktop's file (found at ~/.config/Claude/) imports, and the imported servers connect;
//  - a second import skips the names already in the scope (exit 1, each named); --force replaces;
//  - --dry-run writes nothing;
//  - a malformed file is refused whole, naming line and column (exit 2, no file created);
//  - a bad name, an entry that does not validate and a VS Code ${input:} entry are each refused
//    with the reason while the rest are imported (exit 1);
//  - an unknown source, a missing file, or a name the file does not have: exit 2, nothing written;
//  - Claude Code's stdio entries are written with "inheritEnv": true unless they set their own (the
//    output names them); its remote entries, and the same file imported as a FILE, are not;
//  - Claude Code's servers for this directory (~/.claude.json "projects") are imported too and win
//    over .mcp.json and its user servers; another directory's are not.
#include "config_compat_support.hpp"
#include "governance_support.hpp"
#include "peer_process.hpp"
#include "test_support.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ConfigCompatImport : public ::testing::Test {
protected:
    ConfigCompatImport() : dir_("config-import") {
        where_ = {.repo = dir_ / "repo", .config_home = dir_ / "config-home", .managed = dir_ / "managed", .home = dir_ / "home"};
        where_.create();
        env_ = where_.env();
        env_["XDG_CONFIG_HOME"] = "";  // unset: the Claude Desktop file is under $HOME/.config
    }

    CliResult mcph(std::vector<std::string> args) {
        args.insert(args.begin(), {"--plugin-dir", plugin_dir().string()});
        return run_cli(args, env_, where_.repo, 20s);
    }

    // Every regular file under the config home (where local and user scope write).
    std::vector<fs::path> written() const {
        std::vector<fs::path> out;
        std::error_code ec;
        for (fs::recursive_directory_iterator it(where_.config_home, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file()) out.push_back(it->path());
        return out;
    }

    void claude_desktop_file() {
        fs::create_directories(where_.home / ".config" / "Claude");
        fs::copy_file(fixtures() / "claude_desktop_config.json", where_.home / ".config" / "Claude" / "claude_desktop_config.json");
    }

    TempDir dir_;
    CliLocations where_;
    std::map<std::string, std::string> env_;
};

TEST_F(ConfigCompatImport, ClaudeDesktopEntriesArriveInLocalScopeAndConnect) {
    if (hello_server_path().empty()) GTEST_SKIP() << "no hello-server target in this build";
    claude_desktop_file();
    const CliResult r = mcph({"import", "claude-desktop", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    Json doc = parse_or_fail(r.out, "import --json");
    EXPECT_EQ(doc["schemaVersion"].GetInt(), 1);
    EXPECT_EQ(string_at(doc, "scope"), "local");
    EXPECT_EQ(names_in(member_at(doc, "imported")), (std::vector<std::string>{"hello", "fake"}));
    EXPECT_TRUE(doc["skipped"].Empty() && doc["refused"].Empty()) << r.out;
    // Written as the entries were (${VAR} kept, not expanded), in the local settings file.
    const std::vector<fs::path> files = written();
    ASSERT_EQ(files.size(), 1u) << r.describe();
    EXPECT_EQ(files[0].filename(), "settings.local.json");
    Json saved = parse_or_fail(read_file(files[0]), "local settings");
    EXPECT_EQ(string_at(saved["mcpServers"]["hello"], "command"), "${MCPH_FIXTURE_HELLO_SERVER}");
    EXPECT_FALSE(saved.HasMember("globalShortcut")) << "only servers are imported";
    // Nothing ran during the import; now the imported servers connect.
    env_["MCPH_FIXTURE_HELLO_SERVER"] = hello_server_path().string();
    env_["MCPH_FIXTURE_FAKE_SERVER"] = fake_server_path().string();
    const CliResult status = mcph({"status", "--json"});
    EXPECT_EQ(status.exit_code, 0) << status.describe();
    Json view = parse_or_fail(status.out, "status --json");
    for (const char* name : {"hello", "fake"}) {
        const JsonValue* s = find_named(member_at(view, "servers"), name);
        ASSERT_NE(s, nullptr) << name << ": " << status.out;
        EXPECT_EQ(string_at(*s, "state"), "connected") << name << ": " << status.out;
    }
}

TEST_F(ConfigCompatImport, NamesAlreadyInTheScopeAreSkippedUnlessForced) {
    claude_desktop_file();
    ASSERT_EQ(mcph({"import", "claude-desktop"}).exit_code, 0);
    const fs::path local = written().at(0);
    const std::string first = read_file(local);
    const CliResult again = mcph({"import", "claude-desktop"});
    EXPECT_EQ(again.exit_code, 1) << "some entries did not arrive: " << again.describe();
    EXPECT_TRUE(contains(again.out, "skipped 'hello': a server of that name is already configured")) << again.describe();
    EXPECT_TRUE(contains(again.out, "skipped 'fake'")) << again.describe();
    EXPECT_EQ(read_file(local), first) << "a skipped entry is not written";
    // --force replaces in place, one name only when named.
    write_file(where_.home / "other.json", R"({"mcpServers":{"fake":{"command":"/bin/true","args":["x"]}}})");
    const CliResult forced = mcph({"import", (where_.home / "other.json").string(), "--force", "fake"});
    EXPECT_EQ(forced.exit_code, 0) << forced.describe();
    Json saved = parse_or_fail(read_file(local), "local settings");
    EXPECT_EQ(string_at(saved["mcpServers"]["fake"], "command"), "/bin/true");
    EXPECT_EQ(string_at(saved["mcpServers"]["hello"], "command"), "${MCPH_FIXTURE_HELLO_SERVER}");
}

TEST_F(ConfigCompatImport, DryRunWritesNothing) {
    claude_desktop_file();
    const CliResult r = mcph({"import", "claude-desktop", "--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "would import 'hello'")) << r.describe();
    EXPECT_TRUE(contains(r.out, "nothing written")) << r.describe();
    EXPECT_TRUE(written().empty()) << "a dry run wrote " << written().at(0);
}

TEST_F(ConfigCompatImport, AMalformedFileIsRefusedWholeNamingLineAndColumn) {
    write_file(where_.home / "bad.json", "{\"mcpServers\": {\n  \"ok\": {\"command\": \"x\"},\n  \"a\": {\"command\": \"x\",,}}}");
    const CliResult r = mcph({"import", (where_.home / "bad.json").string()});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "line 3, column")) << r.describe();
    EXPECT_TRUE(contains(r.err, "nothing was written")) << r.describe();
    EXPECT_TRUE(written().empty()) << "not even the good entry: " << written().at(0);
    // A document that is not an object, or whose servers are not an object: also whole.
    write_file(where_.home / "list.json", R"({"mcpServers": ["x"]})");
    const CliResult list = mcph({"import", (where_.home / "list.json").string()});
    EXPECT_EQ(list.exit_code, 2) << list.describe();
    EXPECT_TRUE(written().empty());
}

TEST_F(ConfigCompatImport, BadEntriesAreRefusedOneByOneAndTheRestImported) {
    write_file(where_.home / "mixed.json",
               R"({"mcpServers": {"good": {"command": "/bin/true"}, "-e": {"command": "x"}, "has space": {"command": "x"},
                   "typed": {"command": 3}, "remote": {"type": "http"}, "also-good": {"type": "streamable-http", "url": "https://example.com/mcp"}}})");
    const CliResult r = mcph({"import", (where_.home / "mixed.json").string(), "-s", "user", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    Json doc = parse_or_fail(r.out, "import --json");
    EXPECT_EQ(names_in(member_at(doc, "imported")), (std::vector<std::string>{"good", "also-good"}));
    EXPECT_EQ(names_in(member_at(doc, "refused")), (std::vector<std::string>{"-e", "has space", "typed", "remote"}));
    EXPECT_TRUE(contains(string_at(*find_named(member_at(doc, "refused"), "-e"), "reason"), "invalid server name")) << r.out;
    EXPECT_TRUE(contains(string_at(*find_named(member_at(doc, "refused"), "typed"), "reason"), "command")) << r.out;
    EXPECT_TRUE(contains(string_at(*find_named(member_at(doc, "refused"), "remote"), "reason"), "url")) << r.out;
    Json saved = parse_or_fail(read_file(where_.config_home / "settings.json"), "user settings");
    EXPECT_TRUE(saved["mcpServers"].HasMember("good") && saved["mcpServers"].HasMember("also-good"));
    EXPECT_EQ(saved["mcpServers"].MemberCount(), 2u) << read_file(where_.config_home / "settings.json");
}

TEST_F(ConfigCompatImport, VsCodeEntryUsingAnInputIsRefusedNamingIt) {
    fs::create_directories(where_.repo / ".vscode");
    fs::copy_file(fixtures() / "vscode" / ".vscode" / "mcp.json", where_.repo / ".vscode" / "mcp.json");
    const CliResult r = mcph({"import", "vscode", "-s", "project"});
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_TRUE(contains(r.out, "imported 'hello'")) << r.describe();
    EXPECT_TRUE(contains(r.out, "refused 'fake': it uses the VS Code input ${input:fake-api-key}")) << r.describe();
    // The JSONC source's comments are gone; the entry keeps its ${workspaceFolder}/${/} references.
    Json saved = parse_or_fail(read_file(where_.repo / ".mcp.json"), ".mcp.json");
    EXPECT_EQ(string_at(saved["mcpServers"]["hello"], "command"), "${workspaceFolder}${/}bin${/}hello-server");
    EXPECT_FALSE(saved["mcpServers"].HasMember("fake"));
}

TEST_F(ConfigCompatImport, ClaudeCodeStdioEntriesKeepTheWholeEnvironmentUnlessTheySayOtherwise) {
    const std::string claude_json =
        R"({"mcpServers": {"plain": {"command": "/bin/true"}, "typed": {"type": "stdio", "command": "/bin/true"},
                           "narrow": {"command": "/bin/true", "inheritEnv": ["AWS_*"]}, "off": {"command": "/bin/true", "inheritEnv": false},
                           "remote": {"type": "http", "url": "https://example.com/mcp"}}})";
    write_file(where_.home / ".claude.json", claude_json);
    const CliResult r = mcph({"import", "claude-code", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    Json doc = parse_or_fail(r.out, "import --json");
    for (const char* name : {"plain", "typed", "narrow", "off", "remote"}) {
        const JsonValue* item = find_named(member_at(doc, "imported"), name);
        ASSERT_NE(item, nullptr) << name << ": " << r.out;
        const bool added = std::string(name) == "plain" || std::string(name) == "typed";
        EXPECT_EQ(item->HasMember("inheritEnvAdded"), added) << name << ": " << r.out;
    }
    const std::vector<fs::path> files = written();
    ASSERT_EQ(files.size(), 1u) << r.describe();
    Json saved = parse_or_fail(read_file(files[0]), "local settings");
    const JsonValue& servers = saved["mcpServers"];
    EXPECT_EQ(to_json(servers["plain"]["inheritEnv"]), "true");
    EXPECT_EQ(to_json(servers["typed"]["inheritEnv"]), "true");
    EXPECT_EQ(to_json(servers["narrow"]["inheritEnv"]), R"(["AWS_*"])") << "the source's own value is kept";
    EXPECT_EQ(to_json(servers["off"]["inheritEnv"]), "false") << "the source's own value is kept";
    EXPECT_FALSE(servers["remote"].HasMember("inheritEnv")) << "not a stdio server";
    // The text output names the entry and says why; the same file as a FILE source is copied as written.
    const CliResult text = mcph({"import", "claude-code", "--dry-run", "-s", "project", "plain"});
    EXPECT_TRUE(contains(text.out, "would import 'plain' from " + (where_.home / ".claude.json").string() +
                                       " with \"inheritEnv\": true (Claude Code passes its whole environment"))
        << text.describe();
    const CliResult as_file = mcph({"import", (where_.home / ".claude.json").string(), "-s", "user", "plain"});
    ASSERT_EQ(as_file.exit_code, 0) << as_file.describe();
    EXPECT_FALSE(contains(as_file.out, "inheritEnv")) << as_file.describe();
    Json user = parse_or_fail(read_file(where_.config_home / "settings.json"), "user settings");
    EXPECT_FALSE(user["mcpServers"]["plain"].HasMember("inheritEnv")) << read_file(where_.config_home / "settings.json");
}

TEST_F(ConfigCompatImport, ClaudeCodeServersOfThisDirectoryAreImportedAndWin) {
    // Claude Code keys a directory's servers by its absolute path (the CLI runs in where_.repo).
    const std::string here = fs::canonical(where_.repo).string();
    const std::string claude_json =
        R"({"mcpServers": {"shared": {"command": "/bin/user"}, "user-only": {"command": "/bin/true"}},
            "projects": {")" + here + R"(": {"mcpServers": {"shared": {"command": "/bin/local"}, "local-only": {"command": "/bin/true"}}},
                         "/somewhere/else": {"mcpServers": {"elsewhere": {"command": "/bin/true"}}}}})";
    write_file(where_.home / ".claude.json", claude_json);
    write_file(where_.repo / ".mcp.json", R"({"mcpServers": {"shared": {"command": "/bin/project"}, "project-only": {"command": "/bin/true"}}})");
    const CliResult r = mcph({"import", "claude-code", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    Json doc = parse_or_fail(r.out, "import --json");
    for (const char* name : {"shared", "user-only", "local-only", "project-only"})
        EXPECT_NE(find_named(member_at(doc, "imported"), name), nullptr) << name << ": " << r.out;
    EXPECT_EQ(find_named(member_at(doc, "imported"), "elsewhere"), nullptr) << "another directory's server: " << r.out;
    const JsonValue* shared = find_named(member_at(doc, "imported"), "shared");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(string_at(*shared, "from"), (where_.home / ".claude.json").string() + " (project " + here + ")");
    Json saved = parse_or_fail(read_file(written().at(0)), "local settings");
    EXPECT_EQ(string_at(saved["mcpServers"]["shared"], "command"), "/bin/local") << "this directory's entry wins, as in Claude Code";
    // A malformed servers value of this directory is refused whole, naming where it is.
    write_file(where_.home / ".claude.json", R"({"projects": {")" + here + R"(": {"mcpServers": ["x"]}}})");
    const CliResult bad = mcph({"import", "claude-code", "--force"});
    EXPECT_EQ(bad.exit_code, 2) << bad.describe();
    EXPECT_TRUE(contains(bad.err, "(project " + here + "): the servers must be an object")) << bad.describe();
}

TEST_F(ConfigCompatImport, BadSourcesAreUsageErrorsAndWriteNothing) {
    const CliResult none = mcph({"import", "claude-desktop"});
    EXPECT_EQ(none.exit_code, 2) << none.describe();
    EXPECT_TRUE(contains(none.err, "claude_desktop_config.json")) << "names where it looked: " << none.describe();
    const CliResult missing = mcph({"import", (where_.home / "nope.json").string()});
    EXPECT_EQ(missing.exit_code, 2) << missing.describe();
    claude_desktop_file();
    const CliResult unknown_name = mcph({"import", "claude-desktop", "hello", "nosuch"});
    EXPECT_EQ(unknown_name.exit_code, 2) << unknown_name.describe();
    EXPECT_TRUE(contains(unknown_name.err, "no server named 'nosuch'")) << unknown_name.describe();
    const CliResult no_args = mcph({"import"});
    EXPECT_EQ(no_args.exit_code, 2) << no_args.describe();
    const CliResult bad_option = mcph({"import", "claude-desktop", "--transport", "stdio"});
    EXPECT_EQ(bad_option.exit_code, 2) << bad_option.describe();
    EXPECT_TRUE(written().empty()) << written().at(0);
}

}  // namespace
}  // namespace mcph::test
