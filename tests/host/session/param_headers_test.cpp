// x-mcp-header: every rule of MCP 2026-07-28 (server/tools.mdx, streamable-http.mdx "Schema
// Extension"), each case of the conformance scenario http-invalid-tool-headers, and extraction.
#include "session/param_headers.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using mcph::session::extract_param_headers;
using mcph::session::read_header_annotations;

mcph::session::HeaderAnnotations read(const std::string& schema) {
    mcph::Json doc = mcph::parse_json(schema);
    return read_header_annotations(doc);
}

struct InvalidCase {
    const char* name;  // the conformance scenario's tool name, or the rule
    const char* schema;
    const char* reason;  // a fragment invalid_reason must contain
};

const InvalidCase kInvalid[] = {
    {"invalid_empty_header", R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}}})",
     "/value must not be empty"},
    {"invalid_object_header", R"({"type":"object","properties":{"data":{"type":"object","x-mcp-header":"Data"}}})",
     "type is object"},
    {"invalid_array_header",
     R"({"type":"object","properties":{"items":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}})",
     "type is array"},
    {"invalid_null_header", R"({"type":"object","properties":{"nil":{"type":"null","x-mcp-header":"Nil"}}})", "type is null"},
    {"invalid_number_header", R"({"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}})",
     "type is number"},
    {"invalid_duplicate_same_case",
     R"({"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"Region"},
                                       "field2":{"type":"string","x-mcp-header":"Region"}}})",
     "case-insensitively unique: 'Region' is also on /field1"},
    {"invalid_duplicate_diff_case",
     R"({"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"MyField"},
                                       "field2":{"type":"string","x-mcp-header":"myfield"}}})",
     "case-insensitively unique: 'myfield' is also on /field1 as 'MyField'"},
    {"invalid_space_in_name", R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":"My Region"}}})",
     "' ' is not a tchar"},
    {"invalid_colon_in_name",
     R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region:Primary"}}})",
     "':' is not a tchar"},
    {"invalid_non_ascii_name", R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Région"}}})",
     "byte 0xC3 is not a tchar"},
    {"invalid_control_char_name",
     R"({"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region\t1"}}})",
     "control characters (found 0x09)"},
    {"CR LF", R"({"properties":{"v":{"type":"string","x-mcp-header":"A\r\nB"}}})", "control characters (found 0x0D)"},
    {"no type", R"({"properties":{"v":{"x-mcp-header":"V"}}})", "declares no type"},
    {"not a string", R"({"properties":{"v":{"type":"string","x-mcp-header":7}}})", "must be a string"},
    {"on the root", R"({"type":"object","x-mcp-header":"Root","properties":{}})", "the root itself is no property"},
    {"under items", R"({"properties":{"list":{"type":"array","items":{"type":"object",
                       "properties":{"r":{"type":"string","x-mcp-header":"R"}}}}}})",
     "/list/r is not statically reachable from the schema root (only chains of `properties` are; this one passes through `items`)"},
    {"under oneOf", R"({"oneOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]})", "passes through `oneOf`"},
    {"under anyOf", R"({"anyOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]})", "passes through `anyOf`"},
    {"under allOf", R"({"allOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]})", "passes through `allOf`"},
    {"under not", R"({"not":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}})", "passes through `not`"},
    {"under if", R"({"if":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}})", "passes through `if`"},
    {"under then", R"({"then":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}})", "passes through `then`"},
    {"under else", R"({"else":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}})", "passes through `else`"},
    {"in $defs behind a $ref",
     R"({"properties":{"r":{"$ref":"#/$defs/r"}},"$defs":{"r":{"type":"string","x-mcp-header":"R"}}})",
     "passes through `$defs`"},
    {"under patternProperties", R"({"patternProperties":{"^r":{"type":"string","x-mcp-header":"R"}}})",
     "passes through `patternProperties`"},
    {"under additionalProperties", R"({"additionalProperties":{"type":"string","x-mcp-header":"R"}})",
     "passes through `additionalProperties`"},
    {"below a nested items", R"({"properties":{"a":{"properties":{"b":{"prefixItems":[{"type":"string","x-mcp-header":"B"}]}}}}})",
     "passes through `prefixItems`"},
};

TEST(ParamHeaders, EveryRuleRejectsTheToolNamingTheRuleAndProperty) {
    for (const InvalidCase& c : kInvalid) {
        SCOPED_TRACE(c.name);
        auto annotations = read(c.schema);
        EXPECT_FALSE(annotations.valid());
        EXPECT_TRUE(annotations.headers.empty());
        EXPECT_NE(annotations.invalid_reason.find(c.reason), std::string::npos) << annotations.invalid_reason;
    }
}

TEST(ParamHeaders, ValidAnnotationsAreReadWithTheirPropertyPaths) {
    auto annotations = read(R"({"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "priority":{"type":"integer","x-mcp-header":"Priority"},
        "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
        "maybe":{"type":["string","null"],"x-mcp-header":"Maybe"},
        "query":{"type":"string"},
        "options":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone!#$%&'*+-.^_`|~09"}}},
        "x-mcp-header":{"type":"string"},
        "choice":{"type":"string","enum":[{"x-mcp-header":"data, not an annotation"}]}}})");
    ASSERT_TRUE(annotations.valid()) << annotations.invalid_reason;
    ASSERT_EQ(annotations.headers.size(), 5u);
    EXPECT_EQ(annotations.headers[0].name, "Region");
    EXPECT_EQ(annotations.headers[0].path, std::vector<std::string>{"region"});
    EXPECT_EQ(annotations.headers[3].name, "Maybe");
    EXPECT_EQ(annotations.headers[4].name, "Zone!#$%&'*+-.^_`|~09");
    EXPECT_EQ(annotations.headers[4].path, (std::vector<std::string>{"options", "zone"}));
}

TEST(ParamHeaders, ASchemaWithoutAnnotationsIsValidAndEmpty) {
    auto annotations = read(R"({"type":"object","properties":{"a":{"type":"string"}},"items":{"type":"number"}})");
    EXPECT_TRUE(annotations.valid());
    EXPECT_TRUE(annotations.headers.empty());
}

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers extract(const std::string& schema, const std::string& arguments) {
    auto annotations = read(schema);
    EXPECT_TRUE(annotations.valid()) << annotations.invalid_reason;
    mcph::Json args = mcph::parse_json(arguments);
    return extract_param_headers(annotations.headers, args);
}

const char* kCallSchema = R"({"type":"object","properties":{
    "region":{"type":"string","x-mcp-header":"Region"},
    "priority":{"type":"integer","x-mcp-header":"Priority"},
    "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
    "text":{"type":"string","x-mcp-header":"Text"},
    "options":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
    "query":{"type":"string"}}})";

TEST(ParamHeaders, ExtractionConvertsStringsIntegersAndBooleans) {
    EXPECT_EQ(extract(kCallSchema, R"({"region":"us-west1","priority":42,"verbose":false,"text":"Hello, 世界",
                                      "options":{"zone":"b"},"query":"SELECT 1"})"),
              (Headers{{"Region", "us-west1"},
                       {"Priority", "42"},
                       {"Verbose", "false"},
                       {"Text", "Hello, 世界"},  // as is: the transport encodes
                       {"Zone", "b"}}));
    EXPECT_EQ(extract(kCallSchema, R"({"priority":-7,"verbose":true})"),
              (Headers{{"Priority", "-7"}, {"Verbose", "true"}}));
    EXPECT_EQ(extract(kCallSchema, R"({"priority":42.0})"), (Headers{{"Priority", "42"}}));
}

TEST(ParamHeaders, AbsentAndNullValuesAreOmitted) {
    EXPECT_EQ(extract(kCallSchema, R"({"region":"us-east1","verbose":null,"options":{}})"),
              (Headers{{"Region", "us-east1"}}));
    EXPECT_EQ(extract(kCallSchema, R"({"options":null})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"({})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"([1,2])"), Headers{});
}

TEST(ParamHeaders, ValuesOutsideTheAnnotationRulesAreOmitted) {
    EXPECT_EQ(extract(kCallSchema, R"({"priority":9007199254740991})"), (Headers{{"Priority", "9007199254740991"}}));
    EXPECT_EQ(extract(kCallSchema, R"({"priority":-9007199254740991})"),
              (Headers{{"Priority", "-9007199254740991"}}));
    EXPECT_EQ(extract(kCallSchema, R"({"priority":9007199254740992})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"({"priority":-9007199254740992})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"({"priority":18446744073709551615})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"({"priority":1.5})"), Headers{});
    EXPECT_EQ(extract(kCallSchema, R"({"region":{"a":1},"text":["x"]})"), Headers{});
}

}  // namespace
