// RFC 3986 reference resolution as `$id` / `$ref` use it.
#include "schema/uri_reference.hpp"

#include <gtest/gtest.h>

namespace {

using mcph::schema::resolve_uri;

TEST(UriReference, ResolvesTheRfc3986Examples) {
    const char* base = "http://a/b/c/d;p?q";
    EXPECT_EQ(resolve_uri(base, "g"), "http://a/b/c/g");
    EXPECT_EQ(resolve_uri(base, "/g"), "http://a/g");
    EXPECT_EQ(resolve_uri(base, "//g"), "http://g");
    EXPECT_EQ(resolve_uri(base, "#s"), "http://a/b/c/d;p?q#s");
    EXPECT_EQ(resolve_uri(base, "../g"), "http://a/b/g");
    EXPECT_EQ(resolve_uri(base, "../../g"), "http://a/g");
    EXPECT_EQ(resolve_uri(base, "./g/."), "http://a/b/c/g/");
}

TEST(UriReference, ResolvesAgainstAnEmptyOrRelativeBase) {
    EXPECT_EQ(resolve_uri("", "#/$defs/a"), "#/$defs/a");
    EXPECT_EQ(resolve_uri("", "other.json"), "other.json");
    EXPECT_EQ(resolve_uri("urn:example:root", "#foo"), "urn:example:root#foo");
}

TEST(UriReference, NetworkUrisHaveAnAuthority) {
    EXPECT_TRUE(mcph::schema::is_network_uri("https://example.com/s.json"));
    EXPECT_TRUE(mcph::schema::is_network_uri("//example.com/s.json"));
    EXPECT_FALSE(mcph::schema::is_network_uri("urn:uuid:1234"));
    EXPECT_FALSE(mcph::schema::is_network_uri("#/$defs/a"));
}

}  // namespace
