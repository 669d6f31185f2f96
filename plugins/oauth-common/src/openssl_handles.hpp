// Owning handles for the OpenSSL objects the OAuth code builds (keys, digests, signatures, BIOs):
// std::unique_ptr with the matching *_free, so every early return and exception frees them.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <memory>

namespace mcph::oauth {

struct BioFree {
    void operator()(BIO* b) const noexcept { BIO_free(b); }
};
struct BnFree {
    void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};
struct PkeyFree {
    void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
struct EcdsaSigFree {
    void operator()(ECDSA_SIG* s) const noexcept { ECDSA_SIG_free(s); }
};

}  // namespace mcph::oauth
