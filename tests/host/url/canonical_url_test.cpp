// The canonical form every URL decision is taken on: each spelling of a host that reaches the same
// place must come out the same (userinfo, trailing dots, %-escapes, IDN, IP literal forms).
#include "url/canonical_url.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::url::canonical_host;
using mcph::url::canonical_host_pattern;
using mcph::url::canonical_url;
using mcph::url::canonical_url_pattern;
using mcph::url::HostKind;

struct UrlCase {
    const char* written;
    const char* canonical;  // nullptr: no canonical form (an error)
};

const UrlCase kUrlCases[] = {
    {"https://evil.example.com/mcp", "https://evil.example.com/mcp"},
    {"https://u:p@evil.example.com/mcp", "https://evil.example.com/mcp"},
    {"https://u@evil.example.com/mcp", "https://evil.example.com/mcp"},
    {"https://evil.example.com./mcp", "https://evil.example.com/mcp"},
    {"https://evil.example.com%2e/mcp", "https://evil.example.com/mcp"},
    {"https://evil.example.com%2E%2E/mcp", "https://evil.example.com/mcp"},
    {"https://%65vil.example.com/mcp", "https://evil.example.com/mcp"},
    {"HTTPS://EVIL.Example.COM:443/mcp", "https://evil.example.com/mcp"},
    {"https://evil.example.com:8443/mcp", "https://evil.example.com:8443/mcp"},
    {"http://evil.example.com:80/", "http://evil.example.com/"},
    {"wss://evil.example.com:443/ws", "wss://evil.example.com/ws"},
    {"https://évil.example.com/mcp", "https://xn--vil-9la.example.com/mcp"},
    {"https://ÉVIL.example.com/mcp", "https://xn--vil-9la.example.com/mcp"},
    {"https://xn--vil-9la.example.com/mcp", "https://xn--vil-9la.example.com/mcp"},
    {"https://XN--VIL-9LA.example.com/mcp", "https://xn--vil-9la.example.com/mcp"},
    {"https://%C3%A9vil.example.com/mcp", "https://xn--vil-9la.example.com/mcp"},
    {"https://ｅｖｉｌ.example.com/mcp", "https://evil.example.com/mcp"},  // fullwidth letters (UTS #46)
    {"https://[::ffff:10.0.0.5]/", "https://10.0.0.5/"},
    {"https://[::FFFF:a00:5]:443/", "https://10.0.0.5/"},
    {"https://[0:0:0:0:0:ffff:10.0.0.5]/", "https://10.0.0.5/"},
    {"http://0x7f.1/", "http://127.0.0.1/"},
    {"http://2130706433/", "http://127.0.0.1/"},
    {"http://0177.0.0.1/", "http://127.0.0.1/"},
    {"http://127.0.0.1./", "http://127.0.0.1/"},
    {"http://[0:0::1]/", "http://[::1]/"},
    {"http://[2001:DB8:0:0:0:0:0:1]:8080/x", "http://[2001:db8::1]:8080/x"},
    {"https://[fe80::1%25eth0]/", "https://[fe80::1]/"},
    {"https://h.example/a/../b/./c", "https://h.example/b/c"},
    {"https://h.example/%61dmin", "https://h.example/admin"},
    {"https://h.example/%2e%2e/admin", "https://h.example/admin"},  // "%2e%2e" is ".." once decoded
    {"https://h.example/a/b/%2E%2E/", "https://h.example/a/"},
    {"https://h.example/a//b/%2e/c", "https://h.example/a//b/c"},
    {"https://h.example/a%2fb", "https://h.example/a%2Fb"},
    {"https://h.example", "https://h.example/"},
    {"https://h.example/p?q=1#frag", "https://h.example/p?q=1"},
    {"https://h_internal/", "https://h_internal/"},
    // refused: no decision is taken on what parsers read differently, or on no host at all
    {"http://evil.com\\@good.com/", nullptr},
    {"https://evil.example.com%2fx/", nullptr},
    {"https://evil.example.com%00.x/", nullptr},
    {"https://a b.com/", nullptr},
    {"https://*.example.com/", nullptr},
    {"https://", nullptr},
    {"/relative", nullptr},
    {"", nullptr},
    {"not a url", nullptr},
};

TEST(CanonicalUrl, Table) {
    for (const UrlCase& c : kUrlCases) {
        SCOPED_TRACE(c.written);
        const auto r = canonical_url(c.written);
        if (!c.canonical) {
            EXPECT_FALSE(r) << "canonical: " << (r ? r.url->text() : "");
            EXPECT_FALSE(r.error.empty());
        } else {
            ASSERT_TRUE(r) << r.error;
            EXPECT_EQ(r.url->text(), c.canonical);
        }
    }
}

// The canonical text is a fixed point: canonicalising it again changes nothing (fuzzers check this).
TEST(CanonicalUrl, IsIdempotent) {
    for (const UrlCase& c : kUrlCases) {
        const auto r = canonical_url(c.written);
        if (!r) continue;
        const auto again = canonical_url(r.url->text());
        ASSERT_TRUE(again) << c.written;
        EXPECT_EQ(again.url->text(), r.url->text()) << c.written;
    }
}

TEST(CanonicalUrl, RemembersUserinfoAndDefaultPort) {
    const auto r = canonical_url("https://u:secret@h.example/x");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r.url->had_userinfo);
    EXPECT_EQ(r.url->port, "443");
    EXPECT_EQ(r.url->text().find("secret"), std::string::npos);
}

TEST(CanonicalHost, KindsAndForms) {
    struct Case {
        const char* written;
        const char* host;
        HostKind kind;
    };
    const Case cases[] = {
        {"Evil.Example.com.", "evil.example.com", HostKind::Name},
        {"evil.example.com%2e", "evil.example.com", HostKind::Name},
        {"[::ffff:127.0.0.1]", "127.0.0.1", HostKind::Ipv4},
        {"::ffff:127.0.0.1", "127.0.0.1", HostKind::Ipv4},
        {"[::1]", "::1", HostKind::Ipv6},
        {"10.0.0.5.", "10.0.0.5", HostKind::Ipv4},
        {"0xa.5", "10.0.0.5", HostKind::Ipv4},
        {"bücher.example", "xn--bcher-kva.example", HostKind::Name},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.written);
        const auto r = canonical_host(c.written);
        ASSERT_TRUE(r) << r.error;
        EXPECT_EQ(r.host->host, c.host);
        EXPECT_EQ(r.host->kind, c.kind);
    }
    for (const char* bad : {"", "a/b", "a@b", "[::1", "[zz::1]", "%zz", "a..b", "1.2.3.4 junk", "a%20b"}) {
        SCOPED_TRACE(bad);
        EXPECT_FALSE(canonical_host(bad));
    }
}

TEST(CanonicalPattern, HostAndUrlPatterns) {
    EXPECT_EQ(canonical_host_pattern("*.Évil.example.com."), "*.xn--vil-9la.example.com");
    EXPECT_EQ(canonical_host_pattern("EVIL.example.com"), "evil.example.com");
    EXPECT_EQ(canonical_host_pattern("[::ffff:10.0.0.5]"), "10.0.0.5");
    EXPECT_FALSE(canonical_host_pattern("https://evil.example.com/"));
    EXPECT_EQ(canonical_url_pattern("HTTPS://Évil.example.com:443/*"), "https://xn--vil-9la.example.com/*");
    EXPECT_EQ(canonical_url_pattern("https://*.Example.COM:*/*"), "https://*.example.com:*/*");
    EXPECT_EQ(canonical_url_pattern("https://evil.example.com./*"), "https://evil.example.com/*");
    EXPECT_EQ(canonical_url_pattern("http://[::FFFF:a00:5]:8080/*"), "http://10.0.0.5:8080/*");
    EXPECT_EQ(canonical_url_pattern("*"), "*");
}

}  // namespace
