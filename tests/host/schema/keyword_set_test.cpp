// host/src/schema/keyword_set: the one pass over a schema node's names that the evaluator reads
// every keyword through.
#include "schema/keyword_set.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using mcph::schema::Keyword;
using mcph::schema::KeywordSet;
using mcph::schema::keyword_name;
using mcph::schema::keyword_of;

TEST(KeywordSet, EveryKeywordIsFoundByItsOwnName) {
    for (unsigned i = 0; i < static_cast<unsigned>(Keyword::Count); ++i) {
        const auto k = static_cast<Keyword>(i);
        EXPECT_EQ(keyword_of(keyword_name(k)), k) << keyword_name(k);
        const std::string text = "{\"" + std::string(keyword_name(k)) + "\":7}";
        const mcph::Json schema = mcph::parse_json(text);
        const KeywordSet set(schema);
        for (unsigned j = 0; j < static_cast<unsigned>(Keyword::Count); ++j)
            EXPECT_EQ(set.has(static_cast<Keyword>(j)), i == j) << text << " / " << keyword_name(static_cast<Keyword>(j));
        ASSERT_NE(set.get(k), nullptr) << text;
        EXPECT_EQ(set.get(k)->GetInt(), 7);
    }
}

TEST(KeywordSet, OtherNamesAreNoKeyword) {
    for (const char* name : {"", "$", "$id", "$schema", "title", "description", "default", "REF", "type ", "typ",
                             "types", "maxlength", "\xff", "zzz"})
        EXPECT_EQ(keyword_of(name), Keyword::Count) << name;
    const mcph::Json schema = mcph::parse_json(R"({"title":"t","$id":"urn:x","default":1,"examples":[]})");
    EXPECT_TRUE(KeywordSet(schema).empty());
}

TEST(KeywordSet, HasAnyIsTrueWhenOneOfTheKeywordsIsPresent) {
    const mcph::Json schema = mcph::parse_json(R"({"title":"t","not":{},"type":"string"})");
    const KeywordSet set(schema);
    EXPECT_TRUE(set.has_any({Keyword::AllOf, Keyword::Not}));
    EXPECT_TRUE(set.has_any({Keyword::Type}));
    EXPECT_FALSE(set.has_any({Keyword::AllOf, Keyword::AnyOf, Keyword::If}));
    EXPECT_FALSE(set.has_any({}));
}

TEST(KeywordSet, ANonObjectHoldsNoKeyword) {
    for (const char* text : {"true", "false", "null", "[{\"type\":\"string\"}]", "\"type\"", "3"}) {
        const mcph::Json schema = mcph::parse_json(text);
        const KeywordSet set(schema);
        EXPECT_TRUE(set.empty()) << text;
        EXPECT_EQ(set.get(Keyword::Type), nullptr) << text;
    }
}

TEST(KeywordSet, ADuplicatedKeywordReadsAsItsFirstMember) {
    const mcph::Json schema = mcph::parse_json(R"({"minimum":1,"type":"number","minimum":5})");
    const KeywordSet set(schema);
    ASSERT_NE(set.number(Keyword::Minimum), nullptr);
    EXPECT_EQ(set.number(Keyword::Minimum)->GetInt(), 1);  // as Value::FindMember has it
}

TEST(KeywordSet, TypedReadersRefuseAValueOfTheWrongType) {
    const mcph::Json schema = mcph::parse_json(
        R"({"allOf":{},"properties":[],"maximum":"9","uniqueItems":1,"minLength":-1,"maxLength":2.5,
            "minItems":1.0,"maxItems":1e300,"exclusiveMaximum":true})");
    const KeywordSet set(schema);
    EXPECT_NE(set.get(Keyword::AllOf), nullptr);
    EXPECT_EQ(set.array(Keyword::AllOf), nullptr);
    EXPECT_EQ(set.object(Keyword::Properties), nullptr);
    EXPECT_EQ(set.number(Keyword::Maximum), nullptr);
    EXPECT_TRUE(set.flag(Keyword::UniqueItems, true));  // not a boolean: the fallback
    EXPECT_FALSE(set.flag(Keyword::UniqueItems, false));
    EXPECT_TRUE(set.flag(Keyword::ExclusiveMaximum, false));
    std::uint64_t n = 42;
    EXPECT_FALSE(set.count(Keyword::MinLength, n));  // negative
    EXPECT_FALSE(set.count(Keyword::MaxLength, n));  // not an integer
    EXPECT_EQ(n, 42u);
    EXPECT_TRUE(set.count(Keyword::MinItems, n));  // 1.0 is an integer
    EXPECT_EQ(n, 1u);
    EXPECT_TRUE(set.count(Keyword::MaxItems, n));  // saturated, not wrapped
    EXPECT_GT(n, std::uint64_t{1} << 63);
    EXPECT_FALSE(set.count(Keyword::MinProperties, n));  // absent
}

}  // namespace
