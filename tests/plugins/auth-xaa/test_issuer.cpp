// Exact issuer discipline at the enterprise IdP: the OpenID configuration's `issuer`, the
// authorization callback's `iss` (RFC 9207) and the id_token's `iss` must each equal the
// configured idp.issuer byte for byte. Unit tests of issuer.hpp, then the built plugin against
// the scripted IdP (fake_xaa), each refusal proven by the fake's request counters: nothing
// after the refused step reached the IdP or the AS.
#include "fake_xaa.hpp"
#include "issuer.hpp"
#include "test_host.hpp"

#include "errors.hpp"

#include <gtest/gtest.h>

#include <functional>

using namespace xaa_test;
using mcph::oauth::FailureKind;
using mcph::oauth::OAuthError;
using oauth_test::AuthObject;
using oauth_test::TestHost;

namespace {

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string bearer_header(const FakeXaa& f) { return "Bearer resource_metadata=\"" + f.prm_url() + "\""; }

// An XAA config whose id_token comes from an interactive sign-in at `issuer`.
std::string config_for(const std::string& issuer, const std::string& idp_extra = "") {
    return R"({"xaa":true,"clientId":"mcp-client","clientSecret":"secret-as","idp":{"issuer":")" + issuer +
           R"(","clientId":"idp-client")" + idp_extra + "}}";
}

// The error `fn` raises, as the plugin raises it.
OAuthError raised(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const OAuthError& e) {
        return e;
    }
    ADD_FAILURE() << "no OAuthError";
    return OAuthError(FailureKind::none, "");
}

std::string all_text(TestHost& host, AuthObject& auth, const std::string& message) {
    std::string all = message + "\n" + auth.describe();
    for (const auto& l : host.logs()) all += "\n" + l;
    return all;
}

// Nothing past the IdP's OpenID configuration: no browser, no IdP token request, no ID-JAG
// request, no request at the AS token endpoint.
void expect_stopped_at_metadata(const FakeXaa& f, TestHost& host) {
    EXPECT_EQ(f.idp_metadata_fetches.load(), 1);
    EXPECT_TRUE(host.opened().empty());
    EXPECT_EQ(f.idp_logins.load(), 0);
    EXPECT_EQ(f.idp_code_grants.load(), 0);
    EXPECT_EQ(f.exchanges.load(), 0);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 0);
}

// The sign-in page was visited, then nothing: the code was never redeemed, no ID-JAG, no AS.
void expect_stopped_at_callback(const FakeXaa& f) {
    EXPECT_EQ(f.idp_logins.load(), 1);
    EXPECT_EQ(f.idp_code_grants.load(), 0);
    EXPECT_EQ(f.exchanges.load(), 0);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 0);
}

std::string spelling_name(const ::testing::TestParamInfo<IssuerSpelling>& info) {
    switch (info.param) {
        case IssuerSpelling::absent: return "Absent";
        case IssuerSpelling::exact: return "Exact";
        case IssuerSpelling::trailing_slash: return "TrailingSlash";
        case IssuerSpelling::upper_scheme: return "UpperCaseScheme";
        case IssuerSpelling::other: return "OtherIssuer";
        case IssuerSpelling::empty: return "Empty";
    }
    return "Unknown";
}

}  // namespace

// ---- issuer.hpp -----------------------------------------------------------------------------

TEST(XaaIssuerCheck, MetadataIssuerIsComparedExactly) {
    const std::string where = "https://idp.example.com/.well-known/openid-configuration";
    mcph::xaa::check_metadata_issuer("https://idp.example.com", std::string("https://idp.example.com"), where);
    mcph::xaa::check_metadata_issuer("https://idp.example.com/", std::string("https://idp.example.com/"), where);
    for (const char* published : {"https://idp.example.com/", "https://IDP.example.com", "HTTPS://idp.example.com",
                                  "https://idp.example.com:443", "https://idp.example.com/tenant", ""}) {
        OAuthError e = raised([&] { mcph::xaa::check_metadata_issuer("https://idp.example.com", std::string(published), where); });
        EXPECT_EQ(e.kind(), FailureKind::metadata_invalid) << published;
        EXPECT_TRUE(contains(e.what(), std::string("\"") + published + "\"")) << e.what();
        EXPECT_TRUE(contains(e.what(), "\"https://idp.example.com\"")) << e.what();
    }
    OAuthError missing = raised([&] { mcph::xaa::check_metadata_issuer("https://idp.example.com", std::nullopt, where); });
    EXPECT_EQ(missing.kind(), FailureKind::metadata_invalid);
    EXPECT_TRUE(contains(missing.what(), "names no issuer")) << missing.what();
}

TEST(XaaIssuerCheck, TrailingSlashMismatchCarriesTheFixItHintOthersDoNot) {
    const std::string where = "https://idp.example.com/.well-known/openid-configuration";
    OAuthError slash = raised(
        [&] { mcph::xaa::check_metadata_issuer("https://idp.example.com/", std::string("https://idp.example.com"), where); });
    EXPECT_TRUE(contains(slash.what(), "write the issuer exactly as the IdP publishes it: \"https://idp.example.com\""))
        << slash.what();
    OAuthError reverse = raised(
        [&] { mcph::xaa::check_metadata_issuer("https://idp.example.com", std::string("https://idp.example.com/"), where); });
    EXPECT_TRUE(contains(reverse.what(), "publishes it: \"https://idp.example.com/\"")) << reverse.what();
    OAuthError other = raised(
        [&] { mcph::xaa::check_metadata_issuer("https://idp.example.com", std::string("https://evil.example"), where); });
    EXPECT_FALSE(contains(other.what(), "publishes it")) << other.what();
}

TEST(XaaIssuerCheck, CallbackIssPerRfc9207) {
    const std::string is = "https://idp.example.com";
    mcph::xaa::check_callback_iss(is, std::nullopt, false);  // not advertised: absence allowed
    mcph::xaa::check_callback_iss(is, is, false);
    mcph::xaa::check_callback_iss(is, is, true);
    EXPECT_EQ(raised([&] { mcph::xaa::check_callback_iss(is, std::nullopt, true); }).kind(), FailureKind::state_mismatch);
    // A present but empty iss is a value, not an absence: refused whether advertised or not.
    for (bool advertised : {false, true})
        for (const char* iss : {"", "https://idp.example.com/", "https://evil.example", "HTTPS://idp.example.com"})
            EXPECT_EQ(raised([&] { mcph::xaa::check_callback_iss(is, iss, advertised); }).kind(), FailureKind::state_mismatch)
                << iss << " advertised=" << advertised;
}

TEST(XaaIssuerCheck, IdTokenIss) {
    const std::string is = "https://idp.example.com";
    mcph::xaa::check_id_token_iss(is, is);
    EXPECT_EQ(raised([&] { mcph::xaa::check_id_token_iss(is, std::nullopt); }).kind(), FailureKind::state_mismatch);
    EXPECT_EQ(raised([&] { mcph::xaa::check_id_token_iss(is, std::string(is + "/")); }).kind(), FailureKind::state_mismatch);
}

TEST(XaaIssuerCheck, ShownValuesAreQuotedBoundedAndPrintable) {
    EXPECT_EQ(mcph::xaa::shown("a\r\nb\x7f"), "\"a??b?\"");
    std::string huge = mcph::xaa::shown(std::string(100000, 'x'));
    EXPECT_LT(huge.size(), 220u);
    EXPECT_TRUE(contains(huge, "..."));
}

// ---- the plugin against the scripted IdP ------------------------------------------------------

// The case the fix-it hint is for: the user wrote a trailing slash the IdP does not publish.
TEST(XaaIssuer, ConfiguredTrailingSlashTheIdpDoesNotPublishIsRefusedWithAHint) {
    FakeXaa f;
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer() + "/"));
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "names issuer \"" + f.idp_issuer() + "\"")) << r.message;
    EXPECT_TRUE(contains(r.message, "\"" + f.idp_issuer() + "/\"")) << r.message;
    EXPECT_TRUE(contains(r.message, "write the issuer exactly as the IdP publishes it: \"" + f.idp_issuer() + "\""))
        << r.message;
    EXPECT_TRUE(contains(auth.describe(), "metadata_invalid")) << auth.describe();
    expect_stopped_at_metadata(f, host);
}

class XaaMetadataIssuer : public ::testing::TestWithParam<IssuerSpelling> {};

TEST_P(XaaMetadataIssuer, AnyOtherSpellingOrNoneIsRefusedAndNothingFromTheDocumentIsUsed) {
    FakeXaaOptions o;
    o.metadata_issuer = GetParam();
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "\"" + f.idp_issuer() + "\"")) << r.message;
    if (GetParam() == IssuerSpelling::absent) EXPECT_TRUE(contains(r.message, "names no issuer")) << r.message;
    else EXPECT_TRUE(contains(r.message, "names issuer \"" + f.spelled(GetParam()) + "\"")) << r.message;
    EXPECT_EQ(contains(r.message, "publishes it"), GetParam() == IssuerSpelling::trailing_slash) << r.message;
    expect_stopped_at_metadata(f, host);
}

INSTANTIATE_TEST_SUITE_P(Spellings, XaaMetadataIssuer,
                         ::testing::Values(IssuerSpelling::absent, IssuerSpelling::trailing_slash,
                                           IssuerSpelling::upper_scheme, IssuerSpelling::other),
                         spelling_name);

// With a configured tokenEndpoint the document is read only for the sign-in page; it is
// still refused before its authorization_endpoint is used.
TEST(XaaIssuer, MismatchRefusedAlsoWhenOnlyTheAuthorizationEndpointIsTakenFromDiscovery) {
    FakeXaaOptions o;
    o.metadata_issuer = IssuerSpelling::other;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer(), R"(,"tokenEndpoint":")" + f.idp_issuer() + R"(/token")"));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "names issuer \"" + f.origin() + "/other-idp\"")) << r.message;
    expect_stopped_at_metadata(f, host);
}

TEST(XaaIssuer, AdvertisedIssParameterMissingFromTheCallbackIsRefused) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = true;
    o.callback_iss = IssuerSpelling::absent;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "carried no iss")) << r.message;
    EXPECT_TRUE(contains(auth.describe(), "state_mismatch")) << auth.describe();
    expect_stopped_at_callback(f);
}

TEST(XaaIssuer, WrongIssInTheCallbackIsRefusedEvenWhenNotAdvertised) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = false;
    o.callback_iss = IssuerSpelling::other;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "came from issuer \"" + f.origin() + "/other-idp\"")) << r.message;
    EXPECT_TRUE(contains(r.message, "expected \"" + f.idp_issuer() + "\"")) << r.message;
    expect_stopped_at_callback(f);
}

TEST(XaaIssuer, EmptyIssInTheCallbackIsRefusedEvenWhenNotAdvertised) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = false;
    o.callback_iss = IssuerSpelling::empty;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "came from issuer \"\"")) << r.message;
    EXPECT_TRUE(contains(auth.describe(), "state_mismatch")) << auth.describe();
    expect_stopped_at_callback(f);
}

TEST(XaaIssuer, CallbackIssWithATrailingSlashIsNotTheIssuer) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = true;
    o.callback_iss = IssuerSpelling::trailing_slash;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    EXPECT_EQ(auth.challenge(401, bearer_header(f)).status, MCPH_ERR_AUTH);
    expect_stopped_at_callback(f);
}

// An error response carrying another issuer's iss: its error text is never shown.
TEST(XaaIssuer, ErrorCallbackFromAnotherIssuerDoesNotShowItsErrorText) {
    FakeXaaOptions o;
    o.callback_iss = IssuerSpelling::other;
    o.callback_error_description = "Call 555-0100 to restore your account";
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "RFC 9207")) << r.message;
    const std::string all = all_text(host, auth, r.message);
    EXPECT_FALSE(contains(all, "555-0100")) << all;
    EXPECT_FALSE(contains(all, "access_denied")) << all;
    expect_stopped_at_callback(f);
}

// The control for the test above: from the right issuer the IdP's error is reported (quoted,
// control bytes replaced).
TEST(XaaIssuer, ErrorCallbackFromTheIssuerIsReported) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = true;
    o.callback_iss = IssuerSpelling::exact;
    o.callback_error_description = "policy forbids\r\nthis app";
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "\"policy forbids??this app\"")) << r.message;  // quoted, no forged lines
    EXPECT_FALSE(contains(r.message, "\n")) << r.message;
    expect_stopped_at_callback(f);
}

class XaaIdTokenIssuer : public ::testing::TestWithParam<IssuerSpelling> {};

TEST_P(XaaIdTokenIssuer, IdTokenFromAnotherIssuerOrNoneIsNotExchanged) {
    FakeXaaOptions o;
    o.id_token_iss = GetParam();
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    EXPECT_EQ(r.status, MCPH_ERR_AUTH);
    EXPECT_TRUE(contains(r.message, "id_token")) << r.message;
    EXPECT_EQ(f.idp_code_grants.load(), 1);
    EXPECT_EQ(f.exchanges.load(), 0);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 0);
    for (const auto& [key, value] : host.secrets()) EXPECT_FALSE(contains(key, "id_token")) << key;
}

INSTANTIATE_TEST_SUITE_P(Spellings, XaaIdTokenIssuer,
                         ::testing::Values(IssuerSpelling::absent, IssuerSpelling::trailing_slash, IssuerSpelling::other),
                         spelling_name);

// The happy path with RFC 9207 in force: advertised, the callback names the issuer exactly.
TEST(XaaIssuer, AdvertisedAndExactIssSignsIn) {
    FakeXaaOptions o;
    o.advertise_iss_parameter = true;
    o.callback_iss = IssuerSpelling::exact;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer()));
    auto r = auth.challenge(401, bearer_header(f));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(f.idp_code_grants.load(), 1);
    EXPECT_EQ(f.exchanges.load(), 1);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 1);
    EXPECT_EQ(auth.authorization(), "Bearer " + f.issued().back());
}

// Exactness is not "no trailing slash": an IdP that publishes its issuer with one (as some
// hosted IdPs do) works when it is configured the same way.
TEST(XaaIssuer, IssuerWithATrailingSlashWorksWhenWrittenAsPublished) {
    FakeXaaOptions o;
    o.metadata_issuer = IssuerSpelling::trailing_slash;
    o.advertise_iss_parameter = true;
    o.callback_iss = IssuerSpelling::trailing_slash;
    o.id_token_iss = IssuerSpelling::trailing_slash;
    FakeXaa f(o);
    TestHost host;
    AuthObject auth(host, f.mcp_url(), config_for(f.idp_issuer() + "/"));
    auto r = auth.challenge(401, bearer_header(f));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(f.idp_metadata_fetches.load(), 1);  // .../idp/.well-known/openid-configuration
    EXPECT_EQ(f.exchanges.load(), 1);
    EXPECT_EQ(f.jwt_bearer_grants.load(), 1);
}
