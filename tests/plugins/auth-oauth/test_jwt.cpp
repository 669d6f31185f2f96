// RFC 7523 client assertions: claims and an ES256 signature checked independently with OpenSSL.
#include "encoding.hpp"
#include "errors.hpp"
#include "jwt_assertion.hpp"
#include "jwt_verify.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include <memory>

namespace oauth_test {

KeyPair make_p256_key() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    KeyPair kp;
    BIO* b = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long n = BIO_get_mem_data(b, &data);
    kp.private_pem.assign(data, static_cast<size_t>(n));
    BIO_free(b);
    b = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(b, key);
    n = BIO_get_mem_data(b, &data);
    kp.public_pem.assign(data, static_cast<size_t>(n));
    BIO_free(b);
    EVP_PKEY_free(key);
    return kp;
}

bool verify_es256(const std::string& jwt, const std::string& public_pem, std::string* claims_json) {
    size_t d1 = jwt.find('.'), d2 = jwt.rfind('.');
    if (d1 == std::string::npos || d1 == d2) return false;
    auto header = mcph::oauth::base64url_decode(jwt.substr(0, d1));
    auto claims = mcph::oauth::base64url_decode(jwt.substr(d1 + 1, d2 - d1 - 1));
    auto sig = mcph::oauth::base64url_decode(jwt.substr(d2 + 1));
    if (!header || !claims || !sig || sig->size() != 64) return false;
    if (header->find("\"alg\":\"ES256\"") == std::string::npos) return false;
    if (claims_json) *claims_json = *claims;
    // raw r||s → DER for OpenSSL
    ECDSA_SIG* es = ECDSA_SIG_new();
    ECDSA_SIG_set0(es, BN_bin2bn(reinterpret_cast<const unsigned char*>(sig->data()), 32, nullptr),
                   BN_bin2bn(reinterpret_cast<const unsigned char*>(sig->data()) + 32, 32, nullptr));
    unsigned char* der = nullptr;
    int der_len = i2d_ECDSA_SIG(es, &der);
    ECDSA_SIG_free(es);
    BIO* b = BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size()));
    EVP_PKEY* pub = PEM_read_bio_PUBKEY(b, nullptr, nullptr, nullptr);
    BIO_free(b);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    std::string input = jwt.substr(0, d2);
    bool ok = pub && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, pub) == 1 &&
              EVP_DigestVerify(ctx, der, static_cast<size_t>(der_len),
                               reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pub);
    OPENSSL_free(der);
    return ok;
}

}  // namespace oauth_test

using namespace mcph::oauth;

TEST(JwtAssertion, Es256SignatureVerifiesAndClaimsAreRight) {
    auto kp = oauth_test::make_p256_key();
    AssertionClaims c;
    c.client_id = "client-1";
    c.audience = "https://as.example";
    c.issued_at = 1700000000;
    std::string jwt = make_client_assertion(kp.private_pem, "ES256", c);
    std::string claims;
    ASSERT_TRUE(oauth_test::verify_es256(jwt, kp.public_pem, &claims)) << jwt;
    rapidjson::Document doc;
    doc.Parse(claims.c_str());
    ASSERT_TRUE(doc.IsObject());
    EXPECT_STREQ(doc["iss"].GetString(), "client-1");
    EXPECT_STREQ(doc["sub"].GetString(), "client-1");
    EXPECT_STREQ(doc["aud"].GetString(), "https://as.example");
    EXPECT_EQ(doc["iat"].GetInt64(), 1700000000);
    EXPECT_EQ(doc["exp"].GetInt64(), 1700000300);
    EXPECT_GE(doc["jti"].GetStringLength(), 16u);
    // A fresh jti every time; a tampered token fails.
    EXPECT_NE(make_client_assertion(kp.private_pem, "ES256", c), jwt);
    std::string tampered = jwt;
    tampered[tampered.find('.') + 2] ^= 1;
    EXPECT_FALSE(oauth_test::verify_es256(tampered, kp.public_pem, nullptr));
    auto other = oauth_test::make_p256_key();
    EXPECT_FALSE(oauth_test::verify_es256(jwt, other.public_pem, nullptr));
}

TEST(JwtAssertion, BadKeysAreConfigErrors) {
    AssertionClaims c{"id", "aud", 1, 300, "j"};
    try {
        make_client_assertion("not a key", "ES256", c);
        FAIL();
    } catch (const OAuthError& e) {
        EXPECT_EQ(e.kind(), FailureKind::config_invalid);
        EXPECT_EQ(std::string(e.what()).find("not a key"), std::string::npos);  // never echo key material
    }
    auto kp = oauth_test::make_p256_key();
    EXPECT_THROW(make_client_assertion(kp.private_pem, "RS256", c), OAuthError);
}
