// Hostile authorization servers: metadata, error bodies and token responses nested far past the
// JSON bound (issue #9: 500,000 levels of OAuth metadata crashed the host) are refused as
// malformed, never parsed recursively.
#include "errors.hpp"
#include "http_client.hpp"
#include "metadata.hpp"
#include "token_store.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace mcph::oauth;

// {"issuer":{"a":{"a":...}}} nested `levels` deep.
std::string deep_object(int levels) {
    std::string s = "{\"issuer\":";
    for (int i = 0; i < levels; ++i) s += "{\"a\":";
    s += "1";
    s.append(static_cast<std::size_t>(levels), '}');
    return s + "}";
}

TEST(DeepJson, MetadataNested500000DeepIsRefused) {
    const std::string deep = deep_object(500'000);
    EXPECT_FALSE(parse_auth_server_metadata(deep).has_value());
    EXPECT_FALSE(parse_protected_resource_metadata(deep).has_value());
    EXPECT_FALSE(parse_auth_server_metadata(std::string(500'000, '[')).has_value());
}

TEST(DeepJson, ErrorBodiesAndStoredTokensNestedDeepAreRefused) {
    EXPECT_FALSE(oauth_error_in(deep_object(500'000)).has_value());
    EXPECT_FALSE(deserialize_tokens(deep_object(500'000)).has_value());
}

TEST(DeepJson, ATokenResponseNestedDeepIsNotJson) {
    HttpResponse r;
    r.status = 200;
    r.content_type = "application/json";
    r.url = "https://as.example/token";
    r.body = deep_object(500'000);
    EXPECT_THROW(require_json(r, "token endpoint", FailureKind::token_exchange_failed), OAuthError);
}

TEST(DeepJson, ShallowMetadataStillParses) {
    auto m = parse_auth_server_metadata(R"({"issuer":"https://as.example","token_endpoint":"https://as.example/t"})");
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->issuer, "https://as.example");
}

}  // namespace
