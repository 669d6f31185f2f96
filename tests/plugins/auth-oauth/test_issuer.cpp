// Issuer discipline and registration (issue #12), the built plugin against the scripted AS:
// RFC 8414 §3.3 metadata issuer, RFC 9207 `iss` in the authorization response, the PRM's
// `resource` and named AS, SEP-837 application_type, SEP-2352 re-registration on AS change.
#include "client_registration.hpp"
#include "discovery.hpp"
#include "fake_as.hpp"
#include "test_host.hpp"
#include "token_store.hpp"

#include <gtest/gtest.h>

#include <atomic>

using namespace oauth_test;

namespace {

// The flow stopped before the code reached the token endpoint, and nothing was stored.
void expect_refused_before_token(FakeAs& as, TestHost& host, AuthObject& auth, const Result& r) {
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_EQ(as.code_exchanges.load(), 0);
    EXPECT_EQ(auth.authorization(), "");
    for (const auto& [key, value] : host.secrets()) EXPECT_FALSE(contains(value, "access_token")) << value;
}

}  // namespace

// The attack: a loopback AS whose metadata claims to be Google. Nothing from that
// document is used: no registration, no authorization, no token, nothing stored under that name.
TEST(OAuthIssuer, MetadataClaimingAnotherIssuerIsRefused) {
    FakeAsOptions o;
    o.metadata_issuer = "https://accounts.google.com";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "RFC 8414")) << r.message;
    EXPECT_TRUE(contains(r.message, as.origin())) << r.message;  // names the issuer it expected
    EXPECT_EQ(as.registrations.load(), 0);
    EXPECT_EQ(as.authorizations.load(), 0);
    EXPECT_EQ(as.code_exchanges.load(), 0);
    EXPECT_TRUE(host.secrets().empty());
    EXPECT_TRUE(host.opened().empty());
    EXPECT_FALSE(contains(all_output(host, auth, r), "accounts.google.com")) << "the claimed issuer was echoed";
}

TEST(OAuthIssuer, IssuerComparisonIsExact) {
    using namespace mcph::oauth;
    AuthServerMetadata as;
    as.url = "https://as.example/.well-known/oauth-authorization-server";
    as.issuer = "https://as.example";
    check_issuer("https://as.example", as);
    for (const char* variant : {"https://as.example/", "HTTPS://as.example", "https://AS.example", "https://as.example:443", ""}) {
        as.issuer = variant;
        EXPECT_THROW(check_issuer("https://as.example", as), OAuthError) << variant;
    }
}

TEST(OAuthIssuer, AdvertisedIssMissingFromTheRedirectIsRefused) {
    FakeAsOptions o;
    o.iss_supported = true;
    o.iss_mode = "omit";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(as.authorizations.load(), 1);  // it got as far as the redirect
    expect_refused_before_token(as, host, auth, r);
    EXPECT_TRUE(contains(r.message, "carried no iss")) << r.message;
}

TEST(OAuthIssuer, AdvertisedAndCorrectIssIsAcceptedAndTokensCarryTheRecordedIssuer) {
    FakeAsOptions o;
    o.iss_supported = true;
    o.iss_mode = "correct";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.code_exchanges.load(), 1);
    EXPECT_TRUE(contains(auth.describe(), "\"issuer\":\"" + as.origin() + "\"")) << auth.describe();
}

TEST(OAuthIssuer, PresentIssIsComparedEvenWhenNotAdvertised) {
    FakeAsOptions o;
    o.iss_mode = "wrong";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    expect_refused_before_token(as, host, auth, r);
    EXPECT_TRUE(contains(r.message, "RFC 9207")) << r.message;
    EXPECT_FALSE(contains(all_output(host, auth, r), "accounts.google.com"));
}

TEST(OAuthIssuer, TrailingSlashIssIsAMismatch) {
    FakeAsOptions o;
    o.iss_supported = true;
    o.iss_mode = "normalized";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    expect_refused_before_token(as, host, auth, auth.challenge(401, bearer_header(as.prm_url())));
}

// A mixed-up response's error text was written by the other AS: it is never shown.
TEST(OAuthIssuer, MismatchedIssHidesTheErrorTextOfTheResponse) {
    FakeAsOptions o;
    o.iss_mode = "wrong";
    o.authorize_error = "access_denied";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    expect_refused_before_token(as, host, auth, r);
    std::string all = all_output(host, auth, r);
    EXPECT_TRUE(contains(r.message, "RFC 9207")) << r.message;
    EXPECT_FALSE(contains(all, "AS-WROTE-THIS")) << all;
    EXPECT_FALSE(contains(all, "access_denied")) << all;
}

TEST(OAuthIssuer, ProtectedResourceMetadataWithoutResourceIsRefused) {
    FakeAsOptions o;
    o.prm_has_resource = false;
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "has no resource")) << r.message;
    EXPECT_EQ(as.registrations.load(), 0);
    EXPECT_EQ(as.authorizations.load(), 0);
}

// The 2025-03-26 /authorize /token /register guesses would skip the PKCE S256 check: when a PRM
// names the AS, no metadata there is an error, not a reason to guess.
TEST(OAuthIssuer, PrmNamedServerWithoutMetadataIsNotGuessed) {
    FakeAsOptions o;
    o.as_metadata = false;
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "serves no authorization server metadata")) << r.message;
    EXPECT_EQ(as.registrations.load(), 0);
    EXPECT_EQ(as.authorizations.load(), 0);
    EXPECT_TRUE(host.opened().empty());
}

TEST(OAuthRegistration, DynamicRegistrationSendsApplicationType) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    ASSERT_EQ(auth.challenge(401, bearer_header(as.prm_url())).status, MCPH_OK);
    EXPECT_TRUE(contains(as.last_registration_body(), "\"application_type\":\"native\"")) << as.last_registration_body();
    EXPECT_STREQ(mcph::oauth::application_type("http://127.0.0.1:5000/callback"), "native");
    EXPECT_STREQ(mcph::oauth::application_type("http://[::1]:5000/callback"), "native");
    EXPECT_STREQ(mcph::oauth::application_type("https://app.example/callback"), "web");
    EXPECT_STREQ(mcph::oauth::application_type("http://app.example/callback"), "web");
}

// SEP-2352: signed in at AS1 (tokens and a registered client stored), the PRM then names AS2.
// The client registers at AS2 and never shows AS1's client id or refresh token there.
TEST(OAuthRegistration, AuthorizationServerMigrationRegistersAgain) {
    FakeAsOptions o1;
    o1.registered_client_id = "as1-client";
    FakeAs as1(o1);
    FakeAsOptions o2;
    o2.registered_client_id = "as2-client";
    FakeAs as2(o2);
    TestHost host;
    {
        AuthObject first(host, as1.mcp_url(), "{}");
        ASSERT_EQ(first.challenge(401, bearer_header(as1.prm_url())).status, MCPH_OK);
        ASSERT_EQ(as1.registrations.load(), 1);
    }
    ASSERT_EQ(host.secrets().size(), 2u);  // tokens + AS1's client, as a later process finds them

    as1.set_authorization_server(as2.origin());
    AuthObject auth(host, as1.mcp_url(), "{}");
    ASSERT_FALSE(auth.authorization().empty());  // the stored AS1 token is used until refused
    Result r = auth.challenge(401, bearer_header(as1.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as2.registrations.load(), 1);
    EXPECT_EQ(as2.last_authorize()["client_id"], "as2-client");
    EXPECT_EQ(as2.last_token_form()["client_id"], "as2-client");
    EXPECT_EQ(as2.last_token_form().count("refresh_token"), 0u);
    EXPECT_EQ(as1.refreshes.load(), 0);  // the old AS's refresh token was not spent either
    EXPECT_EQ(auth.authorization(), "Bearer " + as2.issued_tokens().back());
    EXPECT_TRUE(contains(auth.describe(), "\"issuer\":\"" + as2.origin() + "\"")) << auth.describe();
    bool as1_client_left = false;
    for (const auto& [key, value] : host.secrets()) as1_client_left |= contains(value, "as1-client");
    EXPECT_FALSE(as1_client_left);
}

// The last step of the order (pre-registered → CIMD → DCR): nothing fits, so the user is asked
// for a clientId, before any browser step.
TEST(OAuthRegistration, NoWayToRegisterAsksForAClientId) {
    FakeAsOptions o;
    o.dcr = false;
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "configure oauth.clientId")) << r.message;
    EXPECT_TRUE(contains(auth.describe(), "registration_failed")) << auth.describe();
    EXPECT_EQ(as.authorizations.load(), 0);
    EXPECT_TRUE(host.opened().empty());
}

namespace {

// RFC 9207: `iss=` with an empty value is present, and names no issuer this client knows — a
// mismatch even when the AS does not advertise the parameter (an absent one would be allowed).
TEST(OAuthIssuer, EmptyIssIsAMismatchNotAnAbsentOne) {
    FakeAsOptions o;
    o.iss_supported = false;
    o.iss_mode = "empty";
    FakeAs as(o);
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(as.authorizations.load(), 1);  // it got as far as the redirect
    expect_refused_before_token(as, host, auth, r);
    EXPECT_TRUE(contains(r.message, "RFC 9207")) << r.message;
    EXPECT_TRUE(contains(auth.describe(), "state_mismatch")) << auth.describe();
}

// SEP-2352 with a second process: signed in at AS1, the PRM now names AS2, and by the time this
// process holds the refresh lock another process has already signed in at AS2 and stored its
// tokens. Those are kept and used — not erased as "the old AS's" — and no second sign-in runs.
TEST(OAuthRegistration, MigrationKeepsTokensAnotherProcessGotFromTheNewAs) {
    FakeAs as1, as2;
    TestHost host;
    {
        AuthObject first(host, as1.mcp_url(), "{}");
        ASSERT_EQ(first.challenge(401, bearer_header(as1.prm_url())).status, MCPH_OK);
    }
    const std::string tokens_key = mcph::oauth::store_key_base("test-server", as1.mcp_url(), "") + ".tokens";
    ASSERT_EQ(host.secrets().count(tokens_key), 1u);

    mcph::oauth::StoredTokens theirs;
    theirs.access_token = "at-from-the-other-process";
    theirs.expires_at = mcph::oauth::now_seconds() + 3600;
    theirs.token_endpoint = as2.origin() + "/token";
    theirs.issuer = as2.origin();
    theirs.resource = as1.mcp_url();
    theirs.token_type = "Bearer";
    host.lock_mode = LockMode::grant;
    std::atomic<int> writes{0};
    host.on_lock = [&] {
        if (writes++ == 0) host.put_secret(tokens_key, mcph::oauth::serialize(theirs));
    };

    as1.set_authorization_server(as2.origin());
    AuthObject auth(host, as1.mcp_url(), "{}");
    ASSERT_FALSE(auth.authorization().empty());  // AS1's token, until refused
    Result r = auth.challenge(401, bearer_header(as1.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_GE(host.lock_calls.load(), 1);  // decided under the lock
    EXPECT_EQ(auth.authorization(), "Bearer at-from-the-other-process");
    EXPECT_EQ(as2.authorizations.load(), 0);
    EXPECT_EQ(as2.registrations.load(), 0);
    EXPECT_EQ(host.opened().size(), 1u);  // only the first sign-in at AS1
    ASSERT_EQ(host.secrets().count(tokens_key), 1u);
    EXPECT_TRUE(contains(host.secrets()[tokens_key], "at-from-the-other-process"));
}

// The new AS's tokens the other process stored have expired meanwhile: they are refreshed at the
// new AS (with their refresh token), still without a sign-in.
TEST(OAuthRegistration, MigrationRefreshesExpiredTokensAnotherProcessGotFromTheNewAs) {
    FakeAs as1, as2;
    TestHost host;
    {
        AuthObject first(host, as1.mcp_url(), "{}");
        ASSERT_EQ(first.challenge(401, bearer_header(as1.prm_url())).status, MCPH_OK);
    }
    const std::string tokens_key = mcph::oauth::store_key_base("test-server", as1.mcp_url(), "") + ".tokens";
    mcph::oauth::StoredTokens theirs;
    theirs.access_token = "at-expired-from-the-other-process";
    theirs.refresh_token = "rt-from-the-other-process";
    theirs.expires_at = mcph::oauth::now_seconds() - 10;
    theirs.token_endpoint = as2.origin() + "/token";
    theirs.issuer = as2.origin();
    theirs.resource = as1.mcp_url();
    theirs.token_type = "Bearer";
    theirs.client.client_id = "dcr-client";
    theirs.client.auth_method = "none";
    theirs.client.source = "dcr";
    host.lock_mode = LockMode::grant;
    std::atomic<int> writes{0};
    host.on_lock = [&] {
        if (writes++ == 0) host.put_secret(tokens_key, mcph::oauth::serialize(theirs));
    };

    as1.set_authorization_server(as2.origin());
    AuthObject auth(host, as1.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as1.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as2.refreshes.load(), 1);
    EXPECT_EQ(as2.last_token_form()["refresh_token"], "rt-from-the-other-process");
    EXPECT_EQ(as2.authorizations.load(), 0);
    EXPECT_EQ(host.opened().size(), 1u);
    EXPECT_EQ(auth.authorization(), "Bearer " + as2.issued_tokens().back());
}

// The other side: what the store holds under the lock is still AS1's (another process refreshed
// there): it is erased, and this process signs in at AS2.
TEST(OAuthRegistration, MigrationErasesOldAsTokensFoundUnderTheLock) {
    FakeAs as1, as2;
    TestHost host;
    {
        AuthObject first(host, as1.mcp_url(), "{}");
        ASSERT_EQ(first.challenge(401, bearer_header(as1.prm_url())).status, MCPH_OK);
    }
    const std::string tokens_key = mcph::oauth::store_key_base("test-server", as1.mcp_url(), "") + ".tokens";
    auto refreshed = mcph::oauth::deserialize_tokens(host.secrets()[tokens_key]);
    ASSERT_TRUE(refreshed);
    refreshed->access_token = "at-refreshed-at-as1-elsewhere";
    host.lock_mode = LockMode::grant;
    std::atomic<int> writes{0};
    host.on_lock = [&] {
        if (writes++ == 0) host.put_secret(tokens_key, mcph::oauth::serialize(*refreshed));
    };

    as1.set_authorization_server(as2.origin());
    AuthObject auth(host, as1.mcp_url(), "{}");
    Result r = auth.challenge(401, bearer_header(as1.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as2.authorizations.load(), 1);
    EXPECT_EQ(auth.authorization(), "Bearer " + as2.issued_tokens().back());
    EXPECT_FALSE(contains(host.secrets()[tokens_key], "at-refreshed-at-as1-elsewhere"));
}

}  // namespace
