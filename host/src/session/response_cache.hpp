// ResponseCache — the client side of the 2026-07-28 caching utility (server/utilities/caching):
// results of server/discover, the four list methods and resources/read carry `ttlMs` and
// `cacheScope`, and a fresh one may be served again without a round trip.
//
// What the cache promises (the rules a caller relies on):
// - A hit needs the same server identity, the same method and the same parameters (canonical
//   JSON: object keys sorted, params._meta left out — it is the request envelope, not what the
//   result depends on). A different cursor is a different page, a different uri another resource.
// - `"private"` (and an absent cacheScope, the safe reading) is served only to the auth principal
//   that stored it; `"public"` to every principal of the same server identity; nothing crosses
//   servers. An unknown cacheScope is not cached.
// - Fresh while now < received + ttlMs. ttlMs absent, 0, negative or not a number: not cached;
//   a huge ttlMs is capped (ResponseCacheLimits::max_ttl). Expiry is checked on lookup — no timer.
// - MRTR retries (params carrying inputResponses or requestState) and interim results
//   (resultType other than "complete") are never cached: they depend on inputs outside the key.
// - Bounded in entries and in bytes (serialised size of result and key); least recently used
//   goes first, and a single result bigger than the byte bound is not cached at all.
// All members are thread-safe; the clock is the caller's (`now`), so tests never sleep.
#pragma once

#include <mcph/json.hpp>

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcph::session {

struct ResponseCacheLimits {
    std::size_t max_entries = 1024;
    std::size_t max_bytes = 16u * 1024u * 1024u;
    std::chrono::milliseconds max_ttl = std::chrono::hours(24);
};

// What identifies one cacheable request. Build it with make_cache_key().
struct CacheKey {
    std::string server;        // the server's identity (never shared between two servers)
    std::string method;
    std::string params;        // canonical params JSON without _meta
    std::string principal;     // the auth context; empty when the server has no auth
    std::string resource_uri;  // resources/read: params.uri, so resources/updated can evict it
};

// The canonical form of request params: keys sorted at every level, the top-level _meta left
// out; null params and an empty object are the same ("{}"). nullopt when params is neither an
// object nor null, or nests deeper than 64 levels (not worth caching; never a crash).
std::optional<std::string> canonical_params(const JsonValue* params);

// The key of a request, or nullopt when the request is not cacheable: a method outside the six
// the spec names (tools/call and the rest have side effects or no hints), an MRTR retry
// (params.inputResponses / params.requestState), or params canonical_params() refuses.
std::optional<CacheKey> make_cache_key(std::string_view server, std::string_view method, const JsonValue* params,
                                       std::string_view principal);

// The server identity of a cache key: the configured name plus a digest of the whole config entry
// (URL, headers, command, auth config...), so a server redefined under the same name — another
// URL, another static Authorization header — never meets the old definition's entries.
std::string cache_server_identity(std::string_view server_name, std::string_view config_json);

// The auth principal of a cache key: a digest of the credentials a request carries (the auth
// backend's headers, names lower-cased, sorted), "" when there are none. The spec's line is "a
// different access token requires a different cache"; a token is what the host knows, not a user
// id (the auth ABI exposes none). A digest, so the cache holds no token; a refreshed token is a
// new principal, which only costs a re-fetch.
std::string cache_principal(const std::vector<std::pair<std::string, std::string>>& auth_headers);

// The methods whose cached results a notification makes stale (list_changed → that list, the
// resource one → resources/list and resources/templates/list); empty for any other notification.
// notifications/resources/updated is by uri: see ResponseCache::evict_resource.
std::vector<std::string> methods_invalidated_by(std::string_view notification_method);

class ResponseCache {
public:
    using Clock = std::chrono::steady_clock;

    explicit ResponseCache(ResponseCacheLimits limits = {});

    // The cached result for `key` if still fresh at `now` (a deep copy), else nullopt — and an
    // expired entry is dropped. Tries the principal's private entry, then the server's public one.
    std::optional<Json> lookup(const CacheKey& key, Clock::time_point now);
    // Caches `result` (received at `now`) as its own ttlMs / cacheScope / resultType allow. Any
    // entry stored for this key before is dropped first, cacheable or not: the newer answer wins.
    void store(const CacheKey& key, const JsonValue& result, Clock::time_point now);

    // Drops every entry of `method` from `server` (all params, all principals).
    void evict_method(std::string_view server, std::string_view method);
    // Drops `server`'s resources/read entries for `uri`, and for any resource `uri` lies under
    // (the updated uri may be a sub-resource of the one read: over-evicting only costs a fetch).
    void evict_resource(std::string_view server, std::string_view uri);
    // Applies a server notification: list_changed evicts its list(s), resources/updated the
    // resource named by params.uri. Other notifications change nothing.
    void evict_for_notification(std::string_view server, std::string_view notification_method,
                                const JsonValue* params);
    // Drops everything of `server` (disconnect, auth change, session ended).
    void clear(std::string_view server);

    std::size_t size() const;
    std::size_t bytes() const;

private:
    struct Entry {
        std::string slot;  // the map key
        std::string server;
        std::string method;
        std::string resource_uri;
        Json result;
        Clock::time_point expires;
        std::size_t bytes = 0;
    };
    using Lru = std::list<Entry>;  // front = most recently used

    void erase_locked(Lru::iterator it);
    template <class Pred>
    void erase_if_locked(Pred pred);
    void make_room_locked(std::size_t incoming, Clock::time_point now);

    const ResponseCacheLimits limits_;
    mutable std::mutex mutex_;
    Lru lru_;
    std::unordered_map<std::string, Lru::iterator> index_;
    std::size_t bytes_ = 0;
};

}  // namespace mcph::session
