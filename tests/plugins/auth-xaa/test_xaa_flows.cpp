// Integration: the built plugin, loaded with dlopen, against the scripted IdP + AS (fake_xaa),
// with the auth-oauth tests' host-services table.
#include "fake_xaa.hpp"
#include "test_host.hpp"

#include "encoding.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

using namespace xaa_test;
using oauth_test::AuthObject;
using oauth_test::TestHost;

namespace {

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string bearer_header(const FakeXaa& f) { return "Bearer resource_metadata=\"" + f.prm_url() + "\""; }

std::string config(const FakeXaa& f, const std::string& idp_extra) {
    return R"({"xaa":true,"clientId":"mcp-client","clientSecret":"secret-as","idp":{"issuer":")" + f.idp_issuer() +
           R"(","clientId":"idp-client")" + idp_extra + "}}";
}

void expect_no_secrets(TestHost& host, AuthObject& auth, FakeXaa& f, const std::string& id_token) {
    std::string all = auth.describe();
    for (const auto& l : host.logs()) all += "\n" + l;
    for (const auto& t : f.issued()) EXPECT_FALSE(contains(all, t)) << all;
    EXPECT_FALSE(contains(all, id_token)) << all;
    EXPECT_FALSE(contains(all, "secret-")) << all;
}

}  // namespace

TEST(XaaFlow, ConfiguredIdTokenExchangeAndJwtBearer) {
    FakeXaa f;
    TestHost host;
    const std::string idt = fake_jwt(R"({"sub":"alice"})");
    AuthObject auth(host, f.mcp_url(), config(f, R"(,"tokenEndpoint":")" + f.idp_issuer() + R"(/token","idToken":")" +
                                                     idt + "\""));
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    EXPECT_EQ(auth.authorization(), "");  // the bare first request earns the 401

    auto r = auth.challenge(401, bearer_header(f));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;

    auto ex = f.last_exchange_form();
    EXPECT_EQ(ex["grant_type"], "urn:ietf:params:oauth:grant-type:token-exchange");
    EXPECT_EQ(ex["requested_token_type"], "urn:ietf:params:oauth:token-type:id-jag");
    EXPECT_EQ(ex["subject_token"], idt);
    EXPECT_EQ(ex["subject_token_type"], "urn:ietf:params:oauth:token-type:id_token");
    EXPECT_EQ(ex["audience"], f.origin());  // the AS issuer
    EXPECT_EQ(ex["resource"], f.mcp_url());
    EXPECT_EQ(ex["client_id"], "idp-client");
    EXPECT_EQ(ex["scope"], "mcp:read");  // PRM scopes_supported

    auto g = f.last_grant_form();
    EXPECT_EQ(g["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    EXPECT_EQ(g["assertion"], f.issued().at(0));  // the ID-JAG
    EXPECT_EQ(g.count("client_secret"), 0u);      // client_secret_basic, not post
    EXPECT_EQ(f.last_grant_authorization(), "Basic " + mcph::oauth::base64_encode("mcp-client:secret-as"));

    EXPECT_EQ(auth.authorization(), "Bearer " + f.issued().at(1));
    EXPECT_EQ(f.idp_logins.load(), 0);
    EXPECT_TRUE(contains(auth.describe(), "\"state\":\"authenticated\""));
    expect_no_secrets(host, auth, f, idt);

    // A 401 for the token just issued is not retried (no exchange loop).
    EXPECT_NE(auth.challenge(401, bearer_header(f)).status, MCPH_OK);
    EXPECT_EQ(f.exchanges.load(), 1);
}

TEST(XaaFlow, ClientSecretPostWhenTheAsOnlyAllowsIt) {
    FakeXaaOptions o;
    o.as_auth_methods = {"client_secret_post"};
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config(f, R"(,"idToken":"idt-1")"));
    ASSERT_EQ(auth.challenge(401, bearer_header(f)).status, MCPH_OK);
    auto g = f.last_grant_form();
    EXPECT_EQ(g["client_id"], "mcp-client");
    EXPECT_EQ(g["client_secret"], "secret-as");
    EXPECT_EQ(f.last_grant_authorization(), "");
}

TEST(XaaFlow, ExpiringTokenIsExchangedAgain) {
    FakeXaaOptions o;
    o.expires_in = 30;  // inside the 60 s refresh margin
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config(f, R"(,"idToken":"idt-1")"));
    ASSERT_EQ(auth.challenge(401, bearer_header(f)).status, MCPH_OK);
    EXPECT_EQ(f.exchanges.load(), 1);
    std::string h = auth.authorization();
    EXPECT_EQ(f.exchanges.load(), 2);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 2);
    EXPECT_EQ(h, "Bearer " + f.issued().back());
}

TEST(XaaFlow, IdpRefusalIsAnAuthError) {
    FakeXaaOptions o;
    o.rejected_subject = "stale-idt";
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config(f, R"(,"idToken":"stale-idt")"));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "invalid_grant")) << r.message;
    EXPECT_EQ(f.jwt_bearer_grants.load(), 0);
    EXPECT_TRUE(contains(auth.describe(), "token_exchange_failed"));
    EXPECT_FALSE(contains(auth.describe(), "stale-idt"));
}

TEST(XaaFlow, InteractiveSignInIsSharedByAllXaaServers) {
    FakeXaa f;
    TestHost host;  // opener: follow (GET the URL, follow redirects to the loopback callback)
    {
        AuthObject a(host, f.mcp_url(), config(f, ""), "server-a");
        auto r = a.challenge(401, bearer_header(f));
        ASSERT_EQ(r.status, MCPH_OK) << r.message;
        EXPECT_EQ(f.idp_logins.load(), 1);
        ASSERT_EQ(host.opened().size(), 1u);
        EXPECT_TRUE(contains(host.opened()[0], "code_challenge_method=S256"));
        EXPECT_TRUE(contains(host.opened()[0], "scope=openid"));
        EXPECT_TRUE(contains(f.last_exchange_form()["subject_token"], "."));  // the IdP's id_token
        expect_no_secrets(host, a, f, f.last_exchange_form()["subject_token"]);
    }
    AuthObject b(host, f.mcp_url(), config(f, ""), "server-b");
    ASSERT_EQ(b.challenge(401, bearer_header(f)).status, MCPH_OK);
    EXPECT_EQ(f.idp_logins.load(), 1);  // the cached sign-in was reused
    EXPECT_EQ(f.exchanges.load(), 2);
}

TEST(XaaFlow, RefusedBrowserMeansNoIdToken) {
    FakeXaa f;
    TestHost host;
    host.opener = oauth_test::Opener::refuse;
    AuthObject auth(host, f.mcp_url(), config(f, ""));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_EQ(f.exchanges.load(), 0);
}

TEST(XaaFlow, BadConfigFailsAtCreate) {
    FakeXaa f;
    TestHost host;
    AuthObject auth(host, f.mcp_url(), R"({"xaa":true,"clientId":"c"})");
    EXPECT_EQ(auth.create_result().status, MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(auth.create_result().message, "idp")) << auth.create_result().message;
}

// A second config naming the same IdP issuer and client but its own tokenEndpoint must not be
// handed the user's cached id_token: the cache is keyed by the resolved token endpoint too.
TEST(XaaFlow, CachedIdTokenIsNotSentToAnotherTokenEndpointOfTheSameIssuer) {
    FakeXaa f;
    TestHost host;
    std::string first_id_token;
    {
        AuthObject a(host, f.mcp_url(), config(f, ""), "server-a");
        ASSERT_EQ(a.challenge(401, bearer_header(f)).status, MCPH_OK);
        ASSERT_EQ(f.idp_logins.load(), 1);
        first_id_token = f.last_exchange_form()["subject_token"];
        ASSERT_TRUE(contains(first_id_token, "."));
    }
    AuthObject b(host, f.mcp_url(), config(f, R"(,"tokenEndpoint":")" + f.idp_issuer() + R"(/other-token")"),
                 "server-b");
    ASSERT_EQ(b.challenge(401, bearer_header(f)).status, MCPH_OK);
    EXPECT_EQ(f.idp_logins.load(), 2);  // its own sign-in, not the cached one
    auto seen = f.other_endpoint_subjects();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_NE(seen[0], first_id_token);
    EXPECT_TRUE(contains(seen[0], "."));

    // And the first config still finds its own cache entry (no third sign-in).
    AuthObject c(host, f.mcp_url(), config(f, ""), "server-c");
    ASSERT_EQ(c.challenge(401, bearer_header(f)).status, MCPH_OK);
    EXPECT_EQ(f.idp_logins.load(), 2);
    EXPECT_EQ(f.last_exchange_form()["subject_token"], first_id_token);
}

namespace {

// The v1.2 auth `cancel` during the IdP sign-in's browser wait: the call ends at once with
// MCPH_ERR_CANCELLED (not after authTimeoutMs), and the next call signs in normally.
TEST(XaaFlow, CancelEndsTheIdpBrowserWaitAndTheNextSignInWorks) {
    FakeXaa f;
    TestHost host;
    host.opener = oauth_test::Opener::nothing;  // the user never comes back
    AuthObject auth(host, f.mcp_url(),
                    R"({"xaa":true,"authTimeoutMs":15000,"clientId":"mcp-client","clientSecret":"secret-as","idp":{"issuer":")" +
                        f.idp_issuer() + R"(","clientId":"idp-client"}})");
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    auto first = std::async(std::launch::async, [&] { return auth.challenge(401, bearer_header(f)); });
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (host.opened().empty() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(host.opened().size(), 1u);
    const auto cancelled_at = std::chrono::steady_clock::now();
    auth.cancel();
    ASSERT_EQ(first.wait_for(std::chrono::seconds(1)), std::future_status::ready);
    EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(1));
    auto r = first.get();
    EXPECT_EQ(r.status, MCPH_ERR_CANCELLED) << r.message;
    EXPECT_EQ(f.exchanges.load(), 0);

    host.opener = oauth_test::Opener::follow;
    auto again = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(again.status, MCPH_OK) << again.message;
    EXPECT_EQ(host.opened().size(), 2u);
    EXPECT_EQ(f.exchanges.load(), 1);
}

}  // namespace
