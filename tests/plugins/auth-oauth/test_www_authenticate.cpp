// WWW-Authenticate parsing: quoted and token forms, escapes, several challenges, token68.
#include "www_authenticate.hpp"

#include <gtest/gtest.h>

using namespace mcph::oauth;

TEST(WwwAuthenticate, BearerWithQuotedParams) {
    auto c = bearer_challenge(
        R"(Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="read write")");
    EXPECT_TRUE(c.present);
    EXPECT_EQ(c.resource_metadata, "https://a.example/.well-known/oauth-protected-resource/mcp");
    EXPECT_EQ(c.scope, "read write");
    EXPECT_EQ(c.error, "");
}

TEST(WwwAuthenticate, TokenFormAndCaseInsensitiveNames) {
    auto c = bearer_challenge("bearer Error=insufficient_scope,SCOPE=\"a b\"");
    EXPECT_TRUE(c.present);
    EXPECT_EQ(c.error, "insufficient_scope");
    EXPECT_EQ(c.scope, "a b");
}

TEST(WwwAuthenticate, EscapesInQuotedString) {
    auto c = bearer_challenge(R"(Bearer error_description="say \"hi\", \\ok", error="invalid_token")");
    EXPECT_EQ(c.error_description, R"(say "hi", \ok)");
    EXPECT_EQ(c.error, "invalid_token");
}

TEST(WwwAuthenticate, SeveralChallengesAndToken68) {
    auto all = parse_www_authenticate(R"(Basic abc==, Bearer realm="r", scope="x", Negotiate)");
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].scheme, "Basic");
    EXPECT_EQ(all[0].token68, "abc==");
    EXPECT_EQ(all[1].scheme, "Bearer");
    EXPECT_EQ(all[1].params.at("realm"), "r");
    EXPECT_EQ(all[1].params.at("scope"), "x");
    EXPECT_EQ(all[2].scheme, "Negotiate");
    auto c = bearer_challenge(R"(Basic realm="x", Bearer scope="s")");
    EXPECT_EQ(c.scope, "s");
}

TEST(WwwAuthenticate, LenientWithUnquotedUrlAndStrayCommas) {
    auto c = bearer_challenge(",, Bearer  resource_metadata=https://h/x ,, scope=a ,");
    EXPECT_EQ(c.resource_metadata, "https://h/x");
    EXPECT_EQ(c.scope, "a");
}

TEST(WwwAuthenticate, FirstOccurrenceWinsAndUnterminatedQuote) {
    auto c = bearer_challenge(R"(Bearer scope="a", scope="b", error="unterminated)");
    EXPECT_EQ(c.scope, "a");
    EXPECT_EQ(c.error, "unterminated");
}

TEST(WwwAuthenticate, EmptyOrOtherScheme) {
    EXPECT_FALSE(bearer_challenge("").present);
    EXPECT_FALSE(bearer_challenge("Basic realm=\"x\"").present);
    EXPECT_TRUE(bearer_challenge("Bearer").present);
    EXPECT_TRUE(parse_www_authenticate("=, ,").empty());
}
