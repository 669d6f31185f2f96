// The `managed` scope from an MDM / configuration endpoint (seed 000 §18.6, issue #15). Where the
// endpoint is can only come from where only the administrator writes:
//
//   <managed_dir>/managed-settings-endpoint.json      (managed_dir: /etc/mcph, or $MCPH_MANAGED_DIR
//                                                      exactly as for managed-settings.json)
//   {"url": "https://mdm.example.com/mcph/settings",   required: https, or http to loopback
//    "timeoutMs": 5000,                                optional, 100..60000 (default 5000)
//    "headers": {"Authorization": "Bearer ..."},       optional
//    "useCachedOnFailure": false}                      optional (default false)
//
// The file is read under the administrator's rule (file_trust.hpp: root or the user, not writable
// by others), as managed-settings.json is; an unknown field in it is an error (a typo in an
// administrator's file must not silently change what is enforced).
//
// The endpoint answers GET with a managed-settings document — exactly what managed-settings.json
// holds — and it is merged exactly as that file is (layered_config.hpp). Both present: both are
// merged, the file first, the endpoint's document second (its servers win by name; the lists add
// up; a flag set in either is set).
//
// Fetched once per process: the first full config load fetches, every later load (reload_config,
// a second Host object) reuses that result, success or failure, keyed by the endpoint file's path.
// Fail closed: configured but unreadable, unreachable, past its timeout, non-2xx or not a JSON
// object → no server connects, with the reason; the last good copy (cached in the config home,
// remote_fetch.hpp cache_file_for, kind "managed-settings") only when "useCachedOnFailure": true.
// That copy is only as safe as the user's own config home: the administrator who opts into it
// accepts that the user could edit it while the endpoint is unreachable.
#pragma once

#include "config/config_locations.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace mcph::config {

struct ManagedEndpointConfig {
    std::string url;
    std::chrono::milliseconds timeout{5000};
    std::map<std::string, std::string> headers;
    bool use_cached_on_failure = false;
};

// The endpoint file's text. Throws mcph::Error(Usage) naming `origin` and the field.
ManagedEndpointConfig parse_managed_endpoint_config(std::string_view text, const std::string& origin);

struct ManagedEndpointResult {
    bool configured = false;     // the endpoint file exists
    std::string url;             // redacted: the managed servers' origin, shown in status
    std::string settings_json;   // the managed-settings document to merge (a JSON object)
    std::string error;           // non-empty: fail closed with this reason
    bool from_cache = false;     // settings_json is the cached copy (useCachedOnFailure)
    std::string fetch_error;     // why the fetch failed, also when the cache was used
};

// Reads <managed_dir>/managed-settings-endpoint.json and fetches, without the process-wide once
// (tests). Never throws.
ManagedEndpointResult fetch_managed_endpoint(const std::filesystem::path& endpoint_file,
                                             const std::filesystem::path& config_home);

// The process-wide once around fetch_managed_endpoint, keyed by locations.managed_endpoint_file().
// Concurrent first loads wait for the one fetch (bounded by its timeout).
ManagedEndpointResult managed_endpoint_settings(const ConfigLocations& locations);

}  // namespace mcph::config
