// The CLI's argument parser: global options before the command, the command's own options after
// it, `--`, unknown options, durations, and "did you mean".
#include "command_table.hpp"
#include "did_you_mean.hpp"
#include "options.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using mcph::cli::parse_options;

mcph::cli::Options parse(std::vector<std::string> words) {
    words.insert(words.begin(), "mcph");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    return parse_options(static_cast<int>(words.size()), argv.data());
}

std::string usage_error(std::vector<std::string> words) {
    try {
        parse(std::move(words));
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
}

TEST(CliOptions, AddTakesClaudeCodeSyntax) {
    const auto o = parse({"add", "-s", "user", "--transport", "http", "-H", "A: b", "api", "https://x/mcp"});
    EXPECT_EQ(o.scope, "user");
    EXPECT_EQ(o.transport, "http");
    ASSERT_EQ(o.headers.size(), 1u);
    EXPECT_EQ(o.args, (std::vector<std::string>{"api", "https://x/mcp"}));
}

TEST(CliOptions, DashDashEndsOptionsAndServerArgumentsStayTheServers) {
    const auto a = parse({"add", "memory", "--", "node", "x.js", "--json"});
    EXPECT_TRUE(a.dash_dash);
    EXPECT_FALSE(a.json);
    EXPECT_EQ(a.args, (std::vector<std::string>{"memory", "node", "x.js", "--json"}));
    const auto b = parse({"add", "-e", "FOO=bar", "srv1", "mytool", "--timeout", "30", "--json"});
    EXPECT_FALSE(b.json);
    EXPECT_FALSE(b.timeout);
    EXPECT_EQ(b.env, (std::vector<std::string>{"FOO=bar"}));
    EXPECT_EQ(b.args, (std::vector<std::string>{"srv1", "mytool", "--timeout", "30", "--json"}));
}

TEST(CliOptions, UnknownOptionsNameTheCommandsHelp) {
    EXPECT_NE(usage_error({"tools", "--nope"}).find("unknown option --nope for `mcph tools` (see `mcph tools --help`)"),
              std::string::npos);
    EXPECT_NE(usage_error({"--nope", "tools"}).find("unknown option --nope"), std::string::npos);
    // An option of another command is not this one's.
    EXPECT_NE(usage_error({"servers", "--scope", "user"}).find("unknown option --scope for `mcph servers`"), std::string::npos);
    EXPECT_NE(usage_error({"add", "--transprt", "http", "a", "http://x"}).find("did you mean '--transport'"), std::string::npos);
    EXPECT_NE(usage_error({"tols"}).find("did you mean 'tools'"), std::string::npos);
}

TEST(CliOptions, HelpOfACommand) {
    const auto a = parse({"help", "add"});
    EXPECT_TRUE(a.help);
    EXPECT_EQ(a.command, "add");
    const auto b = parse({"get", "--help"});
    EXPECT_TRUE(b.help);
    EXPECT_EQ(b.command, "get");
    const std::string text = mcph::cli::command_help(*mcph::cli::find_command("add"));
    EXPECT_NE(text.find("-e, --env <K=V>"), std::string::npos) << text;
    EXPECT_NE(text.find("Examples:"), std::string::npos) << text;
}

TEST(CliOptions, Durations) {
    using std::chrono::milliseconds;
    bool bare = false;
    EXPECT_EQ(mcph::cli::parse_duration("5", &bare), milliseconds(5000));
    EXPECT_TRUE(bare);
    EXPECT_EQ(mcph::cli::parse_duration("500ms", &bare), milliseconds(500));
    EXPECT_FALSE(bare);
    EXPECT_EQ(mcph::cli::parse_duration("2m"), milliseconds(120000));
    for (const char* bad : {"0", "-5s", "0ms", "0.4ms", "soon", "5h", "nan", "1e30s"})
        EXPECT_THROW(mcph::cli::parse_duration(bad), mcph::Error) << bad;
    const auto o = parse({"--timeout", "5", "tools"});
    ASSERT_EQ(o.warnings.size(), 1u);
    EXPECT_NE(o.warnings[0].find("read as 5s"), std::string::npos);
}

TEST(CliOptions, GlobalOptionsBeforeTheCommandCommandOptionsAfter) {
    const auto o = parse({"--json", "--mcp-config", "{}", "tools", "--brief", "h"});
    EXPECT_TRUE(o.json);
    EXPECT_TRUE(o.brief);
    EXPECT_EQ(o.args, (std::vector<std::string>{"h"}));
    EXPECT_NE(usage_error({"tools", "--mcp-config", "{}"}).find("unknown option --mcp-config for `mcph tools`"),
              std::string::npos);
}

TEST(DidYouMean, NearNamesOnly) {
    EXPECT_EQ(mcph::cli::closest_name("hh", {"h", "github"}), "h");
    EXPECT_EQ(mcph::cli::closest_name("gthub", {"h", "github"}), "github");
    EXPECT_EQ(mcph::cli::closest_name("zzzzzz", {"h", "github"}), "");
    EXPECT_EQ(mcph::cli::closest_name(std::string(10000, 'a'), {"a"}), "");  // bounded work
}

TEST(DidYouMean, AdjacentSwapIsOneEdit) {
    EXPECT_EQ(mcph::cli::edit_distance("kye", "key"), 1u);
    EXPECT_EQ(mcph::cli::edit_distance("ab", "ba"), 1u);
    EXPECT_EQ(mcph::cli::edit_distance("abc", "ca"), 3u);  // no substring edited twice
    EXPECT_EQ(mcph::cli::edit_distance("", "abc"), 3u);
    EXPECT_EQ(mcph::cli::edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(mcph::cli::closest_name("kye", {"key", "github"}), "key");
    EXPECT_EQ(mcph::cli::closest_name("lsit", {"list", "forget"}), "list");
}

}  // namespace

namespace {

// --root: global, repeatable, made canonical when parsed; a missing or non-directory one is a
// usage error naming it.
TEST(CliOptions, RootIsGlobalRepeatableAndCanonical) {
    char pattern[] = "/tmp/mcph-root-opt-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    const std::filesystem::path dir = std::filesystem::canonical(pattern);
    std::filesystem::create_directories(dir / "a");
    std::filesystem::create_symlink(dir / "a", dir / "link");
    const auto o = parse({"--root", (dir / "link").string(), "--root=" + (dir / "a" / ".." / "a").string(), "tools"});
    EXPECT_EQ(o.roots, (std::vector<std::filesystem::path>{dir / "a", dir / "a"}));  // the callback drops the duplicate
    EXPECT_NE(usage_error({"--root", (dir / "none").string(), "tools"}).find("--root " + (dir / "none").string() + ": No such file"),
              std::string::npos);
    std::filesystem::remove(dir / "link");
    EXPECT_NE(usage_error({"tools", "--root", dir.string()}).find("unknown option --root for `mcph tools`"), std::string::npos);
    std::filesystem::remove_all(dir);
}

}  // namespace
