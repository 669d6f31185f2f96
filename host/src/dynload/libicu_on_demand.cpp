// libmcph's own definitions of the two ICU functions the host core calls (text/char_class.cpp: the
// Unicode properties of a character outside ASCII): each opens libicuuc on first use
// (dynload::libicuuc()) and forwards to it. libmcph and the CLI have no DT_NEEDED entry for ICU
// (host/CMakeLists.txt uses only its headers): mapped and relocated at every start, libicuuc and
// libicudata were ~0.8 ms and ~2.3 MB of each `mcph` command, and most never look at a character
// outside ASCII (classify() answers those itself).
//
// ICU versions its entry points (unicode/urename.h: u_charType is u_charType_72 in ICU 72), so
// these definitions, written with the plain names after ICU's header, get the versioned ones, and
// so do the names looked up. Hidden like every libmcph definition (the version script exports only
// mcph::), so they bind only the host core's calls; kept out of unity builds, as
// libcurl_on_demand.cpp is, so no other file sees this definition next to ICU's declaration.
#include <unicode/uchar.h>

#include "dynload/on_demand_library.hpp"

#define MCPH_ICU_STRING2(x) #x
#define MCPH_ICU_STRING(x) MCPH_ICU_STRING2(x)

namespace mcph::dynload {

OnDemandLibrary& libicuuc() {
    static OnDemandLibrary library("libicuuc.so." MCPH_ICU_STRING(U_ICU_VERSION_MAJOR_NUM));
    return library;
}

}  // namespace mcph::dynload

extern "C" {

UBool u_hasBinaryProperty(UChar32 c, UProperty which) {
    static auto* real = reinterpret_cast<UBool (*)(UChar32, UProperty)>(
        mcph::dynload::libicuuc().symbol(MCPH_ICU_STRING(u_hasBinaryProperty)));
    return real(c, which);
}

int8_t u_charType(UChar32 c) {
    static auto* real = reinterpret_cast<int8_t (*)(UChar32)>(mcph::dynload::libicuuc().symbol(MCPH_ICU_STRING(u_charType)));
    return real(c);
}

}  // extern "C"
