// Integration: the built plugin, loaded with dlopen, against the scripted authorization server.
#include "fake_as.hpp"
#include "jwt_verify.hpp"
#include "test_host.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <gtest/gtest.h>

#include <thread>

using namespace oauth_test;

namespace {

// Nothing secret may reach the log or describe().
void expect_no_secrets(TestHost& host, AuthObject& auth, FakeAs& as) {
    std::string all = auth.describe();
    for (const auto& l : host.logs()) all += "\n" + l;
    for (const auto& t : as.issued_tokens()) EXPECT_FALSE(contains(all, t)) << all;
    EXPECT_FALSE(contains(all, "code-")) << all;
    EXPECT_FALSE(contains(all, "secret-")) << all;
}

unsigned short free_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

bool can_bind(unsigned short port) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io);
    boost::system::error_code ec;
    a.open(boost::asio::ip::tcp::v4(), ec);
    a.bind({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
    return !ec;
}

}  // namespace

TEST(OAuthFlow, FullCodeFlowWithDynamicRegistration) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    EXPECT_EQ(auth.authorization(), "");  // no token yet: the first request goes out bare

    auto r = auth.challenge(401, bearer_header(as.prm_url(), ", scope=\"mcp:read mcp:write\""));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.registrations.load(), 1);
    EXPECT_TRUE(contains(as.last_registration_body(), "\"redirect_uris\":[\"http://127.0.0.1:"));
    auto q = as.last_authorize();
    EXPECT_EQ(q["client_id"], "dcr-client");
    EXPECT_EQ(q["code_challenge_method"], "S256");
    EXPECT_EQ(q["code_challenge"].size(), 43u);
    EXPECT_EQ(q["resource"], as.mcp_url());
    EXPECT_EQ(q["scope"], "mcp:read mcp:write");  // from the challenge
    EXPECT_FALSE(q["state"].empty());
    auto f = as.last_token_form();
    EXPECT_EQ(f["grant_type"], "authorization_code");
    EXPECT_EQ(f["resource"], as.mcp_url());
    EXPECT_EQ(f["redirect_uri"], q["redirect_uri"]);
    EXPECT_EQ(auth.authorization(), "Bearer " + as.issued_tokens().back());
    EXPECT_EQ(host.secrets().size(), 2u);  // tokens + registered client
    EXPECT_TRUE(contains(auth.describe(), "\"state\":\"authenticated\""));
    EXPECT_TRUE(contains(auth.describe(), "\"client\":\"dcr\""));
    expect_no_secrets(host, auth, as);

    // A second object on the same store (a new process) uses the stored token without a flow.
    AuthObject again(host, as.mcp_url(), "{}");
    EXPECT_EQ(again.authorization(), "Bearer " + as.issued_tokens().back());
    EXPECT_EQ(again.logout().status, MCPH_OK);
    EXPECT_TRUE(host.secrets().empty());
    EXPECT_EQ(again.authorization(), "");
}

// Every fetch of the flow — discovery, registration, token — also puts the address it connects to
// to the host's policy, from libcurl's open-socket callback (http_client.cpp).
TEST(OAuthFlow, EveryFetchChecksTheConnectedAddress) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    int fetches = 0, addresses = 0;
    for (const auto& u : host.checked_urls()) (is_address_url(u) ? addresses : fetches) += 1;
    EXPECT_GE(fetches, 4);  // resource metadata, server metadata, registration, token
    EXPECT_GE(addresses, fetches) << "a fetch connected without its address being checked";
}

TEST(OAuthFlow, RefusedConnectedAddressStopsTheFlow) {
    FakeAs as;
    TestHost host;
    host.refuse_connected_addresses = true;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "refused to connect")) << r.message;
    EXPECT_EQ(as.registrations.load(), 0);
}

TEST(OAuthFlow, PreRegisteredClientUsesBasicAuthAndNoRegistration) {
    FakeAsOptions o;
    o.dcr = false;
    o.auth_methods = {"client_secret_basic"};
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), R"({"clientId":"my-app","clientSecret":"secret-1"})");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.registrations.load(), 0);
    EXPECT_EQ(as.last_authorize()["client_id"], "my-app");
    EXPECT_EQ(as.last_authorize()["scope"], "mcp:read");  // PRM scopes_supported
    EXPECT_EQ(as.last_token_authorization(), "Basic bXktYXBwOnNlY3JldC0x");  // my-app:secret-1
    EXPECT_EQ(as.last_token_form().count("client_secret"), 0u);
    expect_no_secrets(host, auth, as);
}

TEST(OAuthFlow, ClientSecretPostWhenOnlyThatIsSupported) {
    FakeAsOptions o;
    o.auth_methods = {"client_secret_post"};
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), R"({"clientId":"my-app","clientSecret":"secret-2"})");
    ASSERT_EQ(auth.challenge(401, "").status, MCPH_OK);  // no header: well-known discovery
    EXPECT_EQ(as.last_token_authorization(), "");
    EXPECT_EQ(as.last_token_form()["client_secret"], "secret-2");
}

TEST(OAuthFlow, StateMismatchIsRefused) {
    FakeAs as;
    TestHost host;
    host.opener = Opener::tamper;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "state")) << r.message;
    EXPECT_EQ(as.code_exchanges.load(), 0);
    EXPECT_TRUE(contains(auth.describe(), "state_mismatch"));
}

TEST(OAuthFlow, UserNeverCompletesBrowserStep) {
    FakeAs as;
    TestHost host;
    host.opener = Opener::nothing;
    unsigned short port = free_port();
    AuthObject auth(host, as.mcp_url(),
                    R"({"authTimeoutMs":400,"callbackPort":)" + std::to_string(port) + "}");
    auto start = std::chrono::steady_clock::now();
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_TIMEOUT) << r.message;
    EXPECT_TRUE(contains(r.message, "did not complete")) << r.message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(can_bind(port));  // the callback port was freed
    EXPECT_TRUE(contains(auth.describe(), "callback_timeout"));
}

TEST(OAuthFlow, ApplicationRefusesToOpenTheBrowser) {
    FakeAs as;
    TestHost host;
    host.opener = Opener::refuse;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_CANCELLED) << r.message;
    EXPECT_TRUE(contains(auth.describe(), "user_cancelled"));
}

TEST(OAuthFlow, AuthorizationServerDown) {
    FakeAsOptions o;
    o.authorization_server = "http://127.0.0.1:" + std::to_string(http_test::closed_port());
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_IO) << r.message;
    EXPECT_TRUE(contains(r.message, "metadata_unreachable")) << r.message;
    EXPECT_TRUE(contains(r.message, "unreachable")) << r.message;
}

TEST(OAuthFlow, TokenEndpointReturnsHtml) {
    FakeAsOptions o;
    o.token_mode = "html";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "token endpoint at " + as.origin() + "/token")) << r.message;
    EXPECT_TRUE(contains(r.message, "text/html")) << r.message;
}

TEST(OAuthFlow, Status200WithErrorBody) {
    FakeAsOptions o;
    o.token_mode = "error200";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "invalid_client")) << r.message;
    EXPECT_TRUE(contains(r.message, "token_exchange_failed")) << r.message;
    EXPECT_EQ(auth.authorization(), "");
}

TEST(OAuthFlow, ResourceMismatchIsRefused) {
    FakeAsOptions o;
    o.prm_resource = "https://elsewhere.example/mcp";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "resource_mismatch")) << r.message;
    EXPECT_EQ(as.authorizations.load(), 0);
}

TEST(OAuthFlow, NoPkceS256IsRefused) {
    FakeAsOptions o;
    o.pkce_s256 = false;
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_TRUE(contains(r.message, "pkce_unsupported")) << r.message;
    EXPECT_EQ(as.authorizations.load(), 0);
}

TEST(OAuthFlow, FreshTokenRejectedGivesUpWithoutLooping) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    auto r = auth.challenge(401, bearer_header(as.prm_url(), ", error=\"invalid_token\""));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "token_rejected")) << r.message;
    EXPECT_EQ(as.authorizations.load(), 1);
    EXPECT_EQ(as.refreshes.load(), 0);
}

TEST(OAuthFlow, StepUpUnionsScopesAndStopsAfterThreeAttempts) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url(), ", scope=\"a\"")).status, MCPH_OK);
    std::string insufficient = bearer_header(as.prm_url(), ", error=\"insufficient_scope\", scope=\"b\"");
    ASSERT_EQ(auth.challenge(403, insufficient).status, MCPH_OK);
    EXPECT_EQ(as.last_authorize()["scope"], "b a");
    EXPECT_EQ(auth.challenge(403, insufficient).status, MCPH_OK);
    EXPECT_EQ(auth.challenge(403, insufficient).status, MCPH_OK);
    auto r = auth.challenge(403, insufficient);
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "step_up_limit")) << r.message;
    EXPECT_EQ(as.authorizations.load(), 4);  // 1 initial + 3 for "b a"
    // A 403 that is not about scope is not fixable by re-authorizing.
    EXPECT_EQ(auth.challenge(403, "Bearer error=\"invalid_token\"").status, MCPH_ERR_AUTH);
}

TEST(OAuthFlow, ConcurrentRefreshIsSingleFlight) {
    FakeAsOptions o;
    o.expires_in = 30;  // inside the 60 s refresh margin
    o.refresh_delay = std::chrono::milliseconds(300);
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    std::string first = as.issued_tokens().back();
    std::string h1, h2;
    std::thread t1([&] { h1 = auth.authorization(); });
    std::thread t2([&] { h2 = auth.authorization(); });
    t1.join();
    t2.join();
    EXPECT_EQ(as.refreshes.load(), 1);
    EXPECT_EQ(h1, h2);
    EXPECT_NE(h1, "Bearer " + first);
    EXPECT_EQ(as.last_token_form()["refresh_token"], "rt-" + first);
    EXPECT_EQ(as.last_token_form()["resource"], as.mcp_url());
}

TEST(OAuthFlow, RefreshUsesTokenAnotherProcessStored) {
    FakeAsOptions o;
    o.expires_in = 30;
    FakeAs as(o);
    TestHost host;
    AuthObject a(host, as.mcp_url(), "{}");
    AuthObject b(host, as.mcp_url(), "{}");
    ASSERT_EQ(a.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    std::string mine = b.authorization();  // b loads a's token, refreshes it (margin)
    EXPECT_EQ(as.refreshes.load(), 1);
    // a now needs a refresh too, but finds b's fresher token in the store... which is also
    // within the margin here, so a refreshes once more: never with a stale refresh token.
    std::string theirs = a.authorization();
    EXPECT_FALSE(theirs.empty());
    EXPECT_EQ(as.last_token_form()["refresh_token"].rfind("rt-", 0), 0u);
}

TEST(OAuthFlow, InvalidRefreshTokenForgetsCredentials) {
    FakeAsOptions o;
    o.expires_in = 30;
    o.refresh_mode = "invalid_refresh_token";  // Slack-style: 200 + vendor code
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    std::string h = auth.authorization();  // refresh fails; the token is still valid for ~30 s? no: forgotten
    EXPECT_EQ(as.refreshes.load(), 1);
    EXPECT_EQ(h, "");
    EXPECT_TRUE(contains(auth.describe(), "\"state\":\"unauthenticated\""));
    EXPECT_TRUE(contains(auth.describe(), "invalid_grant"));
}

TEST(OAuthFlow, ClientCredentialsWithBasic) {
    FakeAsOptions o;
    o.auth_methods = {"client_secret_basic"};
    FakeAs as(o);
    TestHost host;
    host.opener = Opener::refuse;  // no browser in this grant
    AuthObject auth(host, as.mcp_url(),
                    R"({"grant":"client_credentials","clientId":"svc","clientSecret":"secret-3","scopes":["x"]})");
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.client_credentials.load(), 1);
    EXPECT_EQ(as.last_token_form()["grant_type"], "client_credentials");
    EXPECT_EQ(as.last_token_form()["scope"], "x");
    EXPECT_EQ(as.last_token_form()["resource"], as.mcp_url());
    EXPECT_EQ(as.last_token_authorization(), "Basic c3ZjOnNlY3JldC0z");
    EXPECT_TRUE(host.opened().empty());
    EXPECT_FALSE(auth.authorization().empty());
}

TEST(OAuthFlow, ClientCredentialsWithPrivateKeyJwt) {
    FakeAsOptions o;
    o.auth_methods = {"private_key_jwt"};
    FakeAs as(o);
    TestHost host;
    auto kp = make_p256_key();
    std::string pem;
    for (char c : kp.private_pem) pem += c == '\n' ? std::string("\\n") : std::string(1, c);
    AuthObject auth(host, as.mcp_url(),
                    R"({"grant":"client_credentials","clientId":"svc","privateKeyPem":")" + pem +
                        R"(","signingAlgorithm":"ES256"})");
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    auto r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    auto f = as.last_token_form();
    EXPECT_EQ(f["client_assertion_type"], "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    std::string claims;
    ASSERT_TRUE(verify_es256(f["client_assertion"], kp.public_pem, &claims));
    EXPECT_TRUE(contains(claims, "\"iss\":\"svc\""));
    EXPECT_TRUE(contains(claims, "\"sub\":\"svc\""));
    EXPECT_TRUE(contains(claims, "\"aud\":\"" + as.origin() + "\""));
    EXPECT_EQ(as.last_token_authorization(), "");
}

TEST(OAuthFlow, BadConfigFailsAtCreate) {
    TestHost host;
    AuthObject auth(host, "http://127.0.0.1:1/mcp", R"({"callbackPort":"x"})");
    EXPECT_EQ(auth.create_result().status, MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(auth.create_result().message, "callbackPort"));
}

namespace {

// Waits (bounded) until the object no longer presents a token: the token has expired.
bool wait_until_no_token(AuthObject& auth, std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!auth.authorization().empty()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

// Very short tokens and no refresh token (client_credentials): each 401 after the token expired
// gets a new token. Neither the "issued moments ago" guard (the expired token was not even sent)
// nor the loop guard (3 authorizations per scope set) may turn expiry into giving up.
TEST(OAuthFlow, ShortLivedClientCredentialsTokensAreRenewedAfterEachExpiry) {
    FakeAsOptions o;
    o.auth_methods = {"client_secret_basic"};
    o.expires_in = 1;
    o.refresh_tokens = false;
    FakeAs as(o);
    TestHost host;
    host.opener = Opener::refuse;  // no browser in this grant
    AuthObject auth(host, as.mcp_url(), R"({"grant":"client_credentials","clientId":"svc","clientSecret":"secret-3"})");
    constexpr int kRounds = 4;  // one more than the loop guard's 3 authorizations per window
    std::string previous;
    for (int round = 1; round <= kRounds; ++round) {
        Result r = auth.challenge(401, bearer_header(as.prm_url()));
        ASSERT_EQ(r.status, MCPH_OK) << "round " << round << ": " << r.message;
        const std::string now = auth.authorization();
        EXPECT_EQ(now, "Bearer " + as.issued_tokens().back()) << "round " << round;
        EXPECT_NE(now, previous);
        previous = now;
        ASSERT_TRUE(wait_until_no_token(auth, std::chrono::seconds(5))) << "round " << round;
    }
    EXPECT_EQ(as.client_credentials.load(), kRounds);
    EXPECT_TRUE(host.opened().empty());
}

}  // namespace
