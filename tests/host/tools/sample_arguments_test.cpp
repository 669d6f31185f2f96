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
