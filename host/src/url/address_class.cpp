#include "url/address_class.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace mcph::url {
namespace {

struct V4Range {
    uint32_t base;
    int bits;
    AddressClass kind;
    const char* text;
};

// IANA's special-purpose IPv4 registry, as far as a fetch is concerned (first match wins).
constexpr V4Range kV4Ranges[] = {
    {0x00000000, 8, AddressClass::Unspecified, "0.0.0.0/8"},
    {0x0A000000, 8, AddressClass::Private, "10.0.0.0/8"},
    {0x64400000, 10, AddressClass::Private, "100.64.0.0/10 (shared, CGNAT)"},
    {0x7F000000, 8, AddressClass::Loopback, "127.0.0.0/8"},
    {0xA9FE0000, 16, AddressClass::Private, "169.254.0.0/16 (link-local)"},
    {0xAC100000, 12, AddressClass::Private, "172.16.0.0/12"},
    {0xC0000000, 24, AddressClass::Reserved, "192.0.0.0/24 (IETF protocol assignments)"},
    {0xC0000200, 24, AddressClass::Reserved, "192.0.2.0/24 (documentation)"},
    {0xC0A80000, 16, AddressClass::Private, "192.168.0.0/16"},
    {0xC6120000, 15, AddressClass::Private, "198.18.0.0/15 (benchmarking)"},
    {0xC6336400, 24, AddressClass::Reserved, "198.51.100.0/24 (documentation)"},
    {0xCB007100, 24, AddressClass::Reserved, "203.0.113.0/24 (documentation)"},
    {0xE0000000, 4, AddressClass::Multicast, "224.0.0.0/4"},
    {0xFFFFFFFF, 32, AddressClass::Broadcast, "255.255.255.255"},
    {0xF0000000, 4, AddressClass::Reserved, "240.0.0.0/4"},
};

bool in_v4(uint32_t a, const V4Range& r) {
    const uint32_t mask = r.bits == 0 ? 0 : ~uint32_t{0} << (32 - r.bits);
    return (a & mask) == r.base;
}

struct V6Range {
    uint8_t prefix[16];
    int bits;
    AddressClass kind;
    const char* text;
};

constexpr V6Range kV6Ranges[] = {
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, AddressClass::Private, "64:ff9b:1::/48 (local-use NAT64)"},
    {{0x01, 0x00}, 64, AddressClass::Reserved, "100::/64 (discard-only)"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, AddressClass::Reserved, "2001:db8::/32 (documentation)"},
    {{0xfc}, 7, AddressClass::Private, "fc00::/7 (unique local)"},
    {{0xfe, 0x80}, 10, AddressClass::Private, "fe80::/10 (link-local)"},
    {{0xfe, 0xc0}, 10, AddressClass::Private, "fec0::/10 (site-local)"},
    {{0xff}, 8, AddressClass::Multicast, "ff00::/8"},
};

bool in_v6(const in6_addr& a, const V6Range& r) {
    for (int bit = 0; bit < r.bits; bit += 8) {
        const int n = r.bits - bit >= 8 ? 8 : r.bits - bit;
        const auto mask = static_cast<uint8_t>(0xFF << (8 - n));
        if ((a.s6_addr[bit / 8] & mask) != (r.prefix[bit / 8] & mask)) return false;
    }
    return true;
}

bool zeros(const in6_addr& a, int from, int to) {
    for (int i = from; i < to; ++i)
        if (a.s6_addr[i] != 0) return false;
    return true;
}

in_addr v4_at(const in6_addr& a, int offset) {
    in_addr v4{};
    std::memcpy(&v4, a.s6_addr + offset, 4);
    return v4;
}

// The IPv4 address an IPv6 one stands for, if it is one of the forms that reach IPv4 hosts.
std::optional<in_addr> embedded_ipv4(const in6_addr& a) {
    static constexpr uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
    if (IN6_IS_ADDR_V4MAPPED(&a)) return v4_at(a, 12);                              // ::ffff:a.b.c.d
    if (zeros(a, 0, 12)) return v4_at(a, 12);                                       // ::a.b.c.d (compatible)
    if (std::memcmp(a.s6_addr, kNat64, 12) == 0) return v4_at(a, 12);               // 64:ff9b::a.b.c.d
    if (a.s6_addr[0] == 0x20 && a.s6_addr[1] == 0x02) return v4_at(a, 2);          // 2002:aabb:ccdd:: (6to4)
    return std::nullopt;
}

}  // namespace

AddressInfo classify_ipv4(const in_addr& address) {
    const uint32_t a = ntohl(address.s_addr);
    for (const V4Range& r : kV4Ranges)
        if (in_v4(a, r)) return {r.kind, r.text};
    return {};
}

AddressInfo classify_ipv6(const in6_addr& address) {
    if (IN6_IS_ADDR_UNSPECIFIED(&address)) return {AddressClass::Unspecified, "::"};
    if (IN6_IS_ADDR_LOOPBACK(&address)) return {AddressClass::Loopback, "::1"};
    if (std::optional<in_addr> v4 = embedded_ipv4(address)) {
        AddressInfo inner = classify_ipv4(*v4);
        if (inner.kind != AddressClass::Public) inner.range += " (inside an IPv6 address)";
        return inner;
    }
    for (const V6Range& r : kV6Ranges)
        if (in_v6(address, r)) return {r.kind, r.text};
    return {};
}

std::optional<AddressInfo> classify_address(std::string_view literal) {
    if (literal.size() >= 2 && literal.front() == '[' && literal.back() == ']') literal = literal.substr(1, literal.size() - 2);
    std::string text(literal.substr(0, literal.find('%')));  // a zone id picks an interface, not a host
    in_addr v4{};
    if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return classify_ipv4(v4);
    in6_addr v6{};
    if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) return classify_ipv6(v6);
    return std::nullopt;
}

const char* class_name(AddressClass kind) {
    switch (kind) {
        case AddressClass::Public: return "public";
        case AddressClass::Loopback: return "loopback";
        case AddressClass::Private: return "private";
        case AddressClass::Unspecified: return "unspecified";
        case AddressClass::Multicast: return "multicast";
        case AddressClass::Broadcast: return "broadcast";
        case AddressClass::Reserved: return "reserved";
    }
    return "unknown";
}

}  // namespace mcph::url
