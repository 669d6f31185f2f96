#include "plugins/fetch_policy.hpp"

#include "url/address_class.hpp"
#include "url/canonical_url.hpp"
#include "url/redact.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace mcph::plugins {
namespace {

using url::AddressClass;
using url::AddressInfo;

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Names that never leave this machine (RFC 6761 §6.3): "localhost" and anything under it.
bool is_loopback_name(std::string_view name) { return name == "localhost" || ends_with(name, ".localhost"); }

// Names the user can only mean as local: special-use suffixes no public registry hands out, and
// single-label names (only a search domain or /etc/hosts resolves them).
bool is_local_name(std::string_view name) {
    static constexpr std::array<std::string_view, 4> kSuffixes = {".localhost", ".local", ".internal", ".home.arpa"};
    if (name == "localhost" || name.find('.') == std::string_view::npos) return true;
    for (std::string_view s : kSuffixes)
        if (ends_with(name, s)) return true;
    return false;
}

// The class of the host of a canonical URL: an address literal by its range, a loopback name as
// loopback, any other name nullopt (judged when it is resolved and connected).
std::optional<AddressInfo> host_class(const url::CanonicalHost& host) {
    if (host.kind != url::HostKind::Name) return url::classify_address(host.host);
    if (is_loopback_name(host.host)) return AddressInfo{AddressClass::Loopback, "localhost"};
    return std::nullopt;
}

bool is_local_class(AddressClass kind) {
    return kind == AddressClass::Loopback || kind == AddressClass::Private || kind == AddressClass::Unspecified;
}

}  // namespace

bool is_local_server(const std::string& server_url) {
    url::CanonicalUrlResult server = url::canonical_url(server_url);
    if (!server) return false;
    if (server.url->host.kind == url::HostKind::Name) return is_local_name(server.url->host.host);
    std::optional<AddressInfo> info = url::classify_address(server.url->host.host);
    return info && is_local_class(info->kind);
}

std::string check_fetch_url(const std::string& url, const std::string& server_url) {
    const std::string shown = url::redact_url(url);
    url::CanonicalUrlResult target = url::canonical_url(url);
    if (!target) return "not a valid absolute URL: " + shown + " (" + target.error + ")";
    const url::CanonicalUrl& u = *target.url;
    const std::optional<AddressInfo> info = host_class(u.host);
    const bool loopback = info && info->kind == AddressClass::Loopback;
    if (u.scheme != "https" && !(u.scheme == "http" && loopback))
        return "refusing " + u.scheme + " URL " + shown + ": https is required except on loopback";
    if (!info || info->kind == AddressClass::Public) return {};
    const std::string what = std::string(url::class_name(info->kind)) + " address " + u.host.host + " (" + info->range + ")";
    if (!is_local_class(info->kind)) return "refusing " + what + ": not a unicast host address";
    if (!is_local_server(server_url))
        return "refusing " + what + " for a server that is not local (" + url::redact_url(server_url) +
               "): only a server on this machine or its network may send the client there";
    return {};
}

}  // namespace mcph::plugins
