// JSONC for configuration files: comments and trailing commas together in the bounded RapidJSON
// parse, errors with line and column, and the depth bound unchanged. Wire JSON stays strict.
#include "config/jsonc.hpp"
#include "config/server_config.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::config::parse_config_json;
using mcph::config::position_of;

std::string jsonc_error_of(std::string_view text) {
    try {
        parse_config_json(text, "file.json");
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    return "";
}

TEST(Jsonc, CommentsAndTrailingCommasTogether) {
    const char* text = R"(// VS Code writes this
{
  /* block
     comment */
  "servers": {
    "a": { "command": "x", "args": ["1", "2",], }, // trailing commas in array and object
  },
  "inputs": [],
}
// a comment after the document
)";
    mcph::Json doc = parse_config_json(text, "mcp.json");
    ASSERT_TRUE(doc.IsObject());
    ASSERT_TRUE(doc["servers"]["a"]["args"].IsArray());
    EXPECT_EQ(doc["servers"]["a"]["args"].Size(), 2u);
    EXPECT_STREQ(doc["servers"]["a"]["command"].GetString(), "x");
}

TEST(Jsonc, ErrorsNameLineAndColumn) {
    const std::string e = jsonc_error_of("{\n  \"a\": 1,\n  \"b\": @\n}");
    EXPECT_NE(e.find("file.json"), std::string::npos) << e;
    EXPECT_NE(e.find("line 3, column 8"), std::string::npos) << e;
    EXPECT_NE(e.find("offset 19"), std::string::npos) << e;
}

TEST(Jsonc, StillRejectsWhatIsNotJsonc) {
    for (const char* bad : {"[,]", "{,}", "[1,,]", "{\"a\":1 /* unterminated", "{\"a\": 1} extra", "", "{'a':1}"}) {
        SCOPED_TRACE(bad);
        EXPECT_NE(jsonc_error_of(bad).find("malformed JSON"), std::string::npos);
    }
}

TEST(Jsonc, DepthBoundHoldsWithCommentsAndCommas) {
    std::string deep;
    for (int i = 0; i < 200; ++i) deep += "[ /* c */ ";
    for (int i = 0; i < 200; ++i) deep += "],";
    deep.pop_back();
    const std::string e = jsonc_error_of(deep);
    EXPECT_NE(e.find("nested deeper than 128 levels"), std::string::npos) << e;
    std::string ok;
    for (int i = 0; i < 100; ++i) ok += "[1, // c\n";
    for (int i = 0; i < 100; ++i) ok += "],";
    ok.pop_back();
    EXPECT_NO_THROW(parse_config_json(ok, "ok.json"));
    // A million-level document fails on the bound, without recursing (constant stack).
    EXPECT_NE(jsonc_error_of(std::string(1'000'000, '[')).find("nested deeper"), std::string::npos);
}

TEST(Jsonc, PositionCountsLinesAndBytes) {
    EXPECT_EQ(position_of("ab\ncd", 4).line, 2u);
    EXPECT_EQ(position_of("ab\ncd", 4).column, 2u);
    EXPECT_EQ(position_of("", 10).line, 1u);
}

TEST(Jsonc, ParseMcpConfigReadsJsonc) {
    auto servers = mcph::config::parse_mcp_config("{\"mcpServers\": {\"a\": {\"command\": \"x\",}, } // done\n}", "f.json");
    ASSERT_EQ(servers.size(), 1u);
    EXPECT_EQ(servers[0].name, "a");
}

TEST(Jsonc, WireJsonStaysStrict) {
    EXPECT_THROW(mcph::parse_json("{\"a\":1,}"), mcph::Error);
    EXPECT_THROW(mcph::parse_json("{\"a\":1} // c"), mcph::Error);
}

}  // namespace
