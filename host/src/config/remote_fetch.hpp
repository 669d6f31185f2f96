// One bounded HTTP GET of a configuration document: the webapp connector list and the managed
// settings endpoint (config/connectors.hpp, config/managed_endpoint.hpp). Whatever answers is
// outside this machine's trust, so every part of the exchange has a bound (ARCHITECTURE §4):
//
//  - URL: the safe-fetch rule of plugins/fetch_policy.hpp — https, or http to a loopback host only
//    (tests, a local agent); checked before anything is sent;
//  - time: `timeout` covers the whole exchange (connect, TLS, headers, body): a service that
//    accepts and never answers costs exactly that;
//  - size: a body over `max_bytes` is refused (judged from Content-Length and again while reading);
//  - redirects: never followed — a 3xx is a failure like any other non-2xx, so a compromised or
//    misconfigured service cannot send the request, and its headers, anywhere else;
//  - TLS: peer and host name always verified (the system's CA store).
// libcurl does the HTTP (it is already what libmcph links for URLs); nothing is hand-parsed.
#pragma once

#include <mcph/json.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace mcph::config {

struct FetchRequest {
    std::string url;
    std::map<std::string, std::string> headers;  // sent as given (credentials: never logged)
    std::chrono::milliseconds timeout{5000};
    std::size_t max_bytes = std::size_t{4} << 20;
    std::string what;  // for messages: "the connector service", "the managed settings endpoint"
};

// The body of a 2xx answer. Throws mcph::Error naming `what`, the URL (redacted) and the reason:
// Usage for a URL the policy refuses; Connection for an unreachable service, a timeout (the bound
// named), a non-2xx status (the status named), a body over the cap (the cap named).
std::string fetch_document(const FetchRequest& request);

// ---- the settings that describe such an endpoint -------------------------------------------------

// {"Name": "value", ...}: strings only, no empty name, no line break. Throws Error(Usage) naming
// `origin` and `field`.
std::map<std::string, std::string> parse_header_map(const JsonValue& value, const std::string& origin, const std::string& field);

// An integer number of milliseconds in [100, 60000] (a start-up fetch must not hold the host for
// minutes). Throws Error(Usage) naming `origin` and `field`.
std::chrono::milliseconds parse_timeout_ms(const JsonValue& value, const std::string& origin, const std::string& field);

// A non-empty string the fetch policy accepts (https, or http to loopback). Throws Error(Usage).
std::string parse_endpoint_url(const JsonValue& value, const std::string& origin, const std::string& field);

// ---- the last good copy ---------------------------------------------------------------------------

// <config_home>/cache/<kind>-<16 hex of sha256(url)>.json: one file per endpoint, so pointing the
// setting at another service never serves the old service's list.
std::filesystem::path cache_file_for(const std::filesystem::path& config_home, const std::string& kind, const std::string& url);

// Written atomically, mode 0600, folder 0700 (atomic_write.hpp). Throws Error(Usage).
void write_cache(const std::filesystem::path& file, const std::string& body);

// The cached body, nullopt when there is none. Read under the config home's rule (file_trust.hpp:
// the user's own, not group- or world-writable); throws Error(Usage) naming the file otherwise.
std::optional<std::string> read_cache(const std::filesystem::path& file);

}  // namespace mcph::config
