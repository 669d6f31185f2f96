// bounded_json.hpp: what a parse refuses, and that what it accepts can always be written back.
#include <mcph/bounded_json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

namespace jb = mcph::json_bounds;

TEST(BoundedJson, NestingPastTheBoundIsTooDeep) {
    rapidjson::Document doc;
    const jb::ParseOutcome deep = jb::parse(doc, std::string(1000000, '['));
    EXPECT_EQ(deep.status, jb::ParseOutcome::Status::TooDeep);
    EXPECT_TRUE(doc.IsNull());
    EXPECT_NE(deep.message().find("nested deeper than 128 levels"), std::string::npos) << deep.message();
}

// Found by fuzz/bounded_json_fuzz.cpp: RapidJSON reads this number as infinity without an error,
// and its Writer then stops half-way through the document.
TEST(BoundedJson, NumberThatOverflowsToInfinityIsRefused) {
    rapidjson::Document doc;
    const jb::ParseOutcome big = jb::parse(doc, "[1,18446744073709544073709551616931348623157e308]");
    EXPECT_EQ(big.status, jb::ParseOutcome::Status::Malformed);
    EXPECT_EQ(big.code, rapidjson::kParseErrorNumberTooBig);
    EXPECT_TRUE(doc.IsNull());

    ASSERT_TRUE(jb::parse(doc, "[1.7976931348623157e308,-0.5,0.1]"));
    rapidjson::StringBuffer out;
    EXPECT_TRUE(jb::write(doc, out));
    EXPECT_STREQ(out.GetString(), "[1.7976931348623157e308,-0.5,0.1]");
}

}  // namespace
