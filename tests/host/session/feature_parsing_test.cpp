// List entries from servers → public types, tolerant of missing optional fields.
#include "session/feature_parsing.hpp"

#include <gtest/gtest.h>

namespace {

using mcph::parse_json;
using namespace mcph::detail;

TEST(FeatureParsing, FullTool) {
    auto t = parse_tool("srv", parse_json(R"({"name":"search","title":"Search","description":"Find things",
        "inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},
        "outputSchema":{"type":"object"},
        "annotations":{"readOnlyHint":true}})"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->server, "srv");
    EXPECT_EQ(t->name, "search");
    EXPECT_EQ(t->title, "Search");
    EXPECT_EQ(t->description, "Find things");
    EXPECT_EQ(t->input_schema, R"({"type":"object","properties":{"q":{"type":"string"}}})");
    EXPECT_EQ(t->output_schema, R"({"type":"object"})");
    EXPECT_EQ(t->annotations, R"({"readOnlyHint":true})");
    EXPECT_FALSE(t->destructive);
    EXPECT_TRUE(t->mapped_name.empty()) << "mapping is the host's job";
}

TEST(FeatureParsing, MinimalToolGetsDefaults) {
    auto t = parse_tool("srv", parse_json(R"({"name":"x"})"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->input_schema, R"({"type":"object"})");
    EXPECT_EQ(t->output_schema, "");
    EXPECT_EQ(t->annotations, "");
    EXPECT_EQ(t->title, "");
}

TEST(FeatureParsing, ToolWithoutUsableNameIsSkipped) {
    for (const char* v : {R"({})", R"({"name":""})", R"({"name":5})", R"("tool")", "null", R"({"title":"x"})"})
        EXPECT_FALSE(parse_tool("srv", parse_json(v))) << v;
}

TEST(FeatureParsing, NonObjectSchemasAreIgnored) {
    auto t = parse_tool("srv", parse_json(R"({"name":"x","inputSchema":"str","outputSchema":[1],"annotations":3})"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->input_schema, R"({"type":"object"})");
    EXPECT_EQ(t->output_schema, "");
    EXPECT_EQ(t->annotations, "");
}

TEST(FeatureParsing, DestructiveOnlyWhenDeclaredAndNotReadOnly) {
    struct Case {
        const char* annotations;
        bool destructive;
    };
    const Case cases[] = {
        {R"({"destructiveHint":true})", true},
        {R"({"destructiveHint":true,"readOnlyHint":false})", true},
        {R"({"destructiveHint":true,"readOnlyHint":true})", false},
        {R"({"destructiveHint":false})", false},
        {R"({"destructiveHint":"true"})", false},
        {R"({})", false},
    };
    for (const Case& c : cases) {
        auto t = parse_tool("s", parse_json(std::string(R"({"name":"t","annotations":)") + c.annotations + "}"));
        ASSERT_TRUE(t);
        EXPECT_EQ(t->destructive, c.destructive) << c.annotations;
    }
}

TEST(FeatureParsing, TitleFallsBackToAnnotationsTitle) {
    auto t = parse_tool("s", parse_json(R"({"name":"t","annotations":{"title":"From annotations"}})"));
    EXPECT_EQ(t->title, "From annotations");
    auto u = parse_tool("s", parse_json(R"({"name":"t","title":"Top","annotations":{"title":"Inner"}})"));
    EXPECT_EQ(u->title, "Top");
}

TEST(FeatureParsing, Resources) {
    auto r = parse_resource("s", parse_json(R"({"uri":"file:///a.txt","name":"a","title":"A","description":"d",
                                               "mimeType":"text/plain"})"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->server, "s");
    EXPECT_EQ(r->uri, "file:///a.txt");
    EXPECT_EQ(r->name, "a");
    EXPECT_EQ(r->title, "A");
    EXPECT_EQ(r->description, "d");
    EXPECT_EQ(r->mime_type, "text/plain");
    EXPECT_FALSE(parse_resource("s", parse_json(R"({"name":"no uri"})")));
    EXPECT_FALSE(parse_resource("s", parse_json(R"({"uri":7})")));
}

TEST(FeatureParsing, ResourceTemplates) {
    auto r = parse_resource_template("s", parse_json(R"({"uriTemplate":"file:///{path}","name":"files","mimeType":"x/y"})"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->uri_template, "file:///{path}");
    EXPECT_EQ(r->name, "files");
    EXPECT_EQ(r->mime_type, "x/y");
    EXPECT_FALSE(parse_resource_template("s", parse_json(R"({"uri":"file:///a"})")));
}

TEST(FeatureParsing, PromptsWithArguments) {
    auto p = parse_prompt("s", parse_json(R"({"name":"review","description":"Review code","arguments":[
        {"name":"code","description":"the code","required":true},
        {"name":"style"},
        "not an object",
        {"name":"lang","required":"yes"}]})"));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->name, "review");
    EXPECT_EQ(p->description, "Review code");
    ASSERT_EQ(p->arguments.size(), 3u);
    EXPECT_EQ(p->arguments[0].name, "code");
    EXPECT_EQ(p->arguments[0].description, "the code");
    EXPECT_TRUE(p->arguments[0].required);
    EXPECT_EQ(p->arguments[1].name, "style");
    EXPECT_FALSE(p->arguments[1].required);
    EXPECT_FALSE(p->arguments[2].required) << "a non-boolean required is not required";
    EXPECT_FALSE(parse_prompt("s", parse_json(R"({"arguments":[]})")));
    auto bare = parse_prompt("s", parse_json(R"({"name":"x","arguments":"nope"})"));
    ASSERT_TRUE(bare);
    EXPECT_TRUE(bare->arguments.empty());
}

}  // namespace
