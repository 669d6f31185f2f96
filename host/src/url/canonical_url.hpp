// One canonical form of a URL for everything that decides about URLs (policy rules, the safe-fetch
// policy, dedup): two spellings that reach the same host compare equal, so a rule cannot be
// stepped around by writing the host differently. libcurl's URL API parses (the transports
// connect with libcurl, so its reading of a URL is the one that matters); libidn2 maps
// internationalised names to A-labels, inet_pton/inet_ntop write IP literals one way.
//
// Pure functions of their input (no I/O, no globals): easy to fuzz and to call anywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcph::url {

enum class HostKind { Name, Ipv4, Ipv6 };

struct CanonicalHost {
    // Name: lower-case A-labels ("xn--vil-9la.example.com"), no trailing dot, every %XX decoded.
    // Ipv4: dotted quad ("10.0.0.5"), whatever form it was written in (0x0a.5, 167772165, ...),
    //       including an IPv4-mapped IPv6 literal ([::ffff:10.0.0.5] connects to 10.0.0.5).
    // Ipv6: RFC 5952 text without brackets or zone ("2001:db8::1").
    std::string host;
    HostKind kind = HostKind::Name;
    std::string literal() const;  // as it appears in a URL: IPv6 in brackets
};

struct CanonicalUrl {
    std::string scheme;  // lower-case
    CanonicalHost host;
    std::string port;    // the explicit port, else the scheme's default; "" when neither is known
    std::string path;    // "/" at least; dot segments resolved, unreserved %XX decoded, other %XX upper-case
    std::string query;   // without '?'; "" when none
    bool had_userinfo = false;  // "user:pass@" was present (and is not part of text())
    bool default_port() const;
    // scheme://host[:port]path[?query] — no userinfo, no fragment, the default port left out.
    std::string text() const;
};

struct CanonicalUrlResult {
    std::optional<CanonicalUrl> url;
    std::string error;  // why the text is not a URL we can decide about (set iff !url)
    explicit operator bool() const { return url.has_value(); }
};

// The canonical form of an absolute URL, or why there is none (not a URL, no host, a host that is
// neither a valid name nor an IP literal after decoding, a backslash anywhere — parsers disagree
// about what it means, so no decision is taken on it).
CanonicalUrlResult canonical_url(std::string_view text);

struct CanonicalHostResult {
    std::optional<CanonicalHost> host;
    std::string error;
    explicit operator bool() const { return host.has_value(); }
};

// One host as written in a URL or a rule: %XX decoded, trailing dots dropped, IPv6 brackets and
// zone id dropped, IPv4 in any inet_aton form and IPv4-mapped IPv6 written as a dotted quad, names
// lower-cased and mapped to A-labels (IDNA 2008 / UTS #46 via libidn2).
CanonicalHostResult canonical_host(std::string_view host);

// A host pattern of a policy rule, made comparable with canonical hosts: labels without '*' are
// canonicalised like canonical_host() does; labels with '*' are only lower-cased. nullopt when a
// label without '*' is not a valid name.
std::optional<std::string> canonical_host_pattern(std::string_view pattern);

// A serverUrl pattern ("https://*.Example.COM:443/*") with its scheme lower-cased, its host put
// through canonical_host_pattern() and a default port dropped, so it compares with
// CanonicalUrl::text(). A pattern without "://" comes back unchanged.
std::string canonical_url_pattern(std::string_view pattern);

// "443" for https/wss, "80" for http/ws, else "".
std::string_view default_port_of(std::string_view scheme);

}  // namespace mcph::url
