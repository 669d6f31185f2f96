#include "url/canonical_url.hpp"

#include "text/ascii.hpp"

#include <curl/curl.h>
#include <idn2.h>

#include <arpa/inet.h>

#include <cstring>
#include <memory>
#include <vector>

namespace mcph::url {
namespace {

using UrlHandle = std::unique_ptr<CURLU, decltype(&curl_url_cleanup)>;

std::optional<std::string> part(CURLU* handle, CURLUPart which, unsigned flags = 0) {
    char* text = nullptr;
    if (curl_url_get(handle, which, &text, flags) != CURLUE_OK || !text) return std::nullopt;
    std::string out(text);
    curl_free(text);
    return out;
}

using text::ascii_lower;

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_hex_escape(std::string_view s, size_t i) {
    return i + 2 < s.size() && s[i] == '%' && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0;
}

// Every %XX of a host decoded (libcurl already does it when parsing a whole URL; a host rule
// arrives without that help). A broken escape is an error, not guessed at.
std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out.push_back(s[i]);
            continue;
        }
        if (!is_hex_escape(s, i)) return std::nullopt;
        out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
        i += 2;
    }
    return out;
}

bool is_unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

// RFC 3986 §6.2.2: %XX of an unreserved character means the character itself ("/%61dmin" is
// "/admin"); every other escape is kept, its hex digits upper-cased.
std::string normalise_escapes(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (!is_hex_escape(s, i)) {
            // A '%' that starts no escape is written as one: left bare, it could join the
            // characters decoded after it into a new escape ("%2%65" -> "%2e" -> "."), and the
            // canonical form would not be canonical (found by fuzz/url_canonical_fuzz.cpp).
            if (s[i] == '%') out += "%25";
            else out.push_back(s[i]);
            continue;
        }
        const auto c = static_cast<unsigned char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
        if (is_unreserved(c)) {
            out.push_back(static_cast<char>(c));
        } else {
            out += {'%', kHex[c >> 4], kHex[c & 15]};
        }
        i += 2;
    }
    return out;
}

// RFC 3986 §5.2.4. libcurl has already removed the literal "." and ".." segments; decoding "%2e"
// can make new ones ("/%2e%2e/admin" is "/../admin", which servers read as "/admin").
std::string remove_dot_segments(std::string_view in) {
    if (in.empty() || in.front() != '/') return std::string(in);
    std::vector<std::string_view> out;  // empty segments ("//") are kept: they are not dots
    std::string_view rest = in.substr(1);
    for (;;) {
        const size_t slash = rest.find('/');
        const std::string_view segment = rest.substr(0, slash);
        const bool last = slash == std::string_view::npos;
        if (segment == "..") {
            if (!out.empty()) out.pop_back();
            if (last) out.emplace_back();
        } else if (segment == ".") {
            if (last) out.emplace_back();
        } else {
            out.push_back(segment);
        }
        if (last) break;
        rest = rest.substr(slash + 1);
    }
    std::string path;
    for (std::string_view segment : out) path += "/" + std::string(segment);
    return path.empty() ? "/" : path;
}

std::string ipv4_text(const in_addr& a) {
    char buf[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &a, buf, sizeof buf);
    return buf;
}

// IPv4 in any form inet_aton() takes ("10.0.0.5", "0x0a.5", "167772165", "012.0.0.5"): libcurl
// and the resolver read those as addresses, so the policy does too. Only a string of digits, 'x'
// and dots is tried (inet_aton stops at whitespace and would accept "1.2.3.4 junk").
std::optional<std::string> as_ipv4(const std::string& host) {
    if (host.empty() || host.find_first_not_of("0123456789abcdefxABCDEFX.") != std::string::npos) return std::nullopt;
    if (hex_value(host.front()) < 0 || host.front() > '9') return std::nullopt;  // names like "dead.beef"
    in_addr a{};
    if (inet_aton(host.c_str(), &a) == 0) return std::nullopt;
    return ipv4_text(a);
}

// An IPv6 literal without brackets (a zone id "%25eth0" / "%eth0" is dropped: it picks an interface,
// not another host). IPv4-mapped addresses become the IPv4 host they connect to.
std::optional<CanonicalHost> as_ipv6(std::string_view inside) {
    std::string text(inside.substr(0, inside.find('%')));
    in6_addr a{};
    if (inet_pton(AF_INET6, text.c_str(), &a) != 1) return std::nullopt;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        in_addr v4{};
        std::memcpy(&v4, a.s6_addr + 12, 4);
        return CanonicalHost{ipv4_text(v4), HostKind::Ipv4};
    }
    char buf[INET6_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET6, &a, buf, sizeof buf);
    return CanonicalHost{buf, HostKind::Ipv6};
}

bool is_ascii(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

// IDNA 2008 with UTS #46 mapping, non-transitional first (what libcurl and browsers resolve),
// transitional as libcurl's own fallback: the same A-labels libcurl would look up.
std::optional<std::string> to_a_labels(const std::string& name) {
    for (int flags : {IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL, IDN2_NFC_INPUT | IDN2_TRANSITIONAL}) {
        char* out = nullptr;
        if (idn2_to_ascii_8z(name.c_str(), &out, flags) == IDN2_OK && out) {
            std::string ascii(out);
            idn2_free(out);
            return ascii_lower(ascii);
        }
    }
    return std::nullopt;
}

// Letters, digits, '-', '_' (seen in internal names) and dots between non-empty labels.
bool is_valid_name(std::string_view name, bool allow_star) {
    if (name.empty() || name.size() > 253) return false;
    size_t label = 0;
    for (char c : name) {
        if (c == '.') {
            if (label == 0) return false;
            label = 0;
            continue;
        }
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || (allow_star && c == '*');
        if (!ok || ++label > 63) return false;
    }
    return label != 0;
}

std::string strip_trailing_dots(std::string s) {
    while (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

CanonicalHostResult host_error(std::string why) { return {std::nullopt, std::move(why)}; }

std::vector<std::string_view> split_labels(std::string_view s) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (;;) {
        size_t dot = s.find('.', start);
        out.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) return out;
        start = dot + 1;
    }
}

}  // namespace

std::string_view default_port_of(std::string_view scheme) {
    if (scheme == "http" || scheme == "ws") return "80";
    if (scheme == "https" || scheme == "wss") return "443";
    return {};
}

std::string CanonicalHost::literal() const { return kind == HostKind::Ipv6 ? "[" + host + "]" : host; }

bool CanonicalUrl::default_port() const { return port.empty() || port == default_port_of(scheme); }

std::string CanonicalUrl::text() const {
    std::string out = scheme + "://" + host.literal();
    if (!default_port()) out += ":" + port;
    out += path;
    if (!query.empty()) out += "?" + query;
    return out;
}

CanonicalHostResult canonical_host(std::string_view written) {
    std::optional<std::string> decoded = percent_decode(written);
    if (!decoded) return host_error("the host has a broken %-escape");
    if (decoded->empty()) return host_error("the host is empty");
    if (decoded->front() == '[') {
        if (decoded->back() != ']') return host_error("the IPv6 literal has no closing ']'");
        std::optional<CanonicalHost> v6 = as_ipv6(std::string_view(*decoded).substr(1, decoded->size() - 2));
        if (!v6) return host_error("the host is not a valid IPv6 literal");
        return {std::move(v6), {}};
    }
    if (decoded->find(':') != std::string::npos) {  // a bare IPv6 address (a host rule may be written so)
        std::optional<CanonicalHost> v6 = as_ipv6(*decoded);
        if (!v6) return host_error("the host is not a valid name or address");
        return {std::move(v6), {}};
    }
    std::string host = strip_trailing_dots(*decoded);
    if (std::optional<std::string> v4 = as_ipv4(host)) return {CanonicalHost{*v4, HostKind::Ipv4}, {}};
    if (!is_ascii(host)) {
        std::optional<std::string> ascii = to_a_labels(host);
        if (!ascii) return host_error("the host is not a valid internationalised domain name");
        host = strip_trailing_dots(*ascii);
        // An A-label form can itself spell an address (fullwidth digits map to ASCII ones).
        if (std::optional<std::string> v4 = as_ipv4(host)) return {CanonicalHost{*v4, HostKind::Ipv4}, {}};
    }
    host = ascii_lower(host);
    if (!is_valid_name(host, false)) return host_error("the host is not a valid DNS name");
    return {CanonicalHost{host, HostKind::Name}, {}};
}

CanonicalUrlResult canonical_url(std::string_view text) {
    auto fail = [](std::string why) { return CanonicalUrlResult{std::nullopt, std::move(why)}; };
    if (text.find('\\') != std::string_view::npos) return fail("a backslash in a URL is read differently by different parsers");
    for (char c : text)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return fail("a URL must not contain spaces or control characters");
    UrlHandle handle(curl_url(), curl_url_cleanup);
    if (!handle) return fail("out of memory");
    const std::string owned(text);
    // ws/wss (and plugins' own schemes) may be unknown to this libcurl build: parse them anyway.
    if (curl_url_set(handle.get(), CURLUPART_URL, owned.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
        return fail("not an absolute URL");
    std::optional<std::string> scheme = part(handle.get(), CURLUPART_SCHEME);
    std::optional<std::string> host = part(handle.get(), CURLUPART_HOST);
    if (!scheme || !host || host->empty()) return fail("the URL has no host");
    CanonicalUrl out;
    out.scheme = ascii_lower(*scheme);
    CanonicalHostResult h = canonical_host(*host);
    if (!h) return fail(h.error);
    out.host = std::move(*h.host);
    out.port = part(handle.get(), CURLUPART_PORT).value_or(std::string(default_port_of(out.scheme)));
    out.path = normalise_escapes(part(handle.get(), CURLUPART_PATH).value_or("/"));
    if (out.path.find('.') != std::string::npos) out.path = remove_dot_segments(out.path);
    if (out.path.empty()) out.path = "/";
    out.query = part(handle.get(), CURLUPART_QUERY).value_or("");
    out.had_userinfo = part(handle.get(), CURLUPART_USER).has_value() || part(handle.get(), CURLUPART_OPTIONS).has_value();
    return {std::move(out), {}};
}

std::optional<std::string> canonical_host_pattern(std::string_view pattern) {
    if (pattern.find('*') == std::string_view::npos) {
        CanonicalHostResult h = canonical_host(pattern);
        if (!h) return std::nullopt;
        return h.host->literal();
    }
    std::optional<std::string> decoded = percent_decode(pattern);
    if (!decoded) return std::nullopt;
    const std::string trimmed = strip_trailing_dots(*decoded);
    std::string out;
    for (std::string_view label : split_labels(trimmed)) {
        if (!out.empty()) out.push_back('.');
        if (label.find('*') != std::string_view::npos || is_ascii(label)) {
            out += ascii_lower(label);
            continue;
        }
        std::optional<std::string> ascii = to_a_labels(std::string(label));
        if (!ascii) return std::nullopt;
        out += *ascii;
    }
    if (!is_valid_name(out, true)) return std::nullopt;
    return out;
}

std::string canonical_url_pattern(std::string_view pattern) {
    const size_t sep = pattern.find("://");
    if (sep == std::string_view::npos) return std::string(pattern);
    const std::string scheme = ascii_lower(pattern.substr(0, sep));
    const size_t start = sep + 3;
    size_t end = pattern.find_first_of("/?#", start);
    if (end == std::string_view::npos) end = pattern.size();
    std::string_view authority = pattern.substr(start, end - start);
    if (authority.find('@') != std::string_view::npos) return std::string(pattern);  // as written: nothing to canonicalise safely
    std::string_view host = authority, port;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) return std::string(pattern);
        host = authority.substr(0, close + 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
    } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    std::optional<std::string> canonical = canonical_host_pattern(host);
    if (!canonical) return std::string(pattern);
    std::string out = scheme + "://" + *canonical;
    if (!port.empty() && port != default_port_of(scheme)) out += ":" + std::string(port);
    return out + std::string(pattern.substr(end));
}

}  // namespace mcph::url
