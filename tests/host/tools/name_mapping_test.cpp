// Tool name mapping: mcp__{server}__{tool}, ≤ 64 chars of [A-Za-z0-9_-], collision-free (see the
// header comment of tools/name_mapping.hpp for the construction these tests hold it to).
#include "tools/name_mapping.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace {

using mcph::tools::kMaxMappedNameLength;
using mcph::tools::map_tool_name;

bool valid_charset(const std::string& s) {
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    return true;
}

bool has_hash_suffix(const std::string& s) {
    static const std::regex kSuffix("_h[0-9a-f]{16}$");
    return std::regex_search(s, kSuffix);
}

TEST(NameMapping, SimpleNamesAreVerbatim) {
    struct Case {
        const char* server;
        const char* tool;
        const char* mapped;
    };
    const Case cases[] = {
        {"github", "create_issue", "mcp__github__create_issue"},
        {"my-server", "get-data", "mcp__my-server__get-data"},
        {"S3", "ListBuckets", "mcp__S3__ListBuckets"},
        {"a", "b__c", "mcp__a__b__c"},  // "__" inside the tool is fine: the server part fixes the split
        {"a", "_b", "mcp__a___b"},
        {"srv", "x_h12", "mcp__srv__x_h12"},  // looks a bit like a suffix, but is not one
    };
    for (const Case& c : cases) EXPECT_EQ(map_tool_name(c.server, c.tool), c.mapped) << c.server << "/" << c.tool;
}

TEST(NameMapping, SanitizeReplacesOutsideCharset) {
    EXPECT_EQ(mcph::tools::sanitize_name_part("a.b c/d"), "a_b_c_d");
    EXPECT_EQ(mcph::tools::sanitize_name_part("ok_-09AZ"), "ok_-09AZ");
    EXPECT_EQ(mcph::tools::sanitize_name_part("é"), "__") << "each byte of a UTF-8 sequence becomes '_'";
    EXPECT_EQ(mcph::tools::sanitize_name_part(""), "");
}

TEST(NameMapping, LossyNamesGetAHashSuffix) {
    const std::string m = map_tool_name("my server", "get.data");
    EXPECT_EQ(m.rfind("mcp__my_server__get_data_h", 0), 0u) << m;
    EXPECT_TRUE(has_hash_suffix(m)) << m;
    EXPECT_TRUE(valid_charset(m));
    // Two names that sanitize alike stay apart, and apart from the clean spelling.
    const std::string clean = map_tool_name("my_server", "get_data");
    EXPECT_EQ(clean, "mcp__my_server__get_data");
    EXPECT_NE(map_tool_name("my server", "get.data"), map_tool_name("my.server", "get data"));
    EXPECT_NE(m, clean);
}

TEST(NameMapping, UnicodeIsEncoded) {
    const std::string m = map_tool_name("日本", "検索");
    EXPECT_TRUE(valid_charset(m)) << m;
    EXPECT_TRUE(has_hash_suffix(m)) << m;
    EXPECT_NE(m, map_tool_name("日本", "検査"));
}

TEST(NameMapping, EmptyPartsAreEncoded) {
    EXPECT_TRUE(has_hash_suffix(map_tool_name("srv", "")));
    EXPECT_TRUE(has_hash_suffix(map_tool_name("", "tool")));
    EXPECT_NE(map_tool_name("srv", ""), map_tool_name("", "srv"));
}

TEST(NameMapping, AtMost64CharactersAlways) {
    for (std::size_t n : {0u, 1u, 40u, 55u, 56u, 57u, 58u, 59u, 60u, 64u, 65u, 100u, 1000u}) {
        const std::string tool(n, 't');
        const std::string m = map_tool_name("srv", tool);
        EXPECT_LE(m.size(), kMaxMappedNameLength) << n;
        EXPECT_TRUE(valid_charset(m)) << n;
    }
}

TEST(NameMapping, ExactlyFittingNameIsVerbatimOneMoreIsShortened) {
    const std::string prefix = "mcp__srv__";
    const std::string fits(kMaxMappedNameLength - prefix.size(), 'x');
    EXPECT_EQ(map_tool_name("srv", fits), prefix + fits);
    const std::string longer = fits + "x";
    const std::string m = map_tool_name("srv", longer);
    EXPECT_EQ(m.size(), kMaxMappedNameLength);
    EXPECT_TRUE(has_hash_suffix(m));
    EXPECT_EQ(m.rfind(prefix, 0), 0u) << "the readable start is kept";
}

TEST(NameMapping, LongNamesAreDeterministicAndDistinct) {
    const std::string base(100, 'a');
    std::string other = base;
    other[90] = 'b';  // differs only past the cut
    const std::string m1 = map_tool_name("server", base);
    EXPECT_EQ(m1, map_tool_name("server", base));
    EXPECT_EQ(m1.size(), kMaxMappedNameLength);
    EXPECT_NE(m1, map_tool_name("server", other));
    EXPECT_NE(m1, map_tool_name("server2", base));
}

TEST(NameMapping, AmbiguousSplitsMapToDifferentNames) {
    // Both would naively be mcp__a__b__c.
    EXPECT_NE(map_tool_name("a__b", "c"), map_tool_name("a", "b__c"));
    EXPECT_EQ(map_tool_name("a", "b__c"), "mcp__a__b__c");
    EXPECT_TRUE(has_hash_suffix(map_tool_name("a__b", "c")));
    // A server ending in '_' against a tool starting with '_': both naively mcp__a___b.
    EXPECT_NE(map_tool_name("a_", "b"), map_tool_name("a", "_b"));
    // Server starting with '_'.
    EXPECT_NE(map_tool_name("_a", "b"), map_tool_name("", "a__b"));
}

TEST(NameMapping, ToolNamedLikeAnEncodedNameIsReEncoded) {
    // An attacker-chosen tool name equal to the encoded name of another (server, tool) pair.
    const std::string encoded = map_tool_name("srv", "read file");
    ASSERT_TRUE(has_hash_suffix(encoded));
    const std::string tool = encoded.substr(std::string("mcp__srv__").size());  // "read_file_h<hex>"
    const std::string m = map_tool_name("srv", tool);
    EXPECT_NE(m, encoded);
    EXPECT_TRUE(has_hash_suffix(m));
    // Any literal suffix-shaped tail forces encoding.
    EXPECT_NE(map_tool_name("srv", "x_h0123456789abcdef"), "mcp__srv__x_h0123456789abcdef");
    // Uppercase hex is not our suffix shape, so it stays verbatim.
    EXPECT_EQ(map_tool_name("srv", "x_h0123456789ABCDEF"), "mcp__srv__x_h0123456789ABCDEF");
}

TEST(NameMapping, NamesContainingNulStayApart) {
    // JSON strings may hold U+0000. With the pair hashed as "server NUL tool" these two long
    // names shared both the truncated prefix and the hash; the identity must be injective.
    const std::string x(50, 'x');
    const std::string a = map_tool_name(x + std::string("\0b", 2), "c");
    const std::string b = map_tool_name(x, std::string("b\0c", 3));
    EXPECT_NE(a, b);
    EXPECT_NE(map_tool_name(std::string("a\0b", 3), "c"), map_tool_name("a", std::string("b\0c", 3)));
}

TEST(NameMapping, IsMappedToolName) {
    EXPECT_TRUE(mcph::tools::is_mapped_tool_name("mcp__a__b"));
    EXPECT_TRUE(mcph::tools::is_mapped_tool_name(map_tool_name("x y", "z")));
    EXPECT_FALSE(mcph::tools::is_mapped_tool_name("server/tool"));
    EXPECT_FALSE(mcph::tools::is_mapped_tool_name("mcp_"));
    EXPECT_FALSE(mcph::tools::is_mapped_tool_name(""));
}

// Property: over thousands of random (server, tool) pairs from a small, collision-prone alphabet
// (separators, punctuation, multi-byte UTF-8, NUL), every result is valid, short, and unique per pair.
TEST(NameMapping, PropertyValidShortAndCollisionFree) {
    const std::vector<std::string> alphabet = {"a", "b", "_", "__", "-", ".", " ", "é", "工具", "😀",
                                               "h", "0", "f", "A", std::string("\0", 1)};
    std::mt19937 rng(20250611);
    std::uniform_int_distribution<int> pick(0, static_cast<int>(alphabet.size()) - 1);
    std::uniform_int_distribution<int> short_len(0, 6);
    std::uniform_int_distribution<int> long_len(20, 70);
    std::bernoulli_distribution use_long(0.1);

    auto random_part = [&] {
        const int n = use_long(rng) ? long_len(rng) : short_len(rng);
        std::string s;
        for (int i = 0; i < n; ++i) s += alphabet[pick(rng)];
        return s;
    };

    std::map<std::string, std::pair<std::string, std::string>> owner;
    std::set<std::pair<std::string, std::string>> inputs;
    int verbatim = 0, encoded = 0;
    for (int i = 0; i < 5000; ++i) {
        std::pair<std::string, std::string> in{random_part(), random_part()};
        if (!inputs.insert(in).second) continue;
        const std::string m = map_tool_name(in.first, in.second);
        ASSERT_LE(m.size(), kMaxMappedNameLength) << in.first << "/" << in.second;
        ASSERT_TRUE(valid_charset(m)) << m;
        ASSERT_EQ(m.rfind("mcp__", 0), 0u) << m;
        ASSERT_EQ(m, map_tool_name(in.first, in.second)) << "deterministic";
        auto [it, fresh] = owner.emplace(m, in);
        ASSERT_TRUE(fresh) << "collision on " << m << ": '" << it->second.first << "'/'" << it->second.second
                           << "' vs '" << in.first << "'/'" << in.second << "'";
        (has_hash_suffix(m) ? encoded : verbatim)++;
    }
    EXPECT_GT(inputs.size(), 3000u);
    // The generator must exercise both branches, or the property says little.
    EXPECT_GT(verbatim, 100);
    EXPECT_GT(encoded, 1000);
}

}  // namespace
