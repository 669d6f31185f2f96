// The URL canonicaliser (host/src/url/canonical_url.*) that policy rules, the safe-fetch policy and
// dedup decide with, fed a URL / host / pattern as a config file or a server could write it.
// Checked: a canonical URL is a fixed point (canonicalising its text() gives the same text, or two
// spellings of one server could compare unequal), carries no userinfo, fragment or upper-case host,
// and always has a path; hosts and patterns come out lower-case.
#include "fuzz_support.hpp"
#include "url/canonical_url.hpp"

#include <cctype>

namespace {

bool no_ascii_upper(std::string_view s) {
    for (char c : s)
        if (c >= 'A' && c <= 'Z') return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace url = mcph::url;
    const std::string_view text = mcph::fuzz::as_text(data, size);

    if (const url::CanonicalUrlResult first = url::canonical_url(text)) {
        const url::CanonicalUrl& u = *first.url;
        MCPH_FUZZ_CHECK(first.error.empty());
        MCPH_FUZZ_CHECK(!u.path.empty() && u.path[0] == '/');
        MCPH_FUZZ_CHECK(no_ascii_upper(u.scheme) && no_ascii_upper(u.host.host));
        const std::string once = u.text();
        MCPH_FUZZ_CHECK(once.find('#') == std::string::npos);
        const url::CanonicalUrlResult second = url::canonical_url(once);
        MCPH_FUZZ_CHECK(second);
        MCPH_FUZZ_CHECK(second.url->text() == once);
        MCPH_FUZZ_CHECK(!second.url->had_userinfo);
    } else {
        MCPH_FUZZ_CHECK(!first.error.empty());
    }

    if (const url::CanonicalHostResult host = url::canonical_host(text)) {
        MCPH_FUZZ_CHECK(no_ascii_upper(host.host->host));
        const url::CanonicalHostResult again = url::canonical_host(host.host->host);
        MCPH_FUZZ_CHECK(again && again.host->host == host.host->host);
    }
    if (const auto pattern = url::canonical_host_pattern(text)) MCPH_FUZZ_CHECK(no_ascii_upper(*pattern));
    (void)url::canonical_url_pattern(text);
    return 0;
}
