// The WWW-Authenticate parser (plugins/oauth-common/src/www_authenticate.*), fed a header value
// from a server's 401. Checked: it ends (no resynchronisation loop), parameter names come out
// lower-cased, and the Bearer view agrees with the full parse (it falls back to a DPoP challenge,
// RFC 9449 §7.1, when there is no Bearer one).
#include "fuzz_support.hpp"
#include "www_authenticate.hpp"

#include <cctype>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view header = mcph::fuzz::as_text(data, size);
    const auto challenges = mcph::oauth::parse_www_authenticate(header);
    bool any_bearer = false;
    bool any_dpop = false;
    for (const auto& c : challenges) {
        MCPH_FUZZ_CHECK(!c.scheme.empty());
        for (const auto& [name, value] : c.params) {
            MCPH_FUZZ_CHECK(!name.empty());
            for (char ch : name) MCPH_FUZZ_CHECK(std::tolower(static_cast<unsigned char>(ch)) == static_cast<unsigned char>(ch));
            MCPH_FUZZ_CHECK(value.size() <= header.size());
        }
        std::string scheme = c.scheme;
        for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        any_bearer = any_bearer || scheme == "bearer";
        any_dpop = any_dpop || scheme == "dpop";
    }
    MCPH_FUZZ_CHECK(mcph::oauth::bearer_challenge(header).present == (any_bearer || any_dpop));
    return 0;
}
