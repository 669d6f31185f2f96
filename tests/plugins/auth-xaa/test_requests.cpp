// Unit tests of the pure parts: config parsing, the RFC 8693 and RFC 7523 request fields, the
// exchange response parser, the shared id_token key.
#include "idp.hpp"
#include "xaa_config.hpp"
#include "xaa_requests.hpp"

#include "encoding.hpp"
#include "errors.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace mcph::xaa;

namespace {

std::map<std::string, std::string> as_map(const Fields& f) {
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : f) {
        EXPECT_EQ(m.count(k), 0u) << "duplicate " << k;
        m[k] = v;
    }
    return m;
}

mcph::oauth::HttpResponse response(long status, std::string body, std::string type = "application/json") {
    mcph::oauth::HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.content_type = std::move(type);
    r.url = "https://idp.example/token";
    return r;
}

}  // namespace

TEST(XaaConfig, ParsesServerAndIdp) {
    XaaConfig c = parse_config(R"({"xaa":true,"clientId":"c","clientSecret":"s","idp":{"issuer":"https://idp.example",
        "clientId":"ic","clientSecret":"is","tokenEndpoint":"https://idp.example/t","idToken":"x.y.z","callbackPort":8123}})");
    EXPECT_EQ(c.client_id, "c");
    EXPECT_EQ(c.client_secret, "s");
    EXPECT_EQ(c.idp.issuer, "https://idp.example");
    EXPECT_EQ(c.idp.client_id, "ic");
    EXPECT_EQ(c.idp.client_secret, "is");
    EXPECT_EQ(c.idp.token_endpoint, "https://idp.example/t");
    EXPECT_EQ(c.idp.id_token, "x.y.z");
    EXPECT_EQ(c.idp.callback_port, 8123);
}

TEST(XaaConfig, RejectsIncompleteConfigs) {
    auto code = [](const char* json) {
        try {
            parse_config(json);
        } catch (const mcph::plugin::Error& e) {
            return e.status();
        }
        return MCPH_OK;
    };
    EXPECT_EQ(code(R"({"xaa":true,"clientId":"c"})"), MCPH_ERR_INVALID_ARGUMENT);  // no idp
    EXPECT_EQ(code(R"({"clientId":"c","idp":{"clientId":"ic"}})"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(code(R"({"clientId":"c","idp":{"issuer":"https://i"}})"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(code(R"({"idp":{"issuer":"https://i","clientId":"ic"}})"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(code(R"({"clientId":"c","idp":{"issuer":"https://i","clientId":"ic","callbackPort":70000}})"),
              MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(code("[]"), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(code(R"({"clientId":"c","idp":{"issuer":"https://i","clientId":"ic"}})"), MCPH_OK);
}

TEST(XaaRequests, TokenExchangeBody) {
    IdpConfig idp;
    idp.client_id = "idp-client";
    auto m = as_map(token_exchange_fields(idp, "the-id-token", "https://as.example", "https://mcp.example/mcp", ""));
    EXPECT_EQ(m["grant_type"], "urn:ietf:params:oauth:grant-type:token-exchange");
    EXPECT_EQ(m["requested_token_type"], "urn:ietf:params:oauth:token-type:id-jag");
    EXPECT_EQ(m["subject_token"], "the-id-token");
    EXPECT_EQ(m["subject_token_type"], "urn:ietf:params:oauth:token-type:id_token");
    EXPECT_EQ(m["audience"], "https://as.example");
    EXPECT_EQ(m["resource"], "https://mcp.example/mcp");
    EXPECT_EQ(m["client_id"], "idp-client");
    EXPECT_EQ(m.count("client_secret"), 0u);
    EXPECT_EQ(m.count("scope"), 0u);  // omitted when there is none

    idp.client_secret = "idp-secret";
    m = as_map(token_exchange_fields(idp, "t", "a", "r", "mcp:read mcp:write"));
    EXPECT_EQ(m["client_secret"], "idp-secret");
    EXPECT_EQ(m["scope"], "mcp:read mcp:write");
}

TEST(XaaRequests, JwtBearerBody) {
    auto m = as_map(jwt_bearer_fields("the-jag", ""));
    EXPECT_EQ(m["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    EXPECT_EQ(m["assertion"], "the-jag");
    EXPECT_EQ(m.size(), 2u);
    EXPECT_EQ(as_map(jwt_bearer_fields("j", "mcp:read"))["scope"], "mcp:read");
}

TEST(XaaRequests, ClientAuthenticationFollowsAsMetadata) {
    XaaConfig c;
    c.client_id = "c";
    c.client_secret = "s";
    mcph::oauth::AuthServerMetadata as;
    EXPECT_EQ(as_client(c, as).auth_method, "client_secret_basic");  // RFC 8414 default
    as.token_endpoint_auth_methods_supported = {"client_secret_post"};
    EXPECT_EQ(as_client(c, as).auth_method, "client_secret_post");
    c.client_secret.clear();
    EXPECT_EQ(as_client(c, as).auth_method, "none");
}

TEST(XaaRequests, ExchangeResponse) {
    // RFC 8693: token_type N_A is normal for an ID-JAG.
    IdJag j = parse_token_exchange_response(response(
        200, R"({"access_token":"jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A","expires_in":300})"));
    EXPECT_EQ(j.assertion, "jag");
    EXPECT_EQ(j.expires_in, 300);

    auto kind_and_code = [](const mcph::oauth::HttpResponse& r) -> std::pair<std::string, std::string> {
        try {
            parse_token_exchange_response(r);
        } catch (const mcph::oauth::OAuthError& e) {
            EXPECT_EQ(e.kind(), mcph::oauth::FailureKind::token_exchange_failed);
            return {e.what(), e.oauth_code()};
        }
        return {"", ""};
    };
    auto wrong_type = kind_and_code(response(
        200, R"({"access_token":"x","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"})"));
    EXPECT_NE(wrong_type.first.find("not an ID-JAG"), std::string::npos);
    EXPECT_EQ(kind_and_code(response(400, R"({"error":"invalid_grant"})")).second, "invalid_grant");
    EXPECT_EQ(kind_and_code(response(200, R"({"error":"invalid_target"})")).second, "invalid_target");
    auto html = kind_and_code(response(200, "<html>login</html>", "text/html"));
    EXPECT_FALSE(html.first.empty());
    EXPECT_FALSE(kind_and_code(response(200, R"({"token_type":"N_A"})")).first.empty());  // no ID-JAG
}

TEST(XaaIdp, IdTokenKeyIsSharedPerIssuerClientAndTokenEndpoint) {
    const std::string te = "https://idp.example/token";
    IdpConfig a;
    a.issuer = "https://idp.example";
    a.client_id = "c1";
    IdpConfig b = a;
    b.issuer = "https://idp.example/";  // another issuer: issuers are exact
    b.id_token = "ignored";
    EXPECT_NE(id_token_key(a, te), id_token_key(b, te));
    IdpConfig same = a;
    same.id_token = "ignored";
    EXPECT_EQ(id_token_key(a, te), id_token_key(same, te));
    IdpConfig c = a;
    c.client_id = "c2";
    EXPECT_NE(id_token_key(a, te), id_token_key(c, te));
    // Same issuer and client, another token endpoint: another cache entry.
    EXPECT_NE(id_token_key(a, te), id_token_key(a, "https://elsewhere.example/token"));
    EXPECT_EQ(id_token_key(a, te).find("idp.example"), std::string::npos);  // reveals nothing
}

TEST(XaaIdp, JwtExpiry) {
    EXPECT_EQ(jwt_expiry("e30." + mcph::oauth::base64url_encode(R"({"exp":1234})") + ".s"), 1234);
    EXPECT_EQ(jwt_expiry("not-a-jwt"), 0);
    EXPECT_EQ(jwt_expiry("a." + mcph::oauth::base64url_encode(R"({"sub":"x"})") + ".s"), 0);
}
