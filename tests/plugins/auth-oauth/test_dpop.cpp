// DPoP (RFC 9449): the proof itself (unit), then the built plugin against a scripted AS + RS
// that verify every proof with OpenSSL from the proof's own jwk (dpop_fake.hpp).
#include "dpop.hpp"
#include "dpop_fake.hpp"
#include "jwt_verify.hpp"
#include "test_host.hpp"
#include "www_authenticate.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace oauth_test;
using mcph::oauth::DpopKey;

namespace {

std::string header(const std::vector<std::pair<std::string, std::string>>& h, const std::string& name) {
    for (const auto& [n, v] : h)
        if (n == name) return v;
    return {};
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

// The stored DPoP private key (the one record whose key ends in ".dpop"), "" when none.
std::string stored_key(TestHost& host) {
    for (const auto& [k, v] : host.secrets())
        if (k.size() > 5 && k.compare(k.size() - 5, 5, ".dpop") == 0) return v;
    return {};
}

}  // namespace

TEST(DpopProof, HtuDropsQueryAndFragment) {
    EXPECT_EQ(mcph::oauth::dpop_htu("https://rs.example/mcp?x=1#f"), "https://rs.example/mcp");
    EXPECT_EQ(mcph::oauth::dpop_htu("https://rs.example/mcp#f"), "https://rs.example/mcp");
    EXPECT_EQ(mcph::oauth::dpop_htu("https://rs.example/mcp"), "https://rs.example/mcp");
}

TEST(DpopProof, NonceSyntaxIsChecked) {
    EXPECT_TRUE(mcph::oauth::valid_dpop_nonce("eyJ7S_zG.eyJH0-Z.HX4w-7v"));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce(""));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce("a b"));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce("a\"b"));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce("a\\b"));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce("a\nb"));
    EXPECT_FALSE(mcph::oauth::valid_dpop_nonce(std::string(mcph::oauth::kMaxDpopNonce + 1, 'n')));
}

TEST(DpopProof, VerifiesWithItsEmbeddedKeyAndCarriesTheClaims) {
    DpopKey key = DpopKey::generate();
    DpopKey::Claims c;
    c.method = "GET";
    c.url = "https://rs.example/mcp?cursor=2";
    c.access_token = "token-abc";
    c.nonce = "n-1";
    std::string proof = key.proof(c);
    CheckedProof p = check_proof(proof, "GET", "https://rs.example/mcp", "token-abc");
    ASSERT_TRUE(p.valid) << p.error;
    EXPECT_EQ(p.nonce, "n-1");
    EXPECT_EQ(p.thumbprint, key.thumbprint());  // RFC 7638, computed independently by the checker
    EXPECT_FALSE(contains(p.header_json, "\"d\""));
    // Tampering with the claims breaks the signature; a second proof has its own jti.
    CheckedProof other = check_proof(key.proof(c), "GET", "https://rs.example/mcp", "token-abc");
    ASSERT_TRUE(other.valid) << other.error;
    EXPECT_NE(other.jti, p.jti);
    EXPECT_FALSE(check_proof(proof, "POST", "https://rs.example/mcp", "token-abc").valid);
    EXPECT_FALSE(check_proof(proof, "GET", "https://rs.example/mcp", "another-token").valid);
    std::string forged = proof;
    forged[proof.find('.') + 3] = forged[proof.find('.') + 3] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(check_proof(forged, "GET", "https://rs.example/mcp", "token-abc").valid);
}

TEST(DpopProof, KeyRoundTripsThroughPemAndRefusesOtherKeys) {
    DpopKey key = DpopKey::generate();
    auto again = DpopKey::from_pem(key.private_pem());
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->thumbprint(), key.thumbprint());
    EXPECT_NE(DpopKey::generate().thumbprint(), key.thumbprint());
    EXPECT_FALSE(DpopKey::from_pem("not a key").has_value());
    KeyPair p256 = make_p256_key();
    EXPECT_TRUE(DpopKey::from_pem(p256.private_pem).has_value());
}

TEST(DpopFlow, TokenAndResourceRequestsCarryValidProofs) {
    DpopServer s;
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    // The first request goes out bare; the DPoP challenge's resource_metadata starts the flow.
    McpExchange x = send_mcp(auth.raw(), s.mcp_url());
    ASSERT_EQ(x.status, 200) << x.challenge_error << "\n" << joined(s.errors());
    EXPECT_EQ(x.attempts, 2);
    EXPECT_EQ(s.last_token_type_issued(), "DPoP");
    auto tp = s.token_proofs();
    ASSERT_EQ(tp.size(), 1u);
    EXPECT_TRUE(tp[0].valid) << tp[0].error;
    EXPECT_EQ(tp[0].htm, "POST");
    EXPECT_EQ(tp[0].htu, s.token_url());
    EXPECT_EQ(tp[0].ath, "");  // no access token yet
    EXPECT_EQ(header(x.sent, "Authorization"), "DPoP " + s.issued_tokens().back());

    McpExchange y = send_mcp(auth.raw(), s.mcp_url());
    EXPECT_EQ(y.status, 200);
    EXPECT_EQ(y.attempts, 1);
    auto mp = s.mcp_proofs();
    ASSERT_EQ(mp.size(), 2u);
    EXPECT_NE(mp[0].jti, mp[1].jti);
    EXPECT_EQ(mp[0].thumbprint, tp[0].thumbprint);  // the key the token is bound to
    EXPECT_TRUE(s.errors().empty()) << joined(s.errors());
    EXPECT_TRUE(contains(auth.describe(), "\"token_type\":\"DPoP\"")) << auth.describe();
}

TEST(DpopFlow, NonceFromTheAuthorizationServer) {
    DpopServerOptions o;
    o.as_nonce = true;
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    Result r = auth.login();
    ASSERT_EQ(r.status, MCPH_OK) << r.message << "\n" << joined(s.errors());
    EXPECT_EQ(s.token_requests.load(), 2);  // use_dpop_nonce, then the retry with it
    auto tp = s.token_proofs();
    ASSERT_EQ(tp.size(), 2u);
    EXPECT_EQ(tp[0].nonce, "");
    EXPECT_EQ(tp[1].nonce, "as-nonce-1");
    EXPECT_NE(tp[0].jti, tp[1].jti);
    EXPECT_EQ(send_mcp(auth.raw(), s.mcp_url()).status, 200);
    EXPECT_TRUE(s.errors().empty()) << joined(s.errors());
}

TEST(DpopFlow, AuthorizationServerNonceRetriesAreBounded) {
    DpopServerOptions o;
    o.as_nonce_rotates = true;  // every answer: use_dpop_nonce with yet another nonce
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    Result r = auth.login();
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "use_dpop_nonce")) << r.message;
    EXPECT_EQ(s.token_requests.load(), 3);  // the request and two retries
}

TEST(DpopFlow, NonceFromTheResourceServer) {
    DpopServerOptions o;
    o.rs_nonce = true;
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    McpExchange x = send_mcp(auth.raw(), s.mcp_url());
    EXPECT_EQ(x.status, 200) << x.challenge_error << "\n" << joined(s.errors());
    EXPECT_EQ(x.attempts, 2);  // use_dpop_nonce, then the retry with it
    McpExchange y = send_mcp(auth.raw(), s.mcp_url());
    EXPECT_EQ(y.status, 200);
    EXPECT_EQ(y.attempts, 1);  // the nonce is remembered
    auto mp = s.mcp_proofs();
    ASSERT_EQ(mp.size(), 3u);
    EXPECT_EQ(mp[0].nonce, "");
    EXPECT_EQ(mp[1].nonce, "rs-nonce-1");
    EXPECT_EQ(mp[2].nonce, "rs-nonce-1");
    EXPECT_TRUE(s.errors().empty()) << joined(s.errors());
    EXPECT_EQ(s.token_requests.load(), 1);  // a nonce challenge is no reason to get a new token
}

TEST(DpopFlow, ResourceServerNonceChallengeWithoutAUsableNonceFails) {
    DpopServer s;
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    using mcph::plugin::str;
    const std::string bad_nonce = "has space";
    mcph_header h[] = {{str("DPoP-Nonce"), str(bad_nonce)}};
    mcph_auth_request ch{};
    ch.struct_size = sizeof ch;
    ch.method = str("POST");
    const std::string url = s.mcp_url();
    ch.url = str(url);
    ch.http_status = 401;
    ch.www_authenticate = str("DPoP error=\"use_dpop_nonce\"");
    ch.response_headers = h;
    ch.response_header_count = 1;
    mcph_error err = mcph::plugin::make_error();
    EXPECT_NE(auth_vtable()->handle_challenge_ex(auth.raw(), &ch, &err), MCPH_OK);
    EXPECT_TRUE(contains(err.message, "DPoP-Nonce")) << err.message;
    EXPECT_EQ(s.token_requests.load(), 1);
}

TEST(DpopFlow, ReplayedProofIsRefusedAndEveryRetryIsFresh) {
    DpopServerOptions o;
    o.rs_nonce = true;
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    // The RS refuses any jti it has seen: the nonce retry passes only with a new proof.
    McpExchange x = send_mcp(auth.raw(), s.mcp_url());
    ASSERT_EQ(x.status, 200) << joined(s.errors());
    EXPECT_TRUE(s.errors().empty()) << joined(s.errors());
    // The check is live: the very same headers again are refused as a replay.
    EXPECT_EQ(post_with(s.mcp_url(), x.sent), 401);
    EXPECT_TRUE(contains(joined(s.errors()), "replayed jti")) << joined(s.errors());
    // ...and the plugin answers the next request with a fresh proof.
    EXPECT_EQ(send_mcp(auth.raw(), s.mcp_url()).status, 200);
    std::set<std::string> jtis;
    for (const auto& p : s.mcp_proofs()) jtis.insert(p.jti);
    EXPECT_EQ(jtis.size(), s.mcp_proofs().size() - 1);  // only the deliberate replay repeats
}

TEST(DpopFlow, KeyPersistsAcrossObjectsWithTheSameStore) {
    DpopServer s;
    TestHost host;
    std::string thumbprint;
    {
        AuthObject first(host, s.mcp_url(), "{}");
        ASSERT_EQ(first.login().status, MCPH_OK);
        ASSERT_EQ(send_mcp(first.raw(), s.mcp_url()).status, 200);
        thumbprint = s.mcp_proofs().back().thumbprint;
    }
    ASSERT_TRUE(contains(stored_key(host), "BEGIN PRIVATE KEY"));
    AuthObject second(host, s.mcp_url(), "{}");  // a new process with the same store
    McpExchange x = send_mcp(second.raw(), s.mcp_url());
    EXPECT_EQ(x.status, 200) << joined(s.errors());
    EXPECT_EQ(x.attempts, 1);
    EXPECT_EQ(s.mcp_proofs().back().thumbprint, thumbprint);
    EXPECT_EQ(s.authorizations.load(), 1);
    EXPECT_EQ(second.logout().status, MCPH_OK);
    EXPECT_EQ(stored_key(host), "");  // the next sign-in binds to a new key
}

TEST(DpopFlow, AutoUsesBearerUnlessTheServerOffersES256) {
    for (const std::vector<std::string>& algs : {std::vector<std::string>{}, std::vector<std::string>{"RS256"}}) {
        DpopServerOptions o;
        o.dpop_algs = algs;
        DpopServer s(o);
        TestHost host;
        AuthObject auth(host, s.mcp_url(), "{\"dpop\":\"auto\"}");
        ASSERT_EQ(auth.login().status, MCPH_OK);
        EXPECT_TRUE(s.token_proofs().empty());
        EXPECT_EQ(s.last_token_type_issued(), "Bearer");
        EXPECT_EQ(auth.authorization(), "Bearer " + s.issued_tokens().back());
    }
}

TEST(DpopFlow, RequiredFailsBeforeTheBrowserWhenTheServerDoesNotOfferIt) {
    DpopServerOptions o;
    o.dpop_algs = {};
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{\"dpop\":true}");
    Result r = auth.login();
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "dpop_signing_alg_values_supported")) << r.message;
    EXPECT_EQ(s.authorizations.load(), 0);
    EXPECT_TRUE(host.opened().empty());
    EXPECT_TRUE(contains(auth.describe(), "\"kind\":\"dpop_unsupported\"")) << auth.describe();
}

TEST(DpopFlow, OffNeverSendsAProof) {
    DpopServer s;
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{\"dpop\":false}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    EXPECT_TRUE(s.token_proofs().empty());
    EXPECT_EQ(auth.authorization(), "Bearer " + s.issued_tokens().back());
    EXPECT_EQ(stored_key(host), "");
}

TEST(DpopConfig, RejectsOtherValues) {
    TestHost host;
    AuthObject auth(host, "https://mcp.example/mcp", "{\"dpop\":\"yes\"}");
    EXPECT_EQ(auth.create_result().status, MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(auth.create_result().message, "'dpop' must be")) << auth.create_result().message;
}

TEST(DpopNonBlocking, AnswersFromWhatIsAtHandAndDefersTheRest) {
    DpopServer s;
    TestHost host;
    {
        AuthObject first(host, s.mcp_url(), "{}");
        ASSERT_EQ(first.login().status, MCPH_OK);
    }
    AuthObject auth(host, s.mcp_url(), "{}");
    // The store is unread and the key not loaded: that is I/O, so not on the I/O thread.
    McpExchange x = send_mcp(auth.raw(), s.mcp_url(), MCPH_AUTH_NONBLOCKING);
    EXPECT_EQ(x.header_status, MCPH_PENDING);
    EXPECT_EQ(x.status, 0);
    EXPECT_EQ(send_mcp(auth.raw(), s.mcp_url()).status, 200);
    // Now everything is at hand: answered at once, with a fresh proof.
    McpExchange y = send_mcp(auth.raw(), s.mcp_url(), MCPH_AUTH_NONBLOCKING);
    EXPECT_EQ(y.header_status, MCPH_OK) << y.header_error;
    EXPECT_EQ(y.status, 200) << joined(s.errors());
    EXPECT_FALSE(header(y.sent, "DPoP").empty());
}

TEST(DpopNonBlocking, ARefreshDueIsDeferredAndDoneWithAProof) {
    DpopServerOptions o;
    o.expires_in = 30;  // inside the 60 s refresh margin from the start
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    McpExchange x = send_mcp(auth.raw(), s.mcp_url(), MCPH_AUTH_NONBLOCKING);
    EXPECT_EQ(x.header_status, MCPH_PENDING);
    EXPECT_EQ(s.token_requests.load(), 1);  // nothing was refreshed on the "I/O thread"
    McpExchange y = send_mcp(auth.raw(), s.mcp_url());
    EXPECT_EQ(y.status, 200) << joined(s.errors());
    EXPECT_EQ(s.token_requests.load(), 2);  // the refresh, with a DPoP proof by the same key
    auto tp = s.token_proofs();
    ASSERT_EQ(tp.size(), 2u);
    EXPECT_TRUE(tp[1].valid) << tp[1].error;
    EXPECT_EQ(tp[1].thumbprint, tp[0].thumbprint);
    EXPECT_EQ(header(y.sent, "Authorization"), "DPoP " + s.issued_tokens().back());
}

// No DPoP private key material — nor any token — in a log line, describe() or an error.
TEST(DpopSecrets, NoKeyMaterialInLogsDescribeOrErrors) {
    DpopServerOptions o;
    o.as_nonce = true;
    o.rs_nonce = true;
    DpopServer s(o);
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    McpExchange x = send_mcp(auth.raw(), s.mcp_url());
    McpExchange y = send_mcp(auth.raw(), s.mcp_url());
    EXPECT_EQ(y.status, 200) << joined(s.errors());
    // An error path too: a nonce challenge without a nonce.
    McpExchange z;
    {
        DpopServerOptions bad;
        bad.as_nonce_rotates = true;
        DpopServer s2(bad);
        AuthObject other(host, s2.mcp_url(), "{}");
        z = send_mcp(other.raw(), s2.mcp_url());
        EXPECT_NE(z.challenge_status, MCPH_OK);
        x.challenge_error += "\n" + z.challenge_error + "\n" + other.describe();
    }
    const std::string pem = stored_key(host);
    ASSERT_TRUE(contains(pem, "BEGIN PRIVATE KEY"));
    std::string all = auth.describe() + "\n" + joined(host.logs()) + x.challenge_error + y.challenge_error;
    for (size_t at = pem.find('\n') + 1, end; (end = pem.find('\n', at)) != std::string::npos; at = end + 1) {
        std::string line = pem.substr(at, end - at);
        if (line.rfind("-----", 0) == 0 || line.size() < 16) continue;
        EXPECT_FALSE(contains(all, line)) << "private key material in:\n" << all;
    }
    EXPECT_FALSE(contains(all, "PRIVATE KEY")) << all;
    for (const auto& t : s.issued_tokens()) EXPECT_FALSE(contains(all, t)) << all;
}

namespace {

// A host whose secret store records the order of calls, with a secret_lock that can refuse.
struct LockHost {
    mcph_host_services services{};
    std::map<std::string, std::string> secrets;
    std::vector<std::string> calls;
    bool lock_times_out = false;
    int handle = 0;

    LockHost() {
        services.struct_size = sizeof services;
        services.abi_major = MCPH_ABI_MAJOR;
        services.abi_minor = MCPH_ABI_MINOR;
        services.host_data = this;
        services.secret_get = [](void* self, mcph_str key, const mcph_string_sink* out, mcph_error*) {
            auto* h = static_cast<LockHost*>(self);
            h->calls.push_back("get");
            auto it = h->secrets.find(std::string(mcph::plugin::view(key)));
            if (it == h->secrets.end()) return MCPH_ERR_NOT_FOUND;
            out->set(out->user_data, mcph::plugin::str(it->second));
            return MCPH_OK;
        };
        services.secret_set = [](void* self, mcph_str key, mcph_str value, mcph_error*) {
            auto* h = static_cast<LockHost*>(self);
            h->calls.push_back("set");
            h->secrets[std::string(mcph::plugin::view(key))] = std::string(mcph::plugin::view(value));
            return MCPH_OK;
        };
        services.secret_lock = [](void* self, mcph_str key, uint32_t, void** handle, mcph_error*) {
            auto* h = static_cast<LockHost*>(self);
            h->calls.push_back("lock " + std::string(mcph::plugin::view(key)));
            if (h->lock_times_out) return MCPH_ERR_TIMEOUT;
            *handle = &h->handle;
            return MCPH_OK;
        };
        services.secret_unlock = [](void* self, void* handle) {
            auto* h = static_cast<LockHost*>(self);
            h->calls.push_back(handle == &h->handle ? "unlock" : "unlock ?");
        };
    }
};

std::string calls(const LockHost& h) {
    std::string out;
    for (const auto& c : h.calls) out += (out.empty() ? "" : ", ") + c;
    return out;
}

}  // namespace

TEST(DpopKeyStore, KeyIsCreatedUnderTheHostsSecretLockAndReusedAfterwards) {
    LockHost host;
    mcph::oauth::TokenStore store(&host.services, "base");
    mcph::oauth::DpopSession first(&host.services, store, "base.dpop", mcph::oauth::DpopPolicy::automatic);
    auto key = first.key();
    // Read, lock, read again (another process may have made it), create, re-read, unlock.
    EXPECT_EQ(calls(host), "get, lock base.dpop, get, set, get, unlock");
    EXPECT_TRUE(contains(host.secrets["base.dpop"], "BEGIN PRIVATE KEY"));
    EXPECT_EQ(first.key(), key);  // kept in memory
    host.calls.clear();
    mcph::oauth::DpopSession second(&host.services, store, "base.dpop", mcph::oauth::DpopPolicy::automatic);
    EXPECT_EQ(second.key()->thumbprint(), key->thumbprint());
    EXPECT_EQ(calls(host), "get");  // an existing key needs no lock
}

TEST(DpopKeyStore, ALockTimeoutDoesNotStopSignIn) {
    LockHost host;
    host.lock_times_out = true;
    mcph::oauth::TokenStore store(&host.services, "base");
    mcph::oauth::DpopSession s(&host.services, store, "base.dpop", mcph::oauth::DpopPolicy::automatic);
    ASSERT_NE(s.key(), nullptr);
    EXPECT_EQ(calls(host), "get, lock base.dpop, get, set, get");  // no unlock of a lock never held
}

TEST(DpopKeyStore, AnUnusableStoredKeyIsReplaced) {
    LockHost host;
    host.secrets["base.dpop"] = "-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n";
    mcph::oauth::TokenStore store(&host.services, "base");
    mcph::oauth::DpopSession s(&host.services, store, "base.dpop", mcph::oauth::DpopPolicy::automatic);
    auto key = s.key();
    ASSERT_NE(key, nullptr);
    auto stored = DpopKey::from_pem(host.secrets["base.dpop"]);
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->thumbprint(), key->thumbprint());
}

// A 1.0 caller (no response headers) meets a nonce demand: a clear error, no new sign-in.
TEST(DpopFlow, NonceDemandThroughTheOldChallengeEntryIsAClearError) {
    DpopServer s;
    TestHost host;
    AuthObject auth(host, s.mcp_url(), "{}");
    ASSERT_EQ(auth.login().status, MCPH_OK);
    Result r = auth.challenge(401, "DPoP error=\"use_dpop_nonce\"");
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "DPoP-Nonce")) << r.message;
    EXPECT_EQ(s.token_requests.load(), 1);
    EXPECT_EQ(s.authorizations.load(), 1);
}

// A DPoP-only resource server's challenge (RFC 9449 §7.1) leads discovery like a Bearer one;
// with both, Bearer's parameters are used.
TEST(DpopChallenge, DpopSchemeParametersAreReadWhenThereIsNoBearerChallenge) {
    auto ch = mcph::oauth::bearer_challenge(R"(DPoP error="use_dpop_nonce", resource_metadata="https://rs/prm")");
    EXPECT_TRUE(ch.present);
    EXPECT_EQ(ch.resource_metadata, "https://rs/prm");
    EXPECT_EQ(ch.error, "use_dpop_nonce");
    auto both = mcph::oauth::bearer_challenge(R"(DPoP resource_metadata="https://a", Bearer resource_metadata="https://b")");
    EXPECT_EQ(both.resource_metadata, "https://b");
}
