#include "session/response_cache.hpp"

#include "tools/sha256.hpp"

#include <mcph/error.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace mcph::session {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Deeper params than this are not cached: no request the host builds comes near it, and the
// canonical writer recurses per level.
constexpr int kMaxParamsDepth = 64;

std::string_view name_of(const JsonValue& v) { return {v.GetString(), v.GetStringLength()}; }

// Written here rather than reusing governance::canonical_json: that one is for config files (no
// depth bound, no _meta rule) and would need a copy of the params without _meta; this one sorts
// pointers per object in place, and its depth check doubles as the recursion bound. Duplicate
// keys keep their order (two orders of duplicates are two keys: a miss, never a wrong hit).
bool write_canonical(const JsonValue& v, Writer& w, int depth, bool drop_meta) {
    if (depth > kMaxParamsDepth) return false;
    if (v.IsObject()) {
        std::vector<const JsonValue::Member*> members;
        members.reserve(v.MemberCount());
        for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
            if (drop_meta && name_of(it->name) == "_meta") continue;
            members.push_back(&*it);
        }
        std::stable_sort(members.begin(), members.end(),
                         [](const auto* a, const auto* b) { return name_of(a->name) < name_of(b->name); });
        w.StartObject();
        for (const auto* m : members) {
            w.Key(m->name.GetString(), m->name.GetStringLength());
            if (!write_canonical(m->value, w, depth + 1, false)) return false;
        }
        return w.EndObject();
    }
    if (v.IsArray()) {
        w.StartArray();
        for (const auto& item : v.GetArray())
            if (!write_canonical(item, w, depth + 1, false)) return false;
        return w.EndArray();
    }
    return v.Accept(w);  // json-bounds-ok: a scalar, no recursion
}

bool is_cacheable_method(std::string_view method) {
    return method == "server/discover" || method == "tools/list" || method == "prompts/list" ||
           method == "resources/list" || method == "resources/templates/list" || method == "resources/read";
}

enum class Scope { Public, Private };

// The fields of the length-prefixed slot key: no choice of strings makes two keys collide.
void append_field(std::string& out, std::string_view field) {
    out += std::to_string(field.size());
    out += ':';
    out += field;
}

std::string slot_of(const CacheKey& key, Scope scope) {
    std::string slot(scope == Scope::Public ? "U" : "P");
    append_field(slot, key.server);
    append_field(slot, key.method);
    append_field(slot, key.params);
    if (scope == Scope::Private) append_field(slot, key.principal);
    return slot;
}

// How long the result may be served, from its ttlMs; nullopt: not at all (absent, not a number,
// zero or negative — the spec's "treat as 0"). A huge value is capped.
std::optional<std::chrono::milliseconds> ttl_of(const JsonValue& result, std::chrono::milliseconds cap) {
    auto it = result.FindMember("ttlMs");
    if (it == result.MemberEnd() || !it->value.IsNumber()) return std::nullopt;
    const JsonValue& t = it->value;
    if (t.IsInt64()) {
        const std::int64_t ms = t.GetInt64();
        if (ms <= 0) return std::nullopt;
        return std::min(std::chrono::milliseconds(ms), cap);
    }
    if (t.IsUint64()) return cap;  // past int64: certainly past the cap
    const double ms = std::floor(t.GetDouble());
    if (!std::isfinite(ms) || ms <= 0) return std::nullopt;
    if (ms >= static_cast<double>(cap.count())) return cap;
    return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

// nullopt: a cacheScope the spec does not define (not cached: we cannot know who may see it).
std::optional<Scope> scope_of(const JsonValue& result) {
    auto it = result.FindMember("cacheScope");
    if (it == result.MemberEnd()) return Scope::Private;  // absent: the reading that never leaks
    if (!it->value.IsString()) return std::nullopt;
    const std::string_view s = name_of(it->value);
    if (s == "private") return Scope::Private;
    if (s == "public") return Scope::Public;
    return std::nullopt;
}

// Interim MRTR results (resultType "input_required") carry no hints and are never cached.
bool is_complete(const JsonValue& result) {
    auto it = result.FindMember("resultType");
    if (it == result.MemberEnd()) return true;
    return it->value.IsString() && name_of(it->value) == "complete";
}

// resources/updated may name a sub-resource of the one read.
bool uri_within(std::string_view cached, std::string_view updated) {
    if (cached.empty()) return false;
    if (updated == cached) return true;
    if (updated.size() <= cached.size() || updated.substr(0, cached.size()) != cached) return false;
    return cached.back() == '/' || updated[cached.size()] == '/';
}

}  // namespace

std::optional<std::string> canonical_params(const JsonValue* params) {
    if (!params || params->IsNull()) return std::string("{}");
    if (!params->IsObject()) return std::nullopt;
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    if (!write_canonical(*params, writer, 0, true)) return std::nullopt;
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::optional<CacheKey> make_cache_key(std::string_view server, std::string_view method, const JsonValue* params,
                                       std::string_view principal) {
    if (!is_cacheable_method(method)) return std::nullopt;
    if (params && params->IsObject() && (params->HasMember("inputResponses") || params->HasMember("requestState")))
        return std::nullopt;
    auto canonical = canonical_params(params);
    if (!canonical) return std::nullopt;
    CacheKey key{std::string(server), std::string(method), std::move(*canonical), std::string(principal), {}};
    if (method == "resources/read" && params && params->IsObject()) {
        auto uri = params->FindMember("uri");
        if (uri != params->MemberEnd() && uri->value.IsString()) key.resource_uri = std::string(name_of(uri->value));
    }
    return key;
}

std::string cache_server_identity(std::string_view server_name, std::string_view config_json) {
    std::string identity;
    append_field(identity, server_name);
    identity += tools::sha256_hex(config_json);
    return identity;
}

std::string cache_principal(const std::vector<std::pair<std::string, std::string>>& auth_headers) {
    if (auth_headers.empty()) return {};
    std::vector<std::pair<std::string, std::string>> sorted;
    sorted.reserve(auth_headers.size());
    for (const auto& [name, value] : auth_headers) {
        std::string lower(name);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        sorted.emplace_back(std::move(lower), value);
    }
    std::sort(sorted.begin(), sorted.end());
    std::string material;
    for (const auto& [name, value] : sorted) {
        append_field(material, name);
        append_field(material, value);
    }
    return tools::sha256_hex(material);
}

std::vector<std::string> methods_invalidated_by(std::string_view notification_method) {
    if (notification_method == "notifications/tools/list_changed") return {"tools/list"};
    if (notification_method == "notifications/prompts/list_changed") return {"prompts/list"};
    if (notification_method == "notifications/resources/list_changed") return {"resources/list", "resources/templates/list"};
    return {};
}

ResponseCache::ResponseCache(ResponseCacheLimits limits) : limits_(limits) {}

std::optional<Json> ResponseCache::lookup(const CacheKey& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    for (Scope scope : {Scope::Private, Scope::Public}) {
        auto found = index_.find(slot_of(key, scope));
        if (found == index_.end()) continue;
        Lru::iterator it = found->second;
        if (!(now < it->expires)) {
            erase_locked(it);
            continue;
        }
        lru_.splice(lru_.begin(), lru_, it);
        return clone_json(it->result);
    }
    return std::nullopt;
}

void ResponseCache::store(const CacheKey& key, const JsonValue& result, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    for (Scope scope : {Scope::Private, Scope::Public}) {
        auto found = index_.find(slot_of(key, scope));
        if (found != index_.end()) erase_locked(found->second);
    }
    if (!result.IsObject() || !is_complete(result)) return;
    const auto ttl = ttl_of(result, limits_.max_ttl);
    const auto scope = scope_of(result);
    if (!ttl || !scope) return;

    Entry entry;
    entry.slot = slot_of(key, *scope);
    try {
        entry.bytes = to_json(result).size();
    } catch (const Error&) {
        return;  // too deep to serialise: too deep to keep
    }
    entry.bytes += entry.slot.size() + key.server.size() + key.method.size() + key.resource_uri.size();
    if (entry.bytes > limits_.max_bytes || limits_.max_entries == 0) return;

    make_room_locked(entry.bytes, now);
    entry.server = key.server;
    entry.method = key.method;
    entry.resource_uri = key.resource_uri;
    entry.result = clone_json(result);
    entry.expires = now + *ttl;
    bytes_ += entry.bytes;
    lru_.push_front(std::move(entry));
    index_.emplace(lru_.front().slot, lru_.begin());
}

void ResponseCache::evict_method(std::string_view server, std::string_view method) {
    std::lock_guard lock(mutex_);
    erase_if_locked([&](const Entry& e) { return e.server == server && e.method == method; });
}

void ResponseCache::evict_resource(std::string_view server, std::string_view uri) {
    std::lock_guard lock(mutex_);
    erase_if_locked([&](const Entry& e) {
        return e.server == server && e.method == "resources/read" && uri_within(e.resource_uri, uri);
    });
}

void ResponseCache::evict_for_notification(std::string_view server, std::string_view notification_method,
                                           const JsonValue* params) {
    for (const std::string& method : methods_invalidated_by(notification_method)) evict_method(server, method);
    if (notification_method != "notifications/resources/updated") return;
    if (!params || !params->IsObject()) return;
    auto uri = params->FindMember("uri");
    if (uri != params->MemberEnd() && uri->value.IsString()) evict_resource(server, name_of(uri->value));
}

void ResponseCache::clear(std::string_view server) {
    std::lock_guard lock(mutex_);
    erase_if_locked([&](const Entry& e) { return e.server == server; });
}

std::size_t ResponseCache::size() const {
    std::lock_guard lock(mutex_);
    return lru_.size();
}

std::size_t ResponseCache::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

void ResponseCache::erase_locked(Lru::iterator it) {
    bytes_ -= it->bytes;
    index_.erase(it->slot);
    lru_.erase(it);
}

template <class Pred>
void ResponseCache::erase_if_locked(Pred pred) {
    for (auto it = lru_.begin(); it != lru_.end();) {
        auto next = std::next(it);
        if (pred(*it)) erase_locked(it);
        it = next;
    }
}

void ResponseCache::make_room_locked(std::size_t incoming, Clock::time_point now) {
    auto over = [&] { return lru_.size() + 1 > limits_.max_entries || bytes_ + incoming > limits_.max_bytes; };
    if (!over()) return;
    erase_if_locked([&](const Entry& e) { return !(now < e.expires); });  // stale ones go before fresh ones
    while (over() && !lru_.empty()) erase_locked(std::prev(lru_.end()));
}

}  // namespace mcph::session
