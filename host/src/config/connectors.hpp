// The `webapp` scope (seed 000 §18.6, issue #15): the user's connectors, synced from a web service.
// The service is named by the "connectors" setting of the user's or the administrator's settings
// (never a project's or the local file's: a repository must not be able to point mcph at a service
// that adds servers without approval, nor make mcph send the user's credentials to it):
//
//   "connectors": {"url": "https://connectors.example.com/v1/mine",       required
//                  "headers": {"Authorization": "Bearer ..."},            optional
//                  "headersHelper": "print-token --json",                  optional (headers_helper.hpp)
//                  "timeoutMs": 5000,                                      optional, 100..60000
//                  "proxyUrlParameters": ["mcp_url", "target"]}            optional
//
// The service answers GET with a versioned document (docs/governance.md, "Webapp connectors"):
//
//   {"version": 1, "connectors": [{"name": "github", "url": "https://...", "type": "http",
//                                  "headers": {...}, "oauth": {...}}, ...]}
//
// A connector is always a remote server (type http, sse or ws): "command", "args", "env", "cwd",
// "headersHelper" and "auth" are refused, so a compromised service cannot make this machine run
// anything; ${VAR} is never expanded in what it sends (it could otherwise read the environment
// into a URL of its choosing). Other fields are ignored, for services newer than this mcph.
//
// Fetched at each full config load (Host start, reload_config) with the bounds of remote_fetch.hpp.
// The last good body is cached (remote_fetch.hpp cache_file_for, kind "connectors"). Unreachable /
// timeout / non-2xx: the cached list, marked stale, with the fetch error. A malformed body: a
// config problem, and the cached list (or none).
#pragma once

#include <mcph/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::config {

// The most connectors one document may hold: far beyond a person's connectors, small enough that
// a hostile service cannot make one config load build a million connections.
inline constexpr std::size_t kMaxConnectors = 500;

struct ConnectorEndpoint {
    std::string url;
    std::map<std::string, std::string> headers;
    std::string headers_helper;
    std::chrono::milliseconds timeout{5000};
    std::vector<std::string> proxy_url_parameters;  // as written (the default "mcp_url" is added elsewhere)
    std::string origin;                             // the settings file it came from
};

// The value of "connectors". Throws mcph::Error(Usage) naming `origin` and the field.
ConnectorEndpoint parse_connector_endpoint(const JsonValue& value, const std::string& origin);

// A "proxyUrlParameters" list: non-empty strings of URL query-name characters. Throws Error(Usage).
std::vector<std::string> parse_proxy_url_parameters(const JsonValue& value, const std::string& origin);

// The service's document as {"mcpServers": {...}} text, each connector reduced to the fields above.
// Throws mcph::Error(Usage) naming `origin` and what is wrong: not JSON, not an object, a missing or
// unknown version, no "connectors" array, too many, a connector that is not an object, lacks a
// name or url, has a bad type / headers / oauth, a refused field, or a name used twice.
std::string connectors_to_servers(std::string_view body, const std::string& origin);

// What one sync produced.
struct ConnectorSync {
    std::string origin;        // the endpoint URL (credentials redacted): each connector's origin
    std::string servers_json;  // {"mcpServers": {...}}; empty when there is no list at all
    bool stale = false;        // servers_json is the cached list, because the fetch failed
    std::string fetch_error;   // why the fetch failed (stale, or no cache)
    std::string problem;       // a malformed body or an unusable cache: a config problem
    std::filesystem::path cache_file;
};

// Fetches, validates, caches; never throws. `config_home` empty: no cache (a config home others
// may write is not used, layered_config.hpp).
ConnectorSync sync_connectors(const ConnectorEndpoint& endpoint, const std::filesystem::path& config_home);

}  // namespace mcph::config
