#include "dpop.hpp"

#include "encoding.hpp"
#include "errors.hpp"
#include "jwt_assertion.hpp"
#include "openssl_handles.hpp"
#include "url.hpp"

#include <mcph/plugin_helper.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>

namespace mcph::oauth {

struct DpopKey::Pkey {
    EVP_PKEY* key = nullptr;
    explicit Pkey(EVP_PKEY* k) : key(k) {}
    ~Pkey() { EVP_PKEY_free(key); }
    Pkey(const Pkey&) = delete;
    Pkey& operator=(const Pkey&) = delete;
};

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

[[noreturn]] void fail(const std::string& what) { throw OAuthError(FailureKind::config_invalid, "DPoP key: " + what); }

void field(Writer& w, const char* name, std::string_view value) {
    w.Key(name);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// One affine coordinate of the public point, as 32 big-endian bytes in base64url (RFC 7518 §6.2.1.2).
std::string coordinate(EVP_PKEY* key, const char* name) {
    BIGNUM* raw = nullptr;
    if (EVP_PKEY_get_bn_param(key, name, &raw) != 1 || !raw) fail("cannot read the public key");
    std::unique_ptr<BIGNUM, BnFree> bn(raw);
    std::string out(32, '\0');
    if (BN_bn2binpad(bn.get(), reinterpret_cast<unsigned char*>(out.data()), 32) != 32) fail("not a P-256 point");
    return base64url_encode(out);
}

bool is_p256(EVP_PKEY* key) {
    if (EVP_PKEY_base_id(key) != EVP_PKEY_EC) return false;
    char group[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &len) != 1) return false;
    return std::string_view(group, len) == "prime256v1" || std::string_view(group, len) == "P-256";
}

}  // namespace

DpopKey::DpopKey(std::shared_ptr<Pkey> key) : key_(std::move(key)) {
    x_ = coordinate(key_->key, OSSL_PKEY_PARAM_EC_PUB_X);
    y_ = coordinate(key_->key, OSSL_PKEY_PARAM_EC_PUB_Y);
    // RFC 7638 §3.2: the required members in lexicographic order, no whitespace — the same text
    // serves as the jwk header and as the thumbprint input.
    jwk_ = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"" + x_ + "\",\"y\":\"" + y_ + "\"}";
    thumbprint_ = base64url_encode(sha256(jwk_));
}

DpopKey DpopKey::generate() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    if (!key) fail("cannot generate a P-256 key pair");
    return DpopKey(std::make_shared<Pkey>(key));
}

std::optional<DpopKey> DpopKey::from_pem(std::string_view pem) {
    std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio) throw std::bad_alloc();
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
    if (!key) return std::nullopt;
    auto owned = std::make_shared<Pkey>(key);
    if (!is_p256(key)) return std::nullopt;
    return DpopKey(std::move(owned));
}

std::string DpopKey::private_pem() const {
    std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
    if (!bio) throw std::bad_alloc();
    if (PEM_write_bio_PKCS8PrivateKey(bio.get(), key_->key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        fail("cannot serialise the key");
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(n));
}

std::string DpopKey::proof(const Claims& c) const {
    rapidjson::StringBuffer hb;
    Writer h(hb);
    h.StartObject();
    field(h, "typ", "dpop+jwt");
    field(h, "alg", "ES256");
    h.Key("jwk");
    h.StartObject();
    field(h, "kty", "EC");
    field(h, "crv", "P-256");
    field(h, "x", x_);
    field(h, "y", y_);
    h.EndObject();
    h.EndObject();

    rapidjson::StringBuffer cb;
    Writer w(cb);
    w.StartObject();
    field(w, "jti", c.jti.empty() ? base64url_encode(random_bytes(16)) : c.jti);
    field(w, "htm", c.method);
    field(w, "htu", dpop_htu(c.url));
    w.Key("iat");
    w.Int64(c.issued_at ? c.issued_at : now_seconds());
    if (!c.access_token.empty()) field(w, "ath", dpop_ath(c.access_token));
    if (!c.nonce.empty()) field(w, "nonce", c.nonce);
    w.EndObject();

    std::string input = base64url_encode(hb.GetString()) + "." + base64url_encode(cb.GetString());
    return input + "." + base64url_encode(es256_signature(key_->key, input));
}

std::string dpop_htu(std::string_view url) { return std::string(url.substr(0, url.find_first_of("?#"))); }

std::string dpop_ath(std::string_view access_token) { return base64url_encode(sha256(access_token)); }

bool valid_dpop_nonce(std::string_view nonce) {
    if (nonce.empty() || nonce.size() > kMaxDpopNonce) return false;
    for (char ch : nonce) {
        auto c = static_cast<unsigned char>(ch);
        if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;  // NQCHAR
    }
    return true;
}

namespace {

// The host's cross-process lock on one secret key, when it has one; a no-op otherwise.
class SecretLock {
public:
    SecretLock(const mcph_host_services* host, const std::string& key) : host_(host) {
        if (!host || host->struct_size <= offsetof(mcph_host_services, secret_unlock) || !host->secret_lock ||
            !host->secret_unlock)
            return;
        mcph_error err = mcph::plugin::make_error();
        if (host->secret_lock(host->host_data, mcph::plugin::str(key), kTimeoutMs, &handle_, &err) != MCPH_OK)
            handle_ = nullptr;  // a stuck lock must not stop sign-in: go on as without a lock
        locked_ = handle_ != nullptr;
    }
    ~SecretLock() {
        if (locked_) host_->secret_unlock(host_->host_data, handle_);
    }
    SecretLock(const SecretLock&) = delete;
    SecretLock& operator=(const SecretLock&) = delete;

private:
    static constexpr uint32_t kTimeoutMs = 10000;
    const mcph_host_services* host_;
    void* handle_ = nullptr;
    bool locked_ = false;
};

}  // namespace

DpopSession::DpopSession(const mcph_host_services* host, const TokenStore& store, std::string store_key,
                         DpopPolicy policy)
    : host_(host), store_(store), store_key_(std::move(store_key)), policy_(policy) {}

bool DpopSession::use_with(const AuthServerMetadata& as) const {
    if (policy_ == DpopPolicy::off) return false;
    const bool offered = contains(as.dpop_signing_alg_values_supported, "ES256");
    if (!offered && policy_ == DpopPolicy::required)
        throw OAuthError(FailureKind::dpop_unsupported,
                         "the config requires DPoP (\"dpop\": true) and the authorization server " +
                             (as.issuer.empty() ? as.token_endpoint : as.issuer) +
                             " does not list ES256 in dpop_signing_alg_values_supported");
    return offered;
}

std::shared_ptr<const DpopKey> DpopSession::loaded_key() const {
    std::lock_guard<std::mutex> g(mu_);
    return key_;
}

std::shared_ptr<const DpopKey> DpopSession::key() {
    if (auto k = loaded_key()) return k;
    std::lock_guard<std::mutex> load(load_mu_);
    if (auto k = loaded_key()) return k;  // another thread loaded it meanwhile
    std::shared_ptr<const DpopKey> k = load_or_create();
    std::lock_guard<std::mutex> g(mu_);
    key_ = k;
    return k;
}

std::shared_ptr<const DpopKey> DpopSession::load_or_create() const {
    auto read = [this]() -> std::shared_ptr<const DpopKey> {
        if (auto pem = store_.get(store_key_))
            if (auto parsed = DpopKey::from_pem(*pem)) return std::make_shared<const DpopKey>(std::move(*parsed));
        return nullptr;
    };
    if (auto k = read()) return k;
    SecretLock lock(host_, store_key_);
    if (auto k = read()) return k;  // another process made it while we waited for the lock
    auto made = std::make_shared<const DpopKey>(DpopKey::generate());
    store_.set(store_key_, made->private_pem());
    // Without a host lock another process may have stored its own key at the same moment:
    // adopt what the store holds now, which narrows that window to the two writes.
    auto stored = read();
    return stored ? stored : made;
}

std::string DpopSession::nonce_key(DpopRole role, std::string_view url) {
    auto u = parse_url(url);
    std::string origin = u ? u->origin() : std::string(url);
    return (role == DpopRole::authorization_server ? "as " : "rs ") + origin;
}

std::string DpopSession::proof(const DpopKey& key, DpopRole role, std::string_view method, std::string_view url,
                               std::string_view access_token) const {
    DpopKey::Claims c;
    c.method = std::string(method);
    c.url = std::string(url);
    c.access_token = std::string(access_token);
    c.nonce = nonce(role, url);
    return key.proof(c);
}

bool DpopSession::remember_nonce(DpopRole role, std::string_view url, std::string_view nonce) {
    if (!valid_dpop_nonce(nonce)) return false;
    std::lock_guard<std::mutex> g(mu_);
    std::string k = nonce_key(role, url);
    if (nonces_.size() >= kMaxOrigins && !nonces_.count(k)) nonces_.clear();  // bounded: a server has few origins
    nonces_[k] = std::string(nonce);
    return true;
}

std::string DpopSession::nonce(DpopRole role, std::string_view url) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = nonces_.find(nonce_key(role, url));
    return it == nonces_.end() ? std::string() : it->second;
}

void DpopSession::forget() {
    std::lock_guard<std::mutex> load(load_mu_);
    {
        std::lock_guard<std::mutex> g(mu_);
        key_.reset();
        nonces_.clear();
    }
    store_.erase(store_key_);
}

}  // namespace mcph::oauth
