// What kind of address an IP literal is, for the safe-fetch policy (plugins/fetch_policy.hpp): a
// fetch on behalf of a remote server must not be steered into the user's own machine or network.
// IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4)
// are judged by the IPv4 address they reach.
#pragma once

#include <netinet/in.h>

#include <optional>
#include <string>
#include <string_view>

namespace mcph::url {

enum class AddressClass {
    Public,
    Loopback,     // 127/8, ::1
    Private,      // RFC 1918, CGNAT 100.64/10, link-local, benchmarking 198.18/15, ULA, site-local, local NAT64
    Unspecified,  // 0.0.0.0/8, :: — connecting to it reaches this machine on Linux
    Multicast,    // 224/4, ff00::/8
    Broadcast,    // 255.255.255.255
    Reserved,     // documentation, IETF protocol assignments, 240/4, discard-only
};

struct AddressInfo {
    AddressClass kind = AddressClass::Public;
    std::string range;  // "10.0.0.0/8", for messages; "" for public addresses
};

AddressInfo classify_ipv4(const in_addr& address);
AddressInfo classify_ipv6(const in6_addr& address);

// An IP literal as text ("10.0.0.5", "::1", "[::ffff:10.0.0.5]"); nullopt when it is not one.
std::optional<AddressInfo> classify_address(std::string_view literal);

// "loopback", "private", "unspecified", "multicast", "broadcast", "reserved", "public".
const char* class_name(AddressClass kind);

}  // namespace mcph::url
