// SKILL.md frontmatter: split at the `---` lines, YAML (yaml-cpp) to JSON under the core schema,
// and every bound (size, nodes after alias expansion, depth) ends in a Protocol error.
#include "extensions/frontmatter.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::extensions::parse_frontmatter;
using mcph::extensions::split_frontmatter;

const std::string kUri = "skill://x/SKILL.md";

std::string protocol_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
}

TEST(Frontmatter, SplitsAtTheDelimiterLines) {
    const std::string text = "---\nname: a\n---\n\nBody.\n";
    auto split = split_frontmatter(text, kUri);
    EXPECT_EQ(split.yaml, "name: a\n");
    EXPECT_EQ(split.body, "\nBody.\n");
}

TEST(Frontmatter, AcceptsCrlfLines) {
    const std::string text = "---\r\nname: a\r\n---\r\nBody";
    auto split = split_frontmatter(text, kUri);
    EXPECT_EQ(split.yaml, "name: a\r\n");
    EXPECT_EQ(split.body, "Body");
}

TEST(Frontmatter, RefusesAFileWithoutFrontmatter) {
    EXPECT_NE(protocol_error([] { split_frontmatter("# Title\n", kUri); }).find("does not open with"), std::string::npos);
    EXPECT_NE(protocol_error([] { split_frontmatter("---\nname: a\n", kUri); }).find("not closed"), std::string::npos);
}

TEST(Frontmatter, RefusesAnOversizedBlock) {
    mcph::extensions::FrontmatterLimits limits;
    limits.max_bytes = 100;
    const std::string text = "---\n" + std::string(200, '#') + "\n---\n";
    EXPECT_NE(protocol_error([&] { split_frontmatter(text, kUri, limits); }).find("100 bytes"), std::string::npos);
}

TEST(Frontmatter, ParsesScalarsByTheCoreSchema) {
    mcph::Json fm = parse_frontmatter(
        "name: pdf\ncount: 3\nratio: 0.5\nflag: true\nnothing: ~\nquoted: \"3\"\nlist: [a, b]\nnested: {k: v}\n", kUri);
    EXPECT_EQ(mcph::to_json(fm),
              R"({"name":"pdf","count":3,"ratio":0.5,"flag":true,"nothing":null,"quoted":"3","list":["a","b"],"nested":{"k":"v"}})");
}

TEST(Frontmatter, RefusesInvalidYamlAndNonMappings) {
    EXPECT_NE(protocol_error([] { parse_frontmatter("name: [unclosed\n", kUri); }).find("not valid YAML"), std::string::npos);
    EXPECT_NE(protocol_error([] { parse_frontmatter("- a\n- b\n", kUri); }).find("not a YAML mapping"), std::string::npos);
    EXPECT_NE(protocol_error([] { parse_frontmatter("a: 1\na: 2\n", kUri); }).find("repeats the key 'a'"), std::string::npos);
}

TEST(Frontmatter, AliasExpansionIsBounded) {
    // A "billion laughs": each level references the previous one ten times.
    std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 9; ++i) {
        const std::string prev = "*a" + std::to_string(i - 1);
        yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
        for (int j = 0; j < 9; ++j) yaml += ", " + prev;
        yaml += "]\n";
    }
    EXPECT_NE(protocol_error([&] { parse_frontmatter(yaml, kUri); }).find("more than 10000 nodes"), std::string::npos);
}

TEST(Frontmatter, DepthIsBounded) {
    const std::string deep = "a: " + std::string(100, '[') + std::string(100, ']') + "\n";
    EXPECT_NE(protocol_error([&] { parse_frontmatter(deep, kUri); }).find("deeper than 64"), std::string::npos);
    // Past yaml-cpp's own guard (2000 levels) the parser refuses it before we see a tree.
    const std::string deeper = "a: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
    EXPECT_NE(protocol_error([&] { parse_frontmatter(deeper, kUri); }).find(kUri), std::string::npos);
}

TEST(Frontmatter, AcceptsAByteOrderMarkAndBlanksAfterTheClosingLine) {
    const std::string text = "\xEF\xBB\xBF---\nname: a\n--- \t\nBody";
    auto split = split_frontmatter(text, kUri);
    EXPECT_EQ(split.yaml, "name: a\n");
    EXPECT_EQ(split.body, "Body");
    EXPECT_THROW(split_frontmatter("---\nname: a\n----\n", kUri), Error);  // "----" is not the delimiter
}

}  // namespace
