// ${VAR} / ${VAR:-default} expansion: the syntax table, errors naming the variable, and which
// fields of a server definition are expanded (and which are not).
#include "config/env_expansion.hpp"
#include "test_helpers.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace {

using mcph::config::expand_server_entry;
using mcph::config::expand_variables;
using mcph::config::VariableLookup;

using host_test::vars;

const VariableLookup kVars = vars({{"A", "1"}, {"B", "two"}, {"EMPTY", ""}, {"_X9", "x9"}});

struct ExpandCase {
    const char* text;
    const char* expected;
};

TEST(EnvExpansion, ExpandsTheSyntaxTable) {
    const ExpandCase cases[] = {
        {"plain text", "plain text"},
        {"", ""},
        {"${A}", "1"},
        {"x${A}y${B}z", "x1ytwoz"},
        {"${_X9}", "x9"},
        {"${EMPTY}", ""},                          // set but empty: not an error
        {"${UNSET:-dflt}", "dflt"},
        {"${EMPTY:-dflt}", "dflt"},                // POSIX ":-": empty counts as unset
        {"${A:-dflt}", "1"},
        {"${UNSET:-}", ""},
        {"${UNSET:-a:-b}", "a:-b"},                // only the first ":-" separates
        {"${UNSET:-${B:-x}}", "two"},              // nested default
        {"${UNSET:-${UNSET2:-x}}", "x"},           // nested twice
        {"${UNSET:-pre-${A}-post}", "pre-1-post"}, // text around a nested reference
        {"${A:-${UNSET}}", "1"},                   // an unused default is never evaluated
        {"${UNSET:-${U2:-${U3:-deep}}}!", "deep!"},
        {"$$", "$$"},                              // a $ not followed by { stays literal
        {"cost $5", "cost $5"},
        {"end$", "end$"},
        {"$A", "$A"},
        {"$${A}", "$1"},
        {"a}b{c", "a}b{c"},                        // braces outside a reference are plain text
    };
    for (const auto& c : cases) EXPECT_EQ(expand_variables(c.text, kVars), c.expected) << "input: " << c.text;
}

struct ErrorCase {
    const char* text;
    const char* message_part;
};

TEST(EnvExpansion, RejectsMissingVariablesAndBadSyntax) {
    const ErrorCase cases[] = {
        {"${MISSING}", "${MISSING} is not set"},
        {"a ${MISSING} b", "${MISSING} is not set"},
        {"${UNSET:-${MISSING}}", "${MISSING} is not set"},  // a used default must expand
        {"${A", "unterminated \"${\" at offset 0"},
        {"xy${A:-x", "unterminated \"${\" at offset 2"},
        {"${A:-${B}", "unterminated \"${\" at offset 0"},
        {"${", "unterminated"},
        {"${}", "bad variable reference at offset 0"},
        {"${A B}", "bad variable reference"},
        {"${1X}", "bad variable reference"},
        {"${:-x}", "bad variable reference"},
        {"${A:x}", "bad variable reference"},
    };
    for (const auto& c : cases) {
        try {
            expand_variables(c.text, kVars);
            ADD_FAILURE() << "no error for " << c.text;
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(c.message_part), std::string::npos) << c.text << " -> " << e.what();
        }
    }
}

mcph::Json expanded_entry(const char* json, const VariableLookup& lookup = kVars) {
    mcph::Json entry = mcph::parse_json(json);
    expand_server_entry(entry, entry.GetAllocator(), "srv", lookup);
    return entry;
}

TEST(EnvExpansion, ServerEntryExpandsOnlyTheListedFields) {
    mcph::Json e = expanded_entry(R"({
        "command": "${B}/bin", "args": ["--n=${A}", "${UNSET:-d}", 5],
        "env": {"${A}": "${B}", "N": 3}, "url": "https://${B}.test", "headers": {"X-K": "k${A}"},
        "cwd": "${A}", "description": "${MISSING}", "type": "${A}", "oauth": {"clientId": "${A}"}})");
    EXPECT_STREQ(e["command"].GetString(), "two/bin");
    EXPECT_STREQ(e["args"][0].GetString(), "--n=1");
    EXPECT_STREQ(e["args"][1].GetString(), "d");
    EXPECT_EQ(e["args"][2].GetInt(), 5) << "non-strings are left for validation";
    EXPECT_STREQ(e["env"]["${A}"].GetString(), "two") << "values only; names are literal";
    EXPECT_EQ(e["env"]["N"].GetInt(), 3);
    EXPECT_STREQ(e["url"].GetString(), "https://two.test");
    EXPECT_STREQ(e["headers"]["X-K"].GetString(), "k1");
    EXPECT_STREQ(e["cwd"].GetString(), "1") << "cwd is expanded too (VS Code's ${workspaceFolder}/sub)";
    EXPECT_STREQ(e["description"].GetString(), "${MISSING}") << "an unexpanded field cannot fail";
    EXPECT_STREQ(e["type"].GetString(), "${A}");
    EXPECT_STREQ(e["oauth"]["clientId"].GetString(), "${A}");
}

TEST(EnvExpansion, ServerEntryErrorsNameServerAndField) {
    const ErrorCase cases[] = {
        {R"({"command":"x","env":{"TOKEN":"${FOO}"}})", "server 'srv': env.TOKEN: ${FOO} is not set"},
        {R"({"command":"${FOO}"})", "server 'srv': command: ${FOO} is not set"},
        {R"({"command":"x","args":["ok","${FOO}"]})", "server 'srv': args[1]: ${FOO} is not set"},
        {R"({"url":"https://${FOO}"})", "server 'srv': url: ${FOO} is not set"},
        {R"({"url":"u","headers":{"Authorization":"Bearer ${FOO"}})", "server 'srv': headers.Authorization: unterminated"},
    };
    for (const auto& c : cases) {
        try {
            expanded_entry(c.text);
            ADD_FAILURE() << "no error for " << c.text;
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_EQ(std::string(e.what()).rfind(c.message_part, 0), 0u) << e.what();
        }
    }
}

// Found by fuzz/env_expansion_fuzz.cpp: every nested default was a level of recursion, unbounded.
TEST(EnvExpansion, NestedDefaultsAreBounded) {
    auto nested = [](size_t levels) {
        std::string s;
        for (size_t i = 0; i < levels; ++i) s += "${UNSET_" + std::to_string(i) + ":-";
        return s + "end" + std::string(levels, '}');
    };
    const VariableLookup none = [](std::string_view) { return std::optional<std::string>(); };
    EXPECT_EQ(mcph::config::expand_variables(nested(32), none), "end");
    for (size_t levels : {33u, 100000u}) {
        try {
            mcph::config::expand_variables(nested(levels), none);
            ADD_FAILURE() << "no error for " << levels << " levels";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find("nested deeper than 32 levels"), std::string::npos) << e.what();
        }
    }
}

TEST(EnvExpansion, ProcessEnvironmentLookup) {
    EXPECT_FALSE(mcph::config::lookup_process_environment("MCPH_TEST_SURELY_UNSET_VARIABLE_42").has_value());
    if (const char* path = std::getenv("PATH")) {
        EXPECT_EQ(mcph::config::lookup_process_environment("PATH"), path);
    }
}

// What `mcph approve` lists: every variable a definition reads, defaults' included, only from the
// expanded fields.
TEST(EnvExpansion, VariablesReadByADefinition) {
    const mcph::Json entry = mcph::parse_json(
        R"({"command":"${HOME}/bin/x","args":["--t","${A:-${B}}"],"env":{"K":"${AWS_SECRET_ACCESS_KEY}"},)"
        R"("url":"https://x/${A}","headers":{"Authorization":"Bearer ${GITHUB_TOKEN}"},"cwd":"${CWD_VAR}","description":"${NOT_EXPANDED}"})");
    EXPECT_EQ(mcph::config::variables_read_by(entry),
              (std::vector<std::string>{"A", "AWS_SECRET_ACCESS_KEY", "B", "CWD_VAR", "GITHUB_TOKEN", "HOME"}));
    EXPECT_TRUE(mcph::config::variables_read_by(mcph::parse_json(R"({"command":"/bin/x"})")).empty());
}

// VS Code's and Cursor's variables, next to ${VAR}.
TEST(EnvExpansion, EditorVariables) {
    const VariableLookup env = vars({{"HOME", "/home/u"}, {"TOKEN", "t0k"}, {"workspaceFolder", "from-env"}});
    mcph::config::ExpansionContext context;
    context.workspace_folder = "/repo";
    context.input = [](std::string_view id) -> std::string {
        if (id == "api-key") return "k3y";
        throw mcph::Error(mcph::ErrorKind::Usage, "input '" + std::string(id) + "' has no answer");
    };
    const ExpandCase cases[] = {
        {"${workspaceFolder}/tools/x.js", "/repo/tools/x.js"},  // predefined wins over the environment
        {"${userHome}/.config", "/home/u/.config"},
        {"${env:TOKEN}", "t0k"},
        {"Bearer ${env:TOKEN}!", "Bearer t0k!"},
        {"a${pathSeparator}b${/}c", "a/b/c"},
        {"${input:api-key}", "k3y"},
        {"${UNSET:-${env:TOKEN}}", "t0k"},
        {"${TOKEN}", "t0k"},  // today's syntax unchanged
    };
    for (const ExpandCase& c : cases) {
        SCOPED_TRACE(c.text);
        EXPECT_EQ(expand_variables(c.text, env, context), c.expected);
    }
}

TEST(EnvExpansion, EditorVariableErrors) {
    const VariableLookup env = vars({});
    mcph::config::ExpansionContext with_inputs;
    with_inputs.input = [](std::string_view id) -> std::string {
        throw mcph::Error(mcph::ErrorKind::Usage, "input '" + std::string(id) + "' has no answer");
    };
    const std::pair<const char*, const char*> cases[] = {
        {"${env:MISSING}", "${env:MISSING} is not set"},
        {"${userHome}", "${userHome}: HOME is not set"},
        {"${input:key}", "input 'key' has no answer"},
        {"${env:1X}", "bad variable reference"},
        {"${env:}", "bad variable reference"},
        {"${input:a b}", "bad variable reference"},
        {"${command:x}", "bad variable reference"},
        {"${env:A", "unterminated"},
    };
    for (const auto& [text, message] : cases) {
        SCOPED_TRACE(text);
        try {
            expand_variables(text, env, with_inputs);
            ADD_FAILURE() << "accepted";
        } catch (const mcph::Error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
    // Without inputs in the file, ${input:x} says so.
    try {
        expand_variables("${input:x}", env);
        ADD_FAILURE();
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("defines no \"inputs\""), std::string::npos) << e.what();
    }
}

TEST(EnvExpansion, WorkspaceFolderDefaultsToTheCwd) {
    EXPECT_EQ(expand_variables("${workspaceFolder}", vars({})), std::filesystem::current_path().string());
}

TEST(EnvExpansion, EditorVariablesInEveryExpandedField) {
    mcph::Json e = mcph::parse_json(R"({"command":"${workspaceFolder}/x","args":["${env:T}"],"env":{"K":"${userHome}"},)"
                                    R"("url":"http://h${/}p","headers":{"H":"${input:i}"},"cwd":"${workspaceFolder}",)"
                                    R"("envFile":"${workspaceFolder}/.env"})");
    mcph::config::ExpansionContext context;
    context.workspace_folder = "/w";
    context.input = [](std::string_view) { return std::string("ans"); };
    expand_server_entry(e, e.GetAllocator(), "s", vars({{"T", "t"}, {"HOME", "/h"}}), context);
    EXPECT_STREQ(e["command"].GetString(), "/w/x");
    EXPECT_STREQ(e["args"][0].GetString(), "t");
    EXPECT_STREQ(e["env"]["K"].GetString(), "/h");
    EXPECT_STREQ(e["url"].GetString(), "http://h/p");
    EXPECT_STREQ(e["headers"]["H"].GetString(), "ans");
    EXPECT_STREQ(e["cwd"].GetString(), "/w");
    EXPECT_STREQ(e["envFile"].GetString(), "/w/.env");
    // ${env:X} is shown at approval like ${X}; an input's answer is not the environment.
    EXPECT_EQ(mcph::config::variables_read_by(mcph::parse_json(R"({"command":"${env:GH}","args":["${input:i}"]})")),
              (std::vector<std::string>{"GH"}));
}

}  // namespace
