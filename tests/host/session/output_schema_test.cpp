// OutputSchemaCache: structuredContent checked against the tool's outputSchema.
#include "session/output_schema.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::CallToolResult;
using mcph::Tool;

Tool tool(const std::string& name, const std::string& output_schema) {
    Tool t;
    t.server = "srv";
    t.name = name;
    t.output_schema = output_schema;
    return t;
}

CallToolResult tool_result(const char* json) {
    CallToolResult r;
    r.raw = mcph::parse_json(json);
    r.is_error = r.raw.HasMember("isError") && r.raw["isError"].IsBool() && r.raw["isError"].GetBool();
    return r;
}

const char* kWeatherSchema = R"({"type":"object","properties":{"temp":{"type":"number"},"city":{"type":"string"}},
                                 "required":["temp"]})";

class OutputSchemaTest : public ::testing::Test {
protected:
    void SetUp() override {
        cache.set_tools({tool("weather", kWeatherSchema), tool("plain", ""),
                         tool("enum", R"({"type":"object","properties":{"s":{"enum":["a","b"]}}})")});
    }
    mcph::detail::OutputSchemaCache cache;
};

TEST_F(OutputSchemaTest, ValidStructuredContentPasses) {
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"content":[],"structuredContent":{"temp":21.5,"city":"Oslo"}})")), "");
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"content":[],"structuredContent":{"temp":-3}})")), "");
}

TEST_F(OutputSchemaTest, ValidationIsRepeatableFromTheCache) {
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":1}})")), "");
        EXPECT_NE(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":"x"}})")), "");
    }
}

struct InvalidOutputCase {
    const char* name;
    const char* tool;
    const char* result;
    const char* keyword;
};

const InvalidOutputCase kInvalidOutputs[] = {
    {"wrong type", "weather", R"({"content":[],"structuredContent":{"temp":"hot"}})", "'type'"},
    {"missing required", "weather", R"({"content":[],"structuredContent":{"city":"Oslo"}})", "'required'"},
    {"not in enum", "enum", R"({"content":[],"structuredContent":{"s":"c"}})", "'enum'"},
};

TEST_F(OutputSchemaTest, InvalidStructuredContentFailsNamingTheKeyword) {
    for (const InvalidOutputCase& c : kInvalidOutputs) {
        SCOPED_TRACE(c.name);
        std::string problem = cache.validate(c.tool, tool_result(c.result));
        EXPECT_NE(problem.find(c.keyword), std::string::npos) << problem;
        EXPECT_NE(problem.find(std::string("tool '") + c.tool + "'"), std::string::npos) << problem;
    }
}

TEST_F(OutputSchemaTest, MissingStructuredContentFailsWhenASchemaExists) {
    std::string problem = cache.validate("weather", tool_result(R"({"content":[{"type":"text","text":"21"}]})"));
    EXPECT_NE(problem.find("no structuredContent"), std::string::npos) << problem;
}

TEST_F(OutputSchemaTest, ErrorResultsAreNotValidated) {
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"isError":true,"content":[{"type":"text","text":"boom"}]})")), "");
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"isError":true,"structuredContent":{"temp":"bad"}})")), "");
}

TEST_F(OutputSchemaTest, ToolsWithoutSchemaPass) {
    EXPECT_EQ(cache.validate("plain", tool_result(R"({"content":[]})")), "");
    EXPECT_EQ(cache.validate("plain", tool_result(R"({"content":[],"structuredContent":{"anything":[1]}})")), "");
    EXPECT_EQ(cache.validate("unknown-tool", tool_result(R"({"content":[]})")), "");
}

TEST_F(OutputSchemaTest, SetToolsReplacesTheKnownSchemas) {
    ASSERT_NE(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":"x"}})")), "");
    cache.set_tools({tool("weather", "")});
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":"x"}})")), "");
    cache.set_tools({tool("weather", R"({"type":"object","properties":{"temp":{"type":"string"}}})")});
    EXPECT_EQ(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":"x"}})")), "");
    EXPECT_NE(cache.validate("weather", tool_result(R"({"structuredContent":{"temp":1}})")), "");
}

TEST(OutputSchema2020_12, StructuredContentMayBeAnyJsonValue) {
    mcph::detail::OutputSchemaCache cache;
    cache.set_tools({tool("list", R"({"type":"array","items":{"type":"integer"}})"), tool("word", R"({"type":"string"})")});
    EXPECT_EQ(cache.validate("list", tool_result(R"({"content":[],"structuredContent":[1,2,3]})")), "");
    EXPECT_NE(cache.validate("list", tool_result(R"({"content":[],"structuredContent":[1,"x"]})")).find("'/1'"), std::string::npos);
    EXPECT_EQ(cache.validate("word", tool_result(R"({"content":[],"structuredContent":"hi"})")), "");
    EXPECT_NE(cache.validate("word", tool_result(R"({"content":[],"structuredContent":null})")).find("'type'"), std::string::npos);
}

TEST(OutputSchema2020_12, KeywordsRapidJsonsDraft04IgnoredAreChecked) {
    mcph::detail::OutputSchemaCache cache;
    cache.set_tools({tool("t", R"({"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"n":{"type":"integer"}},
                                  "prefixItems":[{"$ref":"#/$defs/n"}],"unevaluatedItems":false})")});
    EXPECT_EQ(cache.validate("t", tool_result(R"({"structuredContent":[1]})")), "");
    EXPECT_NE(cache.validate("t", tool_result(R"({"structuredContent":[1,2]})")).find("'false'"), std::string::npos);
    EXPECT_NE(cache.validate("t", tool_result(R"({"structuredContent":["x"]})")).find("'type'"), std::string::npos);
}

TEST(OutputSchema2020_12, ARemoteRefIsReportedNotPassed) {
    mcph::detail::OutputSchemaCache cache;
    cache.set_tools({tool("t", R"({"properties":{"p":{"$ref":"https://schemas.example/profile.json"}}})")});
    std::string problem = cache.validate("t", tool_result(R"({"structuredContent":{"p":{}}})"));
    EXPECT_NE(problem.find("could not be checked"), std::string::npos) << problem;
    EXPECT_NE(problem.find("never fetched"), std::string::npos) << problem;
}

TEST(OutputSchema2020_12, AnUnsupportedDialectIsReported) {
    mcph::detail::OutputSchemaCache cache;
    cache.set_tools({tool("t", R"({"$schema":"https://example.com/custom","type":"object"})")});
    std::string problem = cache.validate("t", tool_result(R"({"structuredContent":{}})"));
    EXPECT_NE(problem.find("cannot be used: unsupported JSON Schema dialect"), std::string::npos) << problem;
}

}  // namespace
