// Agent definition files (extensions/agent_file.hpp): the frontmatter shapes of mcpServers
// (references, Claude Code's {name: {config}} items, self-naming objects, a plain mapping), tools
// as a string or a list, and every problem — bad YAML, a bad entry, a bound — naming the file and
// the line it is at.
#include "extensions/agent_file.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::extensions::AgentFileLimits;
using mcph::extensions::AgentFileResult;
using mcph::extensions::parse_agent_file;

const std::string kFile = "/agents/reviewer.md";

AgentFileResult parse(const std::string& text, const AgentFileLimits& limits = {}) { return parse_agent_file(text, kFile, limits); }

// The problem of a file that must not parse: its line and message.
std::string problem(const std::string& text, int expected_line, const AgentFileLimits& limits = {}) {
    const AgentFileResult r = parse(text, limits);
    EXPECT_FALSE(r.agent) << "parsed: " << text;
    EXPECT_EQ(r.line, expected_line) << r.error;
    EXPECT_NE(r.error.find(kFile), std::string::npos) << r.error;
    if (expected_line > 0) {
        EXPECT_NE(r.error.find("line " + std::to_string(expected_line)), std::string::npos) << r.error;
    }
    return r.error;
}

TEST(AgentFile, ReferencesAndBothInlineShapes) {
    const AgentFileResult r = parse(
        "---\n"
        "name: reviewer\n"
        "description: Reviews pull requests\n"
        "tools: Read, Grep ,  Bash\n"
        "model: sonnet\n"
        "mcpServers:\n"
        "  - github\n"
        "  - jira:\n"
        "      command: jira-mcp\n"
        "      args: [\"--port\", \"8080\"]\n"
        "      shutdownGraceMs: 500\n"
        "  - name: notes\n"
        "    type: http\n"
        "    url: https://notes.example/mcp\n"
        "---\n"
        "You review.\n");
    ASSERT_TRUE(r.agent) << r.error;
    const auto& a = *r.agent;
    EXPECT_EQ(a.name, "reviewer");
    EXPECT_EQ(a.description, "Reviews pull requests");
    EXPECT_EQ(a.tools, (std::vector<std::string>{"Read", "Grep", "Bash"}));
    EXPECT_EQ(a.prompt, "You review.\n");
    ASSERT_EQ(a.servers.size(), 3u);
    EXPECT_EQ(a.servers[0].reference, "github");
    EXPECT_TRUE(a.servers[0].config_json.empty());
    EXPECT_EQ(a.servers[1].reference, "");
    EXPECT_EQ(a.servers[1].name, "jira");
    mcph::Json jira = mcph::parse_json(a.servers[1].config_json, "config");
    EXPECT_STREQ(jira["command"].GetString(), "jira-mcp");
    EXPECT_STREQ(jira["args"][1].GetString(), "8080") << "a quoted scalar stays a string";
    EXPECT_EQ(jira["shutdownGraceMs"].GetInt64(), 500) << "a plain integer is a number";
    EXPECT_EQ(a.servers[2].name, "notes");
    mcph::Json notes = mcph::parse_json(a.servers[2].config_json, "config");
    EXPECT_FALSE(notes.HasMember("name")) << "the name names the entry, it is not config";
    EXPECT_STREQ(notes["url"].GetString(), "https://notes.example/mcp");
}

TEST(AgentFile, MappingFormAndToolList) {
    const AgentFileResult r = parse("---\nname: a\ntools: [Read, Write]\nmcpServers:\n  own: {command: x}\n  other: {command: y}\n---\n");
    ASSERT_TRUE(r.agent) << r.error;
    EXPECT_EQ(r.agent->tools, (std::vector<std::string>{"Read", "Write"}));
    ASSERT_EQ(r.agent->servers.size(), 2u);
    EXPECT_EQ(r.agent->servers[0].name, "own");
    EXPECT_EQ(r.agent->servers[1].name, "other");
}

TEST(AgentFile, NoServersIsAnAgentWithoutMcp) {
    const AgentFileResult r = parse("\xEF\xBB\xBF---\r\nname: plain\r\n---\r\nbody\r\n");
    ASSERT_TRUE(r.agent) << r.error;
    EXPECT_TRUE(r.agent->servers.empty());
}

TEST(AgentFile, InvalidYamlNamesItsLine) {
    const std::string e = problem("---\nname: a\nmcpServers:\n  - github\n  - [unclosed\n---\n", 6);
    EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
    problem("---\nname: a\ndescription: a: b\n---\n", 3);
    problem("---\nname: a\n\tbad: tab\n---\n", 3);
}

TEST(AgentFile, BadEntriesNameTheirLine) {
    EXPECT_NE(problem("---\nname: a\nmcpServers:\n  - github\n  - 42\n  - [x]\n---\n", 6).find("server name or an inline"),
              std::string::npos);
    EXPECT_NE(problem("---\nname: a\nmcpServers:\n  - own: 5\n---\n", 4).find("must be {<name>"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\nmcpServers:\n  - x\n  - x\n---\n", 5).find("twice"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\nmcpServers:\n  - \"../etc\"\n---\n", 4).find("is not a name"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\nmcpServers: github\n---\n", 3).find("must be a list"), std::string::npos);
    EXPECT_NE(problem("---\nname: [a]\n---\n", 2).find("'name' must be a string"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\nname: b\n---\n", 3).find("repeated"), std::string::npos);
    EXPECT_NE(problem("---\ndescription: no name\n---\n", 2).find("no 'name'"), std::string::npos);
    EXPECT_NE(problem("---\n- a\n- b\n---\n", 2).find("not a YAML mapping"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\nmcpServers:\n  - own:\n      command: x\n      command: y\n---\n", 6).find("repeated"),
              std::string::npos);
}

TEST(AgentFile, DelimitersAreRequired) {
    EXPECT_NE(problem("name: a\n", 1).find("does not open"), std::string::npos);
    EXPECT_NE(problem("---\nname: a\n", 1).find("not closed"), std::string::npos);
}

TEST(AgentFile, EveryBoundIsAProblemNotACrash) {
    AgentFileLimits small;
    small.max_file_bytes = 100;
    EXPECT_NE(problem("---\nname: a\n---\n" + std::string(200, 'x'), 0, small).find("over 100 bytes"), std::string::npos);

    AgentFileLimits fm;
    fm.max_frontmatter_bytes = 64;
    EXPECT_NE(problem("---\nname: a\ndescription: " + std::string(200, 'x') + "\n---\n", 4, fm).find("not closed within 64"),
              std::string::npos);

    // A billion laughs: nine levels of nine aliases, in a field nobody reads.
    std::string laughs = "---\nname: a\na0: &a0 [x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 9; ++i) {
        const std::string prev = "*a" + std::to_string(i - 1);
        laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
        for (int k = 1; k < 9; ++k) laughs += ", " + prev;
        laughs += "]\n";
    }
    laughs += "---\n";
    EXPECT_NE(problem(laughs, parse(laughs).line).find("more than 10000 nodes"), std::string::npos);

    std::string deep = "---\nname: a\nmcpServers:\n  - own:\n      command: x\n      nested: " + std::string(40, '[') +
                       std::string(40, ']') + "\n---\n";
    EXPECT_NE(problem(deep, 6).find("deeper than 32"), std::string::npos);

    // An alias to the node that holds it: a cycle, stopped by the depth bound (or refused by yaml-cpp).
    for (const std::string cyclic : {"---\nname: a\nx: &a [*a]\n---\n", "---\nname: a\nmcpServers:\n  - own: &c {command: x, self: *c}\n---\n"}) {
        const AgentFileResult r = parse(cyclic);
        EXPECT_FALSE(r.agent) << cyclic;
        EXPECT_NE(r.error.find(kFile), std::string::npos) << r.error;
    }

    AgentFileLimits few;
    few.max_servers = 2;
    EXPECT_NE(problem("---\nname: a\nmcpServers: [a, b, c]\n---\n", 3, few).find("more than 2 mcpServers"), std::string::npos);
}

}  // namespace
