// Elicitation on a terminal: the real `mcph` binary on a pty answers a server's elicitation/create
// form, typed by the test. The fake server (--elicit-file) echoes the client's answer back as the
// tool's result text, so each test asserts the exact JSON the server received: wrong answers are
// asked again (an enum value outside the list, 5000 for a 0-1000 range, `maybe` for a boolean), a
// multi-select is sent as an array, numbers as numbers; an empty confirm declines, Ctrl-D cancels;
// a hostile title is shown escaped; a URL-mode request is never opened without consent. One test
// answers server-everything's own form (trigger-elicitation-request) when the npm peers exist.
#include "governance_support.hpp"
#include "trust_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

class CliForms : public ::testing::Test {
protected:
    void SetUp() override {
        env_ = {{"MCPH_CONFIG_HOME", (dir_ / "config-home").string()},
                {"MCPH_MANAGED_DIR", (dir_ / "managed").string()},
                {"HOME", (dir_ / "home").string()},
                {"MCPH_SECRET_STORE", "file"},
                {"BROWSER", browser_.string()}};
        fs::create_directories(dir_ / "home");
        // A "browser" that only records the URL it was given: proof, after the CLI exits, of
        // whether mcph opened anything.
        write_file(browser_, "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '" + (dir_ / "opened").string() + "'\n");
        ::chmod(browser_.c_str(), 0755);
    }

    // `mcph call fake/work` with the fake asking `params` (an elicitation/create params object),
    // typing `input` on the terminal.
    CliResult call_fake(const std::string& params, const std::string& input) {
        const fs::path file = dir_ / "elicit.json";
        write_file(file, params);
        const std::string config = "{\"mcpServers\":{\"fake\":{\"command\":" + json_quote(fake_server_path().string()) +
                                   ",\"args\":[\"--elicit-file\"," + json_quote(file.string()) + "]}}}";
        return run_cli_on_tty({"--strict-mcp-config", "--mcp-config", config, "call", "fake/work", "--timeout", "15s"}, env_,
                              dir_.path(), input);
    }

    // The JSON the server received: the line of the tool's result text that starts with `{`.
    static Json received(const CliResult& r) {
        const auto at = r.out.find("{\"action\"");
        if (at == std::string::npos) {
            ADD_FAILURE() << "no elicitation result in the output\n" << r.describe();
            return Json();
        }
        std::string line = r.out.substr(at, r.out.find('\n', at) - at);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        return parse_or_fail(line, "the elicitation result the server received");
    }

    static std::size_t occurrences(const std::string& text, const std::string& needle) {
        std::size_t n = 0;
        for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
        return n;
    }

    bool browser_opened() const { return fs::exists(dir_ / "opened"); }

    TempDir dir_{"cli-forms"};
    fs::path browser_ = dir_ / "browser.sh";
    std::map<std::string, std::string> env_;
};

constexpr const char* kForm = R"({
  "message": "Order \u001b[2Jsome paint",
  "requestedSchema": {
    "type": "object",
    "properties": {
      "color": {"type": "string", "title": "Colour \u001b]52;c;aGVsbG8=\u0007", "description": "Which tin",
                "enum": ["red", "green", "blue"]},
      "count": {"type": "integer", "title": "How many", "minimum": 0, "maximum": 1000},
      "agree": {"type": "boolean", "title": "Agree to the terms"},
      "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["matte", "gloss", "satin"]},
               "minItems": 1},
      "note": {"type": "string", "title": "Note", "maxLength": 20},
      "size": {"type": "string", "title": "Size", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
               "default": "s"}
    },
    "required": ["color", "count", "agree", "tags"]
  }
})";

TEST_F(CliForms, WrongAnswersAreAskedAgainAndTheServerReceivesTypedValues) {
    // purple: not a choice; 5000: outside 0-1000; maybe: not a yes/no; then valid answers. The
    // note is left out (optional, no default), the size takes its default.
    const CliResult r = call_fake(kForm, "purple\n2\n5000\n42\nmaybe\nyes\nmatte,3\n\n\ny\n");
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    const Json got = received(r);
    const Json want = [] {
        Json j;
        j.Parse(R"({"action":"accept","content":{"color":"green","count":42,"agree":true,"tags":["matte","satin"],"size":"s"}})");
        return j;
    }();
    EXPECT_TRUE(got == want) << "received " << to_json(got) << "\n" << r.out;
    EXPECT_TRUE(got["content"]["count"].IsInt64()) << "an integer is sent as a number";
    EXPECT_EQ(occurrences(r.out, "not accepted"), 3u) << r.out;
    EXPECT_TRUE(contains(r.out, "from 0 to 1000")) << r.out;
    EXPECT_TRUE(contains(r.out, "yes or no")) << r.out;
    // The form shows titles, descriptions, numbered choices, required markers and the default.
    EXPECT_TRUE(contains(r.out, "Which tin")) << r.out;
    EXPECT_TRUE(contains(r.out, "2) green")) << r.out;
    EXPECT_TRUE(contains(r.out, "1) Small  (s)")) << r.out;
    EXPECT_TRUE(contains(r.out, "How many [count]  (required)")) << r.out;
    EXPECT_TRUE(contains(r.out, "Note [note]  (optional)")) << r.out;
    EXPECT_TRUE(contains(r.out, "the default \"s\"")) << r.out;
}

TEST_F(CliForms, HostileTitleAndMessageAreShownEscaped) {
    const CliResult r = call_fake(kForm, "\x04");
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_TRUE(contains(r.out, "Colour \\x1b]52;c;aGVsbG8=\\x07")) << r.out;
    EXPECT_TRUE(contains(r.out, "Order \\x1b[2Jsome paint")) << r.out;
    EXPECT_FALSE(contains(r.out, "\x1b]52")) << "a raw OSC 52 (clipboard write) reached the terminal";
    EXPECT_FALSE(contains(r.out, "\x1b[2J")) << "a raw clear-screen reached the terminal";
}

TEST_F(CliForms, CtrlDCancelsAndAnEmptyConfirmDeclines) {
    const CliResult cancelled = call_fake(kForm, "\x04");
    ASSERT_FALSE(cancelled.timed_out) << cancelled.describe();
    EXPECT_EQ(to_json(received(cancelled)), R"({"action":"cancel"})") << cancelled.out;

    const CliResult declined = call_fake(kForm, "red\n1\nno\ngloss\nhi\n2\n\n");
    ASSERT_FALSE(declined.timed_out) << declined.describe();
    EXPECT_EQ(to_json(received(declined)), R"({"action":"decline"})") << "nothing of the answers is sent\n" << declined.out;
}

TEST_F(CliForms, TooManyWrongAnswersDeclineTheForm) {
    const CliResult r = call_fake(kForm, "x\nx\nx\nx\nx\nx\nx\n");
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(to_json(received(r)), R"({"action":"decline"})") << r.out;
    EXPECT_TRUE(contains(r.out, "too many answers not accepted")) << r.out;
}

TEST_F(CliForms, UrlModeIsShownAndOpenedOnlyWithConsent) {
    const std::string params =
        R"({"mode":"url","elicitationId":"e1","message":"Connect your account","url":"https://auth.example.com/connect?state=1"})";
    const CliResult declined = call_fake(params, "\n");
    ASSERT_FALSE(declined.timed_out) << declined.describe();
    EXPECT_EQ(to_json(received(declined)), R"({"action":"decline"})") << declined.out;
    EXPECT_TRUE(contains(declined.out, "https://auth.example.com/connect?state=1")) << declined.out;
    EXPECT_TRUE(contains(declined.out, "host: auth.example.com")) << declined.out;
    EXPECT_FALSE(browser_opened()) << "the URL was opened without consent";

    const CliResult opened = call_fake(params, "o\n");
    ASSERT_FALSE(opened.timed_out) << opened.describe();
    EXPECT_EQ(string_at(received(opened), "action"), "accept") << opened.out;
    ASSERT_TRUE(browser_opened()) << opened.out;
    std::ifstream in(dir_ / "opened");
    std::string url;
    std::getline(in, url);
    EXPECT_EQ(url, "https://auth.example.com/connect?state=1");
}

// Without a terminal nobody can answer: the request is declined at once (a script never hangs).
TEST_F(CliForms, WithoutATerminalTheFormIsDeclinedAtOnce) {
    const fs::path file = dir_ / "elicit.json";
    write_file(file, kForm);
    const std::string config = "{\"mcpServers\":{\"fake\":{\"command\":" + json_quote(fake_server_path().string()) +
                               ",\"args\":[\"--elicit-file\"," + json_quote(file.string()) + "]}}}";
    const CliResult r = run_cli({"--strict-mcp-config", "--mcp-config", config, "call", "fake/work", "--timeout", "15s"}, env_,
                                dir_.path(), std::chrono::seconds(20));
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, R"({"action":"decline"})")) << r.describe();
    EXPECT_FALSE(contains(r.err, "Colour")) << "nothing is asked without a terminal\n" << r.err;
}

// server-everything's own form (13 fields of every kind), answered through the terminal; its tool
// prints the raw result it received.
TEST_F(CliForms, ServerEverythingReceivesTheFormAsTyped) {
    const fs::path se = server_everything_dir() / "dist" / "index.js";
    if (!fs::exists(se) || !fs::exists(node_path())) GTEST_SKIP() << "npm test peers not installed (" << se << ")";
    const std::string config = "{\"mcpServers\":{\"se\":{\"command\":" + json_quote(node_path().string()) + ",\"args\":[" +
                               json_quote(se.string()) + ",\"stdio\"]}}}";
    const std::string input =
        "Ada\n"                // name
        "maybe\ny\n"           // check: re-asked, then true
        "\n"                   // firstLine: its default
        "nope\nada@example.com\n"  // email: re-asked
        "\n"                   // homepage: left out
        "1815-12-10\n"         // birthdate
        "\n"                   // integer: default 42
        "5000\n7.5\n"          // number 0-1000: re-asked
        "Pluto\n3\n"           // untitled single select: re-asked, then Joey
        "2,Drums\n"            // untitled multi select
        "2\n"                  // titled single select: hero-2
        "1,3\n"                // titled multi select
        "pet-2\n"              // legacy titled enum
        "y\n";
    const CliResult r = run_cli_on_tty({"--strict-mcp-config", "--mcp-config", config, "call", "se/trigger-elicitation-request",
                                        "--timeout", "15s"},
                                       env_, dir_.path(), input);
    ASSERT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    const auto at = r.out.find("Raw result:");
    ASSERT_NE(at, std::string::npos) << r.out;
    std::string raw;
    for (char c : r.out.substr(r.out.find('{', at))) raw += c == '\r' ? ' ' : c;
    int depth = 0;
    std::size_t end = 0;
    for (std::size_t i = 0; i < raw.size() && !end; ++i) {
        depth += raw[i] == '{' ? 1 : raw[i] == '}' ? -1 : 0;
        if (depth == 0) end = i + 1;
    }
    const Json got = parse_or_fail(raw.substr(0, end), "server-everything's raw result");
    Json want;
    want.Parse(R"({"action":"accept","content":{"name":"Ada","check":true,"firstLine":"It was a dark and stormy night.",
        "email":"ada@example.com","birthdate":"1815-12-10","integer":42,"number":7.5,"untitledSingleSelectEnum":"Joey",
        "untitledMultipleSelectEnum":["Piano","Drums"],"titledSingleSelectEnum":"hero-2",
        "titledMultipleSelectEnum":["fish-1","fish-3"],"legacyTitledEnum":"pet-2"}})");
    EXPECT_TRUE(got == want) << "received " << to_json(got) << "\n" << r.out;
    EXPECT_EQ(occurrences(r.out, "not accepted"), 4u) << r.out;
    EXPECT_TRUE(contains(r.out, "1) Superman  (hero-1)")) << r.out;
    EXPECT_TRUE(contains(r.out, "2) Dogs  (pet-2)")) << r.out;
}

}  // namespace
}  // namespace mcph::test
