// mcph::parse_json / to_json / to_pretty_json under the nesting bound.
#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
using mcph::JsonValue;

// A hand-built array nested `depth` levels (built iteratively: no parser involved).
Json nested_arrays(int depth) {
    Json doc(rapidjson::kArrayType);
    JsonValue* at = &doc;
    for (int i = 1; i < depth; ++i) {
        at->PushBack(JsonValue(rapidjson::kArrayType), doc.GetAllocator());
        at = &(*at)[0];
    }
    return doc;
}

TEST(Json, ParseRefusesAMillionOpenBracketsWithTheBound) {
    try {
        mcph::parse_json(std::string(1'000'000, '['), ".mcp.json");
        FAIL() << "must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("malformed .mcp.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("nested deeper than 128 levels"), std::string::npos) << e.what();
    }
}

TEST(Json, ParseAcceptsTheBoundExactly) {
    Json doc = mcph::parse_json(std::string(128, '[') + std::string(128, ']'));
    EXPECT_TRUE(doc.IsArray());
    EXPECT_THROW(mcph::parse_json(std::string(129, '[') + std::string(129, ']')), Error);
}

TEST(Json, MalformedStillNamesTheOffset) {
    try {
        mcph::parse_json(R"({"a": @})");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("malformed JSON at offset 6"), std::string::npos) << e.what();
    }
}

TEST(Json, WritingATreeTooDeepThrowsInsteadOfCrashing) {
    Json deep = nested_arrays(100'000);
    EXPECT_THROW(mcph::to_json(deep), Error);
    EXPECT_THROW(mcph::to_pretty_json(deep), Error);
}

TEST(Json, AParsedTreeWrappedByTheHostStillWrites) {
    // A schema at the parse bound inside a few levels of the host's own output.
    Json schema = mcph::parse_json(std::string(128, '[') + std::string(128, ']'));
    Json out(rapidjson::kObjectType);
    JsonValue tools(rapidjson::kArrayType);
    JsonValue tool(rapidjson::kObjectType);
    tool.AddMember("inputSchema", JsonValue(schema, out.GetAllocator()), out.GetAllocator());
    tools.PushBack(tool, out.GetAllocator());
    out.AddMember("tools", tools, out.GetAllocator());
    EXPECT_EQ(mcph::to_json(out).size(), 256u + std::string(R"({"tools":[{"inputSchema":}]})").size());
    EXPECT_NO_THROW(mcph::to_pretty_json(out));
}

}  // namespace

namespace {

// RapidJSON's default first chunk is 64 KiB, whatever the document holds; a clone is sized to what
// it copies (json_bounds::size_pool), so a per-call copy of small params does not churn the heap.
TEST(Json, ACloneOfSmallParamsTakesASmallPool) {
    const Json params = mcph::parse_json(R"({"name":"add","arguments":{"a":1,"b":2,"note":"a string past the short-string size"}})");
    Json copy = mcph::clone_json(params);
    EXPECT_EQ(mcph::to_json(copy), mcph::to_json(params));
    EXPECT_GT(copy.GetAllocator().Capacity(), 0u);
    EXPECT_LE(copy.GetAllocator().Capacity(), 4096u);
}

TEST(Json, ACloneOfALargeValueIsWholeAndItsChunksAreAtMostTheDefault) {
    std::string text = "[";
    for (int i = 0; i < 20000; ++i) text += (i ? ",\"" : "\"") + std::string(40, 'a' + i % 26) + "\"";
    text += "]";
    const Json big = mcph::parse_json(text);
    Json copy = mcph::clone_json(big);
    EXPECT_EQ(mcph::to_json(copy), text);
    EXPECT_GE(copy.GetAllocator().Capacity(), 20000u * 41);
}

TEST(Json, ACloneOfAScalarOrAnEmptyValueIsExact) {
    for (const char* text : {"null", "true", "-1.5", "\"\"", "{}", "[]", "[[],{}]"}) {
        const Json copy = mcph::clone_json(mcph::parse_json(text));
        EXPECT_EQ(mcph::to_json(copy), text);
    }
}

}  // namespace
