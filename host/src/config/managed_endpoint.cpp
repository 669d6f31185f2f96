#include "config/managed_endpoint.hpp"

#include "config/file_trust.hpp"
#include "config/remote_fetch.hpp"
#include "json/json_access.hpp"
#include "url/redact.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>

#include <map>
#include <mutex>

namespace mcph::config {
namespace {

constexpr std::size_t kMaxBodyBytes = std::size_t{4} << 20;

[[noreturn]] void bad(const std::string& origin, const std::string& what) { throw Error(ErrorKind::Usage, origin + ": " + what); }

// A JSON object, or why not.
std::string object_problem(std::string_view body) {
    Json doc;
    if (auto parsed = json_bounds::parse(doc, body); !parsed) return "the answer is not JSON (" + parsed.message() + ")";
    if (!doc.IsObject()) return "the answer must be a JSON object of managed settings";
    return {};
}

constexpr const char* kNoServer = " (no MCP server may connect until the managed settings endpoint answers)";

}  // namespace

ManagedEndpointConfig parse_managed_endpoint_config(std::string_view text, const std::string& origin) {
    Json doc;
    if (auto parsed = json_bounds::parse(doc, text); !parsed) bad(origin, "not JSON (" + parsed.message() + ")");
    if (!doc.IsObject()) bad(origin, "the file must hold a JSON object ({\"url\": ...})");
    ManagedEndpointConfig out;
    bool has_url = false;
    for (const auto& m : doc.GetObject()) {
        const std::string_view key = json::view(m.name);
        if (key == "url") {
            out.url = parse_endpoint_url(m.value, origin, "url");
            has_url = true;
        } else if (key == "timeoutMs") {
            out.timeout = parse_timeout_ms(m.value, origin, "timeoutMs");
        } else if (key == "headers") {
            out.headers = parse_header_map(m.value, origin, "headers");
        } else if (key == "useCachedOnFailure") {
            if (!m.value.IsBool()) bad(origin, "useCachedOnFailure must be true or false");
            out.use_cached_on_failure = m.value.GetBool();
        } else {
            bad(origin, "unknown field \"" + std::string(key) + "\" (url, timeoutMs, headers, useCachedOnFailure)");
        }
    }
    if (!has_url) bad(origin, "url is required");
    return out;
}

ManagedEndpointResult fetch_managed_endpoint(const std::filesystem::path& endpoint_file, const std::filesystem::path& config_home) {
    ManagedEndpointResult out;
    ManagedEndpointConfig config;
    try {
        std::optional<std::string> text = read_trusted_file(endpoint_file, TrustRule{Owner::CurrentUserOrRoot, true});
        if (!text) return out;
        out.configured = true;
        config = parse_managed_endpoint_config(*text, endpoint_file.string());
    } catch (const Error& e) {
        out.configured = true;
        out.error = std::string(e.what()) + kNoServer;
        return out;
    }
    out.url = url::redact_url(config.url);
    const std::filesystem::path cache = config_home.empty() ? std::filesystem::path()
                                                            : cache_file_for(config_home, "managed-settings", config.url);
    try {
        std::string body = fetch_document({config.url, config.headers, config.timeout, kMaxBodyBytes, "the managed settings endpoint"});
        if (std::string why = object_problem(body); !why.empty())
            throw Error(ErrorKind::Protocol, "the managed settings endpoint (" + out.url + "): " + why);
        if (!cache.empty()) {
            try {
                write_cache(cache, body);
            } catch (const Error&) {
                // Only the fallback is lost; the policy itself was fetched and is enforced.
            }
        }
        out.settings_json = std::move(body);
        return out;
    } catch (const Error& e) {
        out.fetch_error = e.what();
    }
    if (config.use_cached_on_failure && !cache.empty()) {
        try {
            std::optional<std::string> cached = read_cache(cache);
            if (cached && object_problem(*cached).empty()) {
                out.settings_json = std::move(*cached);
                out.from_cache = true;
                return out;
            }
        } catch (const Error& e) {
            out.fetch_error += std::string("; the cached copy cannot be used: ") + e.what();
        }
    }
    out.error = out.fetch_error + kNoServer;
    return out;
}

ManagedEndpointResult managed_endpoint_settings(const ConfigLocations& locations) {
    // One fetch per process and endpoint file: the seed's "loaded once at process start, not per
    // session". The lock is held across the fetch so that concurrent first loads share it.
    static std::mutex mutex;
    static std::map<std::string, ManagedEndpointResult> fetched;
    std::lock_guard lock(mutex);
    const std::string key = locations.managed_endpoint_file().string();
    if (auto it = fetched.find(key); it != fetched.end()) return it->second;
    std::filesystem::path home = locations.config_home;  // a config home others may write keeps no copy
    if (distrust_reason(home, TrustRule{Owner::CurrentUser, false})) home.clear();
    return fetched.emplace(key, fetch_managed_endpoint(locations.managed_endpoint_file(), home)).first->second;
}

}  // namespace mcph::config
