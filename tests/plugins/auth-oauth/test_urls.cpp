// Discovery URL order (table-driven, per the MCP 2025-11-25 spec), resource matching, URL helpers.
#include "url.hpp"

#include <gtest/gtest.h>

using namespace mcph::oauth;
using Urls = std::vector<std::string>;

struct PrmCase {
    const char* server;
    const char* header;
    Urls expected;
};

TEST(DiscoveryUrls, ProtectedResourceMetadataOrder) {
    const PrmCase cases[] = {
        {"https://api.example.com/mcp", "",
         {"https://api.example.com/.well-known/oauth-protected-resource/mcp",
          "https://api.example.com/.well-known/oauth-protected-resource"}},
        {"https://api.example.com/public/mcp/", "https://x.example/meta",
         {"https://x.example/meta", "https://api.example.com/.well-known/oauth-protected-resource/public/mcp",
          "https://api.example.com/.well-known/oauth-protected-resource"}},
        {"https://API.example.com:443", "", {"https://api.example.com/.well-known/oauth-protected-resource"}},
        {"http://127.0.0.1:8080/mcp?x=1", "",
         {"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
          "http://127.0.0.1:8080/.well-known/oauth-protected-resource"}},
    };
    for (const auto& c : cases) EXPECT_EQ(protected_resource_metadata_urls(c.server, c.header), c.expected) << c.server;
}

TEST(DiscoveryUrls, AuthorizationServerMetadataOrder) {
    const std::pair<const char*, Urls> cases[] = {
        {"https://auth.example.com",
         {"https://auth.example.com/.well-known/oauth-authorization-server",
          "https://auth.example.com/.well-known/openid-configuration"}},
        {"https://auth.example.com/",
         {"https://auth.example.com/.well-known/oauth-authorization-server",
          "https://auth.example.com/.well-known/openid-configuration"}},
        {"https://auth.example.com/tenant1",
         {"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
          "https://auth.example.com/.well-known/openid-configuration/tenant1",
          "https://auth.example.com/tenant1/.well-known/openid-configuration"}},
        {"http://localhost:9000/a/b/",
         {"http://localhost:9000/.well-known/oauth-authorization-server/a/b",
          "http://localhost:9000/.well-known/openid-configuration/a/b",
          "http://localhost:9000/a/b/.well-known/openid-configuration"}},
    };
    for (const auto& [issuer, expected] : cases) EXPECT_EQ(authorization_server_metadata_urls(issuer), expected) << issuer;
}

TEST(ResourceMatching, OriginAndPathPrefix) {
    struct Case {
        const char* server;
        const char* resource;
        bool ok;
    } cases[] = {
        {"https://api.example.com/mcp", "https://api.example.com/mcp", true},
        {"https://api.example.com/mcp", "https://api.example.com", true},
        {"https://api.example.com/mcp", "https://api.example.com/", true},
        {"https://api.example.com/mcp/sub", "https://api.example.com/mcp", true},
        {"https://API.example.com:443/mcp", "https://api.example.com/mcp/", true},
        {"https://api.example.com/mcp", "https://api.example.com/mcpx", false},
        {"https://api.example.com/mcpx", "https://api.example.com/mcp", false},
        {"https://api.example.com/mcp", "https://api.example.com/other", false},
        {"https://api.example.com/mcp", "https://evil.example.com/mcp", false},
        {"https://api.example.com/mcp", "http://api.example.com/mcp", false},
        {"https://api.example.com/mcp", "https://api.example.com:8443/mcp", false},
        {"https://api.example.com/mcp", "not a url", false},
    };
    for (const auto& c : cases) EXPECT_EQ(resource_matches(c.server, c.resource), c.ok) << c.server << " vs " << c.resource;
}

TEST(Urls, CanonicalResourceAndSecurity) {
    EXPECT_EQ(canonical_resource("HTTPS://API.Example.com:443/mcp#frag"), "https://api.example.com/mcp");
    EXPECT_EQ(canonical_resource("https://api.example.com/"), "https://api.example.com");
    EXPECT_EQ(canonical_resource("http://localhost:3000/mcp"), "http://localhost:3000/mcp");
    EXPECT_TRUE(is_secure_endpoint("https://a.example/token"));
    EXPECT_TRUE(is_secure_endpoint("http://localhost:1/token"));
    EXPECT_TRUE(is_secure_endpoint("http://127.0.0.1/token"));
    EXPECT_TRUE(is_secure_endpoint("http://[::1]:8/token"));
    EXPECT_FALSE(is_secure_endpoint("http://a.example/token"));
    EXPECT_FALSE(is_secure_endpoint("http://127.0.0.1.evil.example/token"));
    EXPECT_FALSE(is_secure_endpoint("ftp://localhost/x"));
}

TEST(Urls, QueryHelpers) {
    auto q = parse_query("code=a%2Bb&state=x+y&empty=&flag&code=second");
    EXPECT_EQ(q["code"], "a+b");
    EXPECT_EQ(q["state"], "x y");
    EXPECT_EQ(q["empty"], "");
    EXPECT_TRUE(q.count("flag"));
    EXPECT_EQ(append_query("https://a/authorize", "x=1"), "https://a/authorize?x=1");
    EXPECT_EQ(append_query("https://a/authorize?tenant=t", "x=1"), "https://a/authorize?tenant=t&x=1");
    EXPECT_EQ(origin_join("https://a.example:8443/mcp", "/token"), "https://a.example:8443/token");
}
