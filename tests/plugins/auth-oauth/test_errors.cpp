// Error normalisation: 200-with-error, vendor codes, HTML bodies; token endpoint auth choice;
// PRM/AS checks; token store records.
#include "discovery.hpp"
#include "errors.hpp"
#include "token_requests.hpp"
#include "token_store.hpp"

#include <gtest/gtest.h>

using namespace mcph::oauth;

namespace {
HttpResponse resp(long status, std::string type, std::string body) {
    return HttpResponse{status, std::move(type), std::move(body), "https://as.example/token", {}};
}
template <class Fn>
OAuthError expect_error(Fn fn) {
    try {
        fn();
    } catch (const OAuthError& e) {
        return e;
    }
    ADD_FAILURE() << "no OAuthError";
    return OAuthError(FailureKind::none, "");
}
}  // namespace

TEST(Errors, VendorCodesMapToInvalidGrant) {
    EXPECT_EQ(normalize_error_code("invalid_refresh_token"), "invalid_grant");
    EXPECT_EQ(normalize_error_code("expired_refresh_token"), "invalid_grant");
    EXPECT_EQ(normalize_error_code("token_expired"), "invalid_grant");
    EXPECT_EQ(normalize_error_code("invalid_client"), "invalid_client");
    auto e = oauth_error_in(R"({"ok":false,"error":"invalid_refresh_token","error_description":"nope"})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->error, "invalid_grant");
    EXPECT_EQ(e->description, "nope");
    EXPECT_FALSE(oauth_error_in(R"({"access_token":"x"})"));
    EXPECT_FALSE(oauth_error_in("<html>"));
}

TEST(Errors, TokenResponse200WithErrorIsAnError) {
    auto e = expect_error([] {
        parse_token_response(resp(200, "application/json", R"({"ok":false,"error":"invalid_refresh_token"})"),
                             "token endpoint", FailureKind::refresh_failed);
    });
    EXPECT_EQ(e.kind(), FailureKind::refresh_failed);
    EXPECT_EQ(e.oauth_code(), "invalid_grant");
    EXPECT_NE(std::string(e.what()).find("HTTP 200"), std::string::npos);
}

TEST(Errors, HtmlBodyNamesEndpointAndContentType) {
    auto e = expect_error([] {
        parse_token_response(resp(200, "text/html", "<html>login</html>"), "token endpoint",
                             FailureKind::token_exchange_failed);
    });
    std::string m = e.what();
    EXPECT_NE(m.find("token endpoint at https://as.example/token"), std::string::npos) << m;
    EXPECT_NE(m.find("text/html"), std::string::npos) << m;
    EXPECT_EQ(e.status(), MCPH_ERR_AUTH);
}

TEST(Errors, TokenResponseShapes) {
    auto t = parse_token_response(
        resp(200, "application/json", R"({"access_token":"a","token_type":"bearer","expires_in":"120","scope":"x"})"),
        "t", FailureKind::token_exchange_failed);
    EXPECT_EQ(t.access_token, "a");
    EXPECT_EQ(t.expires_in, 120);
    EXPECT_EQ(t.scope, "x");
    expect_error([] { parse_token_response(resp(200, "application/json", R"({"token_type":"Bearer"})"), "t", FailureKind::token_exchange_failed); });
    expect_error([] { parse_token_response(resp(200, "application/json", R"({"access_token":"a","token_type":"mac"})"), "t", FailureKind::token_exchange_failed); });
    auto e = expect_error([] { parse_token_response(resp(500, "application/json", "{}"), "t", FailureKind::token_exchange_failed); });
    EXPECT_NE(std::string(e.what()).find("HTTP 500"), std::string::npos);
}

TEST(Errors, AuthMethodChoice) {
    AuthServerMetadata as;
    EXPECT_EQ(choose_auth_method(as, true, false, ""), "client_secret_basic");  // RFC 8414 default
    as.token_endpoint_auth_methods_supported = {"client_secret_post", "client_secret_basic"};
    EXPECT_EQ(choose_auth_method(as, true, false, ""), "client_secret_basic");
    as.token_endpoint_auth_methods_supported = {"client_secret_post"};
    EXPECT_EQ(choose_auth_method(as, true, false, ""), "client_secret_post");
    EXPECT_EQ(choose_auth_method(as, false, false, ""), "none");
    EXPECT_EQ(choose_auth_method(as, true, true, ""), "private_key_jwt");
    EXPECT_EQ(choose_auth_method(as, true, false, "client_secret_basic"), "client_secret_basic");
}

TEST(Errors, DiscoveryChecks) {
    ProtectedResourceMetadata prm;
    prm.url = "https://api.example.com/.well-known/oauth-protected-resource";
    prm.resource = "https://other.example.com/mcp";
    EXPECT_EQ(expect_error([&] { check_resource("https://api.example.com/mcp", prm); }).kind(),
              FailureKind::resource_mismatch);
    prm.resource = "https://api.example.com";
    check_resource("https://api.example.com/mcp", prm);

    AuthServerMetadata as;
    as.from_document = true;
    as.authorization_endpoint = "https://as.example/authorize";
    as.token_endpoint = "https://as.example/token";
    EXPECT_EQ(expect_error([&] { check_server(as, true); }).kind(), FailureKind::pkce_unsupported);
    as.code_challenge_methods_supported = {"plain"};
    EXPECT_EQ(expect_error([&] { check_server(as, true); }).kind(), FailureKind::pkce_unsupported);
    as.code_challenge_methods_supported = {"plain", "S256"};
    check_server(as, true);
    as.token_endpoint = "http://as.example/token";
    EXPECT_EQ(expect_error([&] { check_server(as, true); }).kind(), FailureKind::insecure_endpoint);
    as.token_endpoint = "http://localhost:9/token";
    check_server(as, true);
}

TEST(TokenStoreRecords, RoundTripAndKeys) {
    StoredTokens t;
    t.access_token = "a";
    t.refresh_token = "r";
    t.expires_at = 123;
    t.client.client_id = "c";
    t.client.source = "dcr";
    auto back = deserialize_tokens(serialize(t));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->refresh_token, "r");
    EXPECT_EQ(back->expires_at, 123);
    EXPECT_EQ(back->client.client_id, "c");
    EXPECT_FALSE(deserialize_tokens("{}"));
    EXPECT_NE(store_key_base("ab", "c", ""), store_key_base("a", "bc", ""));
    EXPECT_NE(store_key_base("s", "u", "id1"), store_key_base("s", "u", "id2"));
    EXPECT_EQ(store_key_base("s", "u", ""), store_key_base("s", "u", ""));
    EXPECT_EQ(store_key_base("s", "https://secret.example/", "").find("secret"), std::string::npos);
}
