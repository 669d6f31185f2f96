// libmcph's own definition of the one libcrypto function the host core calls (base64 decoding of
// skill files, extensions/skills.cpp): it opens libcrypto on first use (dynload::libcrypto()) and
// forwards to it. libmcph has no DT_NEEDED entry for libcrypto (host/CMakeLists.txt uses only its
// headers): mapped and relocated at every start, it was ~1.4 MB of a host's resident set for a
// function most runs never call (SHA-256 is libmd's, tools/sha256.cpp).
//
// Hidden like every libmcph definition, so it binds only the host core's call; plugins and
// applications linking libcrypto themselves get the real one. Kept out of unity builds, as
// libcurl_on_demand.cpp is, so no other file sees this definition next to OpenSSL's declaration.
#include <openssl/evp.h>

#include "dynload/on_demand_library.hpp"

extern "C" {

int(EVP_DecodeBlock)(unsigned char* t, const unsigned char* f, int n) {
    static auto* real = reinterpret_cast<decltype(&::EVP_DecodeBlock)>(mcph::dynload::libcrypto().symbol("EVP_DecodeBlock"));
    return real(t, f, n);
}

}  // extern "C"
