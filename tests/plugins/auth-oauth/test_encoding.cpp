// base64url, SHA-256, PKCE (RFC 7636 appendix B), form encoding.
#include "encoding.hpp"
#include "pkce.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace mcph::oauth;

TEST(Encoding, Base64UrlNoPaddingUrlSafe) {
    EXPECT_EQ(base64url_encode(""), "");
    EXPECT_EQ(base64url_encode("f"), "Zg");
    EXPECT_EQ(base64url_encode("fo"), "Zm8");
    EXPECT_EQ(base64url_encode("foo"), "Zm9v");
    EXPECT_EQ(base64url_encode(std::string("\xfb\xff\xfe", 3)), "-__-");
    EXPECT_EQ(base64_encode(std::string("\xfb\xff", 2)), "+/8=");
}

TEST(Encoding, Base64UrlRoundTrip) {
    for (size_t n = 0; n < 40; ++n) {
        std::string bytes = random_bytes(n);
        auto back = base64url_decode(base64url_encode(bytes));
        ASSERT_TRUE(back);
        EXPECT_EQ(*back, bytes);
    }
    EXPECT_FALSE(base64url_decode("ab+c"));
    EXPECT_FALSE(base64url_decode("a"));
}

TEST(Encoding, Sha256KnownVector) {
    EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Pkce, Rfc7636AppendixB) {
    EXPECT_EQ(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
              "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(Pkce, VerifierShapeAndUniqueness) {
    std::set<std::string> seen;
    for (int i = 0; i < 50; ++i) {
        Pkce p = make_pkce();
        EXPECT_EQ(p.verifier.size(), 43u);
        EXPECT_EQ(p.verifier.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
                  std::string::npos);
        EXPECT_EQ(p.challenge, pkce_challenge(p.verifier));
        EXPECT_TRUE(seen.insert(p.verifier).second);
        EXPECT_TRUE(seen.insert(make_state()).second);
    }
}

TEST(Encoding, FormEncodeDecode) {
    EXPECT_EQ(form_encode("a b&c=d/é~"), "a%20b%26c%3Dd%2F%C3%A9~");
    EXPECT_EQ(form_decode("a+b%26c%3d%zz%"), "a b&c=%zz%");
    EXPECT_EQ(form_body({{"a", "1 2"}, {"b", ""}}), "a=1%202&b=");
}
