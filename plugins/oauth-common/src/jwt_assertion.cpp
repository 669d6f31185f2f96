#include "jwt_assertion.hpp"

#include "encoding.hpp"
#include "errors.hpp"
#include "openssl_handles.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <vector>

namespace mcph::oauth {

namespace {

[[noreturn]] void key_error(const std::string& what) {
    throw OAuthError(FailureKind::config_invalid, "privateKeyPem: " + what);
}

std::unique_ptr<EVP_PKEY, PkeyFree> load_key(std::string_view pem) {
    std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio) throw std::bad_alloc();
    std::unique_ptr<EVP_PKEY, PkeyFree> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
    if (!key) key_error("not a PEM private key (PKCS#8 or traditional)");
    return key;
}

std::string header_json(std::string_view alg) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("alg");
    w.String(alg.data(), static_cast<rapidjson::SizeType>(alg.size()));
    w.Key("typ");
    w.String("JWT");
    w.EndObject();
    return buf.GetString();
}

std::string claims_json(const AssertionClaims& c, const std::string& jti) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("iss");
    w.String(c.client_id.c_str());
    w.Key("sub");
    w.String(c.client_id.c_str());
    w.Key("aud");
    w.String(c.audience.c_str());
    w.Key("iat");
    w.Int64(c.issued_at);
    w.Key("exp");
    w.Int64(c.issued_at + c.lifetime_seconds);
    w.Key("jti");
    w.String(jti.c_str());
    w.EndObject();
    return buf.GetString();
}

std::string sign(EVP_PKEY* key, std::string_view input) {
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    if (!ctx) throw std::bad_alloc();
    if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1) key_error("cannot sign with this key");
    size_t len = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(input.data());
    if (EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) != 1) key_error("signing failed");
    std::vector<unsigned char> sig(len);
    if (EVP_DigestSign(ctx.get(), sig.data(), &len, data, input.size()) != 1) key_error("signing failed");
    sig.resize(len);
    return std::string(sig.begin(), sig.end());
}

// OpenSSL produces ECDSA signatures as DER SEQUENCE{r, s}; JWS wants r and s as two 32-byte
// big-endian integers back to back.
std::string der_to_raw_p256(const std::string& der) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
    if (!sig) key_error("unexpected ECDSA signature encoding");
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    std::string out(64, '\0');
    if (BN_bn2binpad(r, reinterpret_cast<unsigned char*>(out.data()), 32) != 32 ||
        BN_bn2binpad(s, reinterpret_cast<unsigned char*>(out.data()) + 32, 32) != 32)
        key_error("ECDSA signature does not fit P-256");
    return out;
}

}  // namespace

std::string es256_signature(EVP_PKEY* key, std::string_view signing_input) {
    return der_to_raw_p256(sign(key, signing_input));
}

std::string make_client_assertion(std::string_view private_key_pem, std::string_view algorithm,
                                  const AssertionClaims& claims) {
    auto key = load_key(private_key_pem);
    int type = EVP_PKEY_base_id(key.get());
    if (algorithm == "ES256") {
        if (type != EVP_PKEY_EC || EVP_PKEY_bits(key.get()) != 256) key_error("ES256 needs a P-256 EC key");
    } else if (algorithm == "RS256") {
        if (type != EVP_PKEY_RSA) key_error("RS256 needs an RSA key");
    } else {
        key_error("unsupported signing algorithm " + std::string(algorithm));
    }
    std::string jti = claims.jti.empty() ? base64url_encode(random_bytes(16)) : claims.jti;
    std::string input = base64url_encode(header_json(algorithm)) + "." + base64url_encode(claims_json(claims, jti));
    std::string signature = sign(key.get(), input);
    if (algorithm == "ES256") signature = der_to_raw_p256(signature);
    return input + "." + base64url_encode(signature);
}

}  // namespace mcph::oauth
