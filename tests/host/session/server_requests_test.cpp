// Server→client request helpers: schema defaults for elicitation, ElicitResult, file:// URIs, roots.
#include "session/server_requests.hpp"

#include <mcph/callbacks.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace {

using mcph::Json;
using mcph::parse_json;
using mcph::to_json;

const char* kSchema = R"({
  "type": "object",
  "properties": {
    "name":    {"type": "string", "default": "anonymous"},
    "count":   {"type": "integer", "default": 3},
    "agree":   {"type": "boolean", "default": false},
    "zero":    {"type": "number", "default": 0},
    "list":    {"type": "array", "default": ["a", "b"]},
    "email":   {"type": "string"}
  },
  "required": ["email"]
})";

struct DefaultsCase {
    const char* name;
    const char* content;   // JSON, or nullptr for a null document
    const char* expected;  // JSON after apply_schema_defaults
};

const DefaultsCase kDefaults[] = {
    {"empty content gets every default", "{}",
     R"({"name":"anonymous","count":3,"agree":false,"zero":0,"list":["a","b"]})"},
    {"given values are kept", R"({"name":"Ada","agree":true,"email":"a@b.c"})",
     R"({"name":"Ada","agree":true,"email":"a@b.c","count":3,"zero":0,"list":["a","b"]})"},
    {"explicit null counts as present", R"({"count":null})",
     R"({"count":null,"name":"anonymous","agree":false,"zero":0,"list":["a","b"]})"},
    {"falsy given values are kept", R"({"agree":false,"count":0,"name":""})",
     R"({"agree":false,"count":0,"name":"","zero":0,"list":["a","b"]})"},
    {"non-object content becomes an object", "[1,2]",
     R"({"name":"anonymous","count":3,"agree":false,"zero":0,"list":["a","b"]})"},
    {"null content becomes an object", nullptr, R"({"name":"anonymous","count":3,"agree":false,"zero":0,"list":["a","b"]})"},
    {"unknown properties are untouched", R"({"extra":{"x":1}})",
     R"({"extra":{"x":1},"name":"anonymous","count":3,"agree":false,"zero":0,"list":["a","b"]})"},
};

TEST(ApplySchemaDefaults, FillsOnlyAbsentProperties) {
    Json schema = parse_json(kSchema);
    for (const DefaultsCase& c : kDefaults) {
        SCOPED_TRACE(c.name);
        Json content;
        if (c.content) content = parse_json(c.content);
        mcph::apply_schema_defaults(schema, content);
        EXPECT_EQ(content, parse_json(c.expected)) << to_json(content);
    }
}

TEST(ApplySchemaDefaults, SchemaWithoutPropertiesChangesNothing) {
    for (const char* schema_text : {"{}", R"({"properties":5})", "null", R"({"properties":{"a":{}}})"}) {
        SCOPED_TRACE(schema_text);
        Json schema = parse_json(schema_text);
        Json content = parse_json(R"({"k":"v"})");
        mcph::apply_schema_defaults(schema, content);
        EXPECT_EQ(to_json(content), R"({"k":"v"})");
    }
}

TEST(ApplySchemaDefaults, DefaultsAreDeepCopies) {
    Json content;
    {
        Json schema = parse_json(R"({"properties":{"obj":{"default":{"deep":["x"]}}}})");
        mcph::apply_schema_defaults(schema, content);
    }  // the schema is gone: content must not point into it
    EXPECT_EQ(to_json(content), R"({"obj":{"deep":["x"]}})");
}

mcph::ElicitationRequest form_request() {
    mcph::ElicitationRequest request;
    request.server = "srv";
    request.mode = "form";
    request.message = "Who are you?";
    request.requested_schema = parse_json(kSchema);
    return request;
}

TEST(ElicitationResult, AcceptCarriesContentWithDefaults) {
    mcph::ElicitationResponse response;
    response.action = "accept";
    response.content = parse_json(R"({"email":"x@y.z","count":9})");
    Json result = mcph::detail::elicitation_result(form_request(), std::move(response));
    EXPECT_EQ(result, parse_json(R"({"action":"accept","content":{"email":"x@y.z","count":9,
              "name":"anonymous","agree":false,"zero":0,"list":["a","b"]}})"))
        << to_json(result);
}

TEST(ElicitationResult, AcceptWithoutContentStillSendsAnObject) {
    mcph::ElicitationResponse response;
    response.action = "accept";
    Json result = mcph::detail::elicitation_result(form_request(), std::move(response));
    ASSERT_TRUE(result.HasMember("content"));
    EXPECT_TRUE(result["content"].IsObject());
    EXPECT_STREQ(result["content"]["name"].GetString(), "anonymous");
}

TEST(ElicitationResult, NonAcceptActionsHaveNoContent) {
    struct Case {
        const char* action;
        const char* expected_action;
    };
    const Case cases[] = {{"decline", "decline"}, {"cancel", "cancel"},   {"bogus", "decline"},
                          {"", "decline"},        {"ACCEPT", "decline"},  {"accept ", "decline"}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.action);
        mcph::ElicitationResponse response;
        response.action = c.action;
        response.content = parse_json(R"({"email":"leak@example.com"})");  // must not be sent
        Json result = mcph::detail::elicitation_result(form_request(), std::move(response));
        EXPECT_STREQ(result["action"].GetString(), c.expected_action);
        EXPECT_FALSE(result.HasMember("content")) << to_json(result);
        EXPECT_EQ(result.MemberCount(), 1u);
    }
}

TEST(ElicitationResult, DefaultResponseDeclines) {
    Json result = mcph::detail::elicitation_result(form_request(), mcph::ElicitationResponse{});
    EXPECT_EQ(to_json(result), R"({"action":"decline"})");
}

TEST(FileUri, PercentEncodesOutsideUnreserved) {
    struct Case {
        const char* path;
        const char* uri;
    };
    const Case cases[] = {
        {"/", "file:///"},
        {"/home/user/project", "file:///home/user/project"},
        {"/tmp/a b", "file:///tmp/a%20b"},
        {"/home/José/café", "file:///home/Jos%C3%A9/caf%C3%A9"},
        {"/x/日本", "file:///x/%E6%97%A5%E6%9C%AC"},
        {"/a-b_c.d~e/F9", "file:///a-b_c.d~e/F9"},
        {"/100%/q?#&=+", "file:///100%25/q%3F%23%26%3D%2B"},
        {"/emoji/😀", "file:///emoji/%F0%9F%98%80"},
    };
    for (const Case& c : cases) EXPECT_EQ(mcph::detail::file_uri(c.path), c.uri) << c.path;
}

TEST(Roots, RootsResultShape) {
    Json result = mcph::detail::roots_result({{"file:///a", "A"}, {"file:///b", ""}});
    EXPECT_EQ(to_json(result), R"({"roots":[{"uri":"file:///a","name":"A"},{"uri":"file:///b"}]})");
    EXPECT_EQ(to_json(mcph::detail::roots_result({})), R"({"roots":[]})");
}

TEST(Roots, DefaultRootIsTheWorkingDirectory) {
    auto roots = mcph::detail::default_roots();
    ASSERT_EQ(roots.size(), 1u);
    const auto cwd = std::filesystem::current_path();
    EXPECT_EQ(roots[0].uri, mcph::detail::file_uri(cwd));
    EXPECT_EQ(roots[0].uri.rfind("file:///", 0), 0u);
    EXPECT_EQ(roots[0].name, cwd.filename().string());
}

}  // namespace
