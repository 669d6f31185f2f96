#include "tools/sample_arguments.hpp"

#include <gtest/gtest.h>

namespace {

TEST(SampleArguments, FillsRequiredPropertiesByTypeDefaultAndEnum) {
    mcph::Json args = mcph::tools::sample_arguments(R"({"type":"object","properties":{
        "a":{"type":"number"},"n":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},
        "e":{"type":"string","enum":["x","y"]},"d":{"type":"string","default":"dflt"},
        "o":{"type":"object","properties":{"inner":{"type":"integer"}},"required":["inner"]},
        "optional":{"type":"string"}},
        "required":["a","n","s","b","e","o"]})");
    EXPECT_TRUE(args["a"].IsNumber());
    EXPECT_TRUE(args["n"].IsInt());
    EXPECT_TRUE(args["s"].IsString());
    EXPECT_TRUE(args["b"].IsBool());
    EXPECT_STREQ(args["e"].GetString(), "x");
    EXPECT_STREQ(args["d"].GetString(), "dflt");  // not required, but has a default
    EXPECT_TRUE(args["o"]["inner"].IsInt());
    EXPECT_FALSE(args.HasMember("optional"));
}

TEST(SampleArguments, BadSchemaGivesAnEmptyObject) {
    EXPECT_TRUE(mcph::tools::sample_arguments("not json").IsObject());
    EXPECT_EQ(mcph::tools::sample_arguments("[1]").MemberCount(), 0u);
}

}  // namespace

namespace {

TEST(SampleArguments, FollowsSameDocumentRefsConstAndTypeLists) {
    mcph::Json args = mcph::tools::sample_arguments(R"({"type":"object",
        "$defs":{"id":{"type":"string","const":"fixed"},"addr":{"$anchor":"addr","type":"object",
                 "properties":{"city":{"type":"string"}},"required":["city"]},"loop":{"$ref":"#/$defs/loop"}},
        "properties":{"id":{"$ref":"#/$defs/id"},"home":{"$ref":"#addr"},"n":{"type":["null","integer"]},
                      "tags":{"type":"array","items":{"type":"string"},"minItems":2},"loop":{"$ref":"#/$defs/loop"},
                      "remote":{"$ref":"https://example.com/s.json"}},
        "required":["id","home","n","tags","loop","remote"]})");
    EXPECT_STREQ(args["id"].GetString(), "fixed");
    EXPECT_TRUE(args["home"]["city"].IsString());
    EXPECT_TRUE(args["n"].IsInt());
    ASSERT_TRUE(args["tags"].IsArray());
    EXPECT_EQ(args["tags"].Size(), 2u);
    EXPECT_TRUE(args["loop"].IsString());    // a $ref cycle stops after a few hops
    EXPECT_TRUE(args["remote"].IsString());  // never fetched: sampled as the bare schema
}

}  // namespace
