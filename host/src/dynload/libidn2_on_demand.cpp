// libmcph's own definitions of the two libidn2 functions the host core calls (url/canonical_url.cpp:
// the A-labels of a host name outside ASCII): each opens libidn2 on first use (dynload::libidn2())
// and forwards to it. libmcph has no DT_NEEDED entry for libidn2 (host/CMakeLists.txt uses only its
// header): it and libunistring were mapped and relocated at every start of every `mcph` command for
// host names that are almost always ASCII, which canonical_url.cpp handles itself.
//
// Hidden like every libmcph definition (the version script exports only mcph::), so they bind only
// the host core's calls; kept out of unity builds, as libcurl_on_demand.cpp is, so no other file
// sees these definitions next to libidn2's declarations.
#include <idn2.h>

#include "dynload/on_demand_library.hpp"

namespace mcph::dynload {

OnDemandLibrary& libidn2() {
    static OnDemandLibrary library("libidn2.so.0");
    return library;
}

}  // namespace mcph::dynload

extern "C" {

int idn2_to_ascii_8z(const char* input, char** output, int flags) {
    static auto* real = reinterpret_cast<int (*)(const char*, char**, int)>(mcph::dynload::libidn2().symbol("idn2_to_ascii_8z"));
    return real(input, output, flags);
}

void idn2_free(void* ptr) {
    static auto* real = reinterpret_cast<void (*)(void*)>(mcph::dynload::libidn2().symbol("idn2_free"));
    real(ptr);
}

}  // extern "C"
