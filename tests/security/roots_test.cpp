// Issue #14: roots were always the working directory, and server-filesystem then replaced its
// folders with the cwd (a race on the first call). Now `--root DIR` (repeatable) and a "roots" key
// (per server, and a default in the settings) decide what roots/list answers; a repository's file
// may name only folders inside the repository (a committed "roots": ["~/.ssh"] must not point an
// approved filesystem server at the user's keys). Real processes: the built `mcph`,
// fake-mcp-server --mode ask-roots (every tool call asks roots/list and answers with the client's
// answer as text) and the real @modelcontextprotocol/server-filesystem on the pinned Node.
#include "trust_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

// {"uri":"file://<dir>","name":"<basename>"} as the host sends it (the only byte to escape in
// these test folders is the space of "a dir").
std::string root_json(const fs::path& dir) {
    std::string uri = "file://";
    for (char c : dir.string()) uri += c == ' ' ? std::string("%20") : std::string(1, c);
    return "{\"uri\":\"" + uri + "\",\"name\":\"" + dir.filename().string() + "\"}";
}

std::string roots_json(const std::vector<fs::path>& dirs) {
    std::string out = "{\"roots\":[";
    for (std::size_t i = 0; i < dirs.size(); ++i) out += (i ? "," : "") + root_json(dirs[i]);
    return out + "]}";
}

std::string ask_roots_server(const std::string& roots_member = "") {
    std::string entry = fake_server_config_text({"--mode", "ask-roots"});
    if (!roots_member.empty()) entry = entry.substr(0, entry.size() - 1) + ",\"roots\":" + roots_member + "}";
    return entry;
}

class Roots : public ::testing::Test {
protected:
    Roots() {
        fs::create_directories(t.repo / "docs");
        fs::create_directories(t.dir / "a dir");
        fs::create_directories(t.dir / "b");
        fs::create_directories(t.home / ".ssh");
        repo = fs::canonical(t.repo);
        a = fs::canonical(t.dir / "a dir");
        b = fs::canonical(t.dir / "b");
    }
    TrustTree t;
    fs::path repo, a, b;
};

TEST_F(Roots, RootTwiceOffersBothDirectoriesEncodedAndReplacesTheConfiguredOnes) {
    const std::string config = "{\"mcpServers\":{\"s\":" + ask_roots_server("[\"/tmp\"]") + "}}";
    // Spelled relative and with a trailing "/.": sent canonical, "a dir" percent-encoded.
    const CliResult r = t.mcph({"--root", a.string() + "/.", "--root", fs::relative(b, t.repo).string(), "--strict-mcp-config",
                                "--mcp-config", config, "call", "s/work"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, roots_json({a, b}))) << r.describe();
    EXPECT_TRUE(contains(r.out, "/a%20dir\",\"name\":\"a dir\"")) << r.describe();
    EXPECT_FALSE(contains(r.out, "file:///tmp\"")) << "--root replaces the configured roots\n" << r.describe();
}

TEST_F(Roots, AMissingOrNonDirectoryRootExitsTwoNamingItAndStartsNothing) {
    const fs::path marker = t.dir / "server-ran";
    const std::string config = "{\"mcpServers\":{\"s\":" + marker_server(marker, {"--mode", "ask-roots"}) + "}}";
    const std::string missing = (t.dir / "no-such-dir").string();
    const CliResult r = t.mcph({"--root", a.string(), "--root", missing, "--mcp-config", config, "call", "s/work"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "--root " + missing + ": No such file or directory")) << r.describe();
    write_file(t.dir / "plain-file", "x");
    const CliResult file = t.mcph({"--root", (t.dir / "plain-file").string(), "--mcp-config", config, "call", "s/work"});
    EXPECT_EQ(file.exit_code, 2) << file.describe();
    EXPECT_TRUE(contains(file.err, "--root " + (t.dir / "plain-file").string() + ": not a directory")) << file.describe();
    // The CLI exited before making a host: no server was started.
    EXPECT_FALSE(fs::exists(marker)) << t.last;
}

TEST_F(Roots, TheConfigKeyPerServerAndTheSettingsDefaultPerServerWins) {
    write_file(t.config_home / "settings.json", "{\"roots\":[\"~/.ssh\"],\"mcpServers\":{\"own\":" +
                                                    ask_roots_server("[\"" + a.string() + "\",\"" + b.string() + "\"]") +
                                                    ",\"dflt\":" + ask_roots_server() + ",\"none\":" + ask_roots_server("[]") + "}}");
    const fs::path ssh = fs::canonical(t.home / ".ssh");
    const CliResult own = t.mcph({"call", "own/work"});
    ASSERT_EQ(own.exit_code, 0) << own.describe();
    EXPECT_TRUE(contains(own.out, roots_json({a, b}))) << own.describe();
    const CliResult dflt = t.mcph({"call", "dflt/work"});
    ASSERT_EQ(dflt.exit_code, 0) << dflt.describe();
    EXPECT_TRUE(contains(dflt.out, roots_json({ssh}))) << "the user's own default may name anything\n" << dflt.describe();
    const CliResult none = t.mcph({"call", "none/work"});
    ASSERT_EQ(none.exit_code, 0) << none.describe();
    EXPECT_TRUE(contains(none.out, "{\"roots\":[]}")) << none.describe();
    // --root over both.
    const CliResult over = t.mcph({"--root", b.string(), "call", "own/work"});
    ASSERT_EQ(over.exit_code, 0) << over.describe();
    EXPECT_TRUE(contains(over.out, roots_json({b}))) << over.describe();
    // No list anywhere: the working directory, as before.
    write_file(t.config_home / "settings.json", "{\"mcpServers\":{\"dflt\":" + ask_roots_server() + "}}");
    const CliResult cwd = t.mcph({"call", "dflt/work"}, t.repo / "docs");
    ASSERT_EQ(cwd.exit_code, 0) << cwd.describe();
    EXPECT_TRUE(contains(cwd.out, roots_json({repo / "docs"}))) << cwd.describe();
}

TEST_F(Roots, AProjectFilesRootsOutsideTheRepositoryAreRefusedForThatServer) {
    const fs::path marker = t.dir / "escaping-server-ran";
    fs::create_symlink(t.home / ".ssh", t.repo / "keys");
    std::string escaping = marker_server(marker, {"--mode", "ask-roots"});
    escaping = escaping.substr(0, escaping.size() - 1) + ",\"roots\":[\"docs\",\"keys\"]}";
    write_file(t.repo / ".mcp.json", "{\"mcpServers\":{\"esc\":" + escaping + ",\"home\":" + ask_roots_server("[\"~/.ssh\"]") +
                                         ",\"ok\":" + ask_roots_server("[\"docs\",\"${workspaceFolder}\"]") + "}}");
    const Json doc = t.status();
    const std::string problems = problems_about(doc, (t.repo / ".mcp.json").string());
    const std::string ssh = fs::canonical(t.home / ".ssh").string();
    EXPECT_TRUE(contains(problems, "server 'esc': roots: \"keys\" resolves to " + ssh + ", outside the project " + repo.string()))
        << t.last;
    EXPECT_TRUE(contains(problems, "server 'home': roots: \"~/.ssh\" resolves to " + ssh)) << t.last;
    // The refused servers cannot even be approved; the good one can, and gets its roots.
    const CliResult approve_esc = t.mcph({"approve", "esc"});
    EXPECT_NE(approve_esc.exit_code, 0) << approve_esc.describe();
    ASSERT_EQ(t.mcph({"approve", "ok"}).exit_code, 0) << t.last;
    const CliResult ok = t.mcph({"call", "ok/work"});
    ASSERT_EQ(ok.exit_code, 0) << ok.describe();
    EXPECT_TRUE(contains(ok.out, roots_json({repo / "docs", repo}))) << ok.describe();
    const CliResult tools = t.mcph({"tools"});
    EXPECT_FALSE(contains(tools.out, "mcp__esc__")) << tools.describe();
    EXPECT_FALSE(fs::exists(marker)) << "a server whose roots leave the repository was started\n" << t.last;
}

// The real server-filesystem, started with its own folder D: it asks roots/list right after
// initialize and replaces D with the answer, asynchronously. The very first call must see the
// roots: --root A, then the "roots" key; an empty list leaves the server its own folder.
TEST_F(Roots, RealServerFilesystemListsTheRootsOnTheFirstCall) {
    const fs::path server = peers_dir() / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js";
    ASSERT_TRUE(fs::exists(node_path())) << "Node is missing: " << node_path() << " (run scripts/setup.sh)";
    ASSERT_TRUE(fs::exists(server)) << "server-filesystem is missing: " << server << " (run scripts/setup.sh)";
    fs::create_directories(t.dir / "D");
    const fs::path d = fs::canonical(t.dir / "D");
    const auto config = [&](const std::string& roots) {
        return "{\"mcpServers\":{\"fs\":{\"command\":" + json_quote(node_path().string()) + ",\"args\":[" +
               json_quote(server.string()) + "," + json_quote(d.string()) + "]" + (roots.empty() ? "" : ",\"roots\":" + roots) +
               "}}}";
    };
    for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE(run);
        const CliResult r = t.mcph({"--root", a.string(), "--strict-mcp-config", "--mcp-config", config(""), "call",
                                    "fs/list_allowed_directories"});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        EXPECT_TRUE(contains(r.out, "Allowed directories:\n" + a.string() + "\n")) << r.describe();
        EXPECT_FALSE(contains(r.out, d.string())) << r.describe();
        EXPECT_FALSE(contains(r.out, repo.string())) << "the cwd is not a root with --root\n" << r.describe();
    }
    const CliResult key = t.mcph({"--strict-mcp-config", "--mcp-config", config("[" + json_quote(b.string()) + "]"), "call",
                                  "fs/list_allowed_directories"});
    ASSERT_EQ(key.exit_code, 0) << key.describe();
    EXPECT_TRUE(contains(key.out, "Allowed directories:\n" + b.string() + "\n")) << key.describe();
    const CliResult empty = t.mcph({"--strict-mcp-config", "--mcp-config", config("[]"), "call", "fs/list_allowed_directories"});
    ASSERT_EQ(empty.exit_code, 0) << empty.describe();
    EXPECT_TRUE(contains(empty.out, "Allowed directories:\n" + d.string() + "\n"))
        << "no roots: the server keeps its own folder\n" << empty.describe();
}

}  // namespace
}  // namespace mcph::test
