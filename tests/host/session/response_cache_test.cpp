// ResponseCache: the caching rules of 2026-07-28 (ttlMs, cacheScope, key = method + params), the
// evictions notifications trigger and the bounds. The clock is a time_point the test moves by hand.
#include "session/response_cache.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using mcph::Json;
using mcph::JsonValue;
using mcph::parse_json;
using mcph::to_json;
using mcph::session::cache_principal;
using mcph::session::cache_server_identity;
using mcph::session::CacheKey;
using mcph::session::canonical_params;
using mcph::session::make_cache_key;
using mcph::session::methods_invalidated_by;
using mcph::session::ResponseCache;
using mcph::session::ResponseCacheLimits;
using namespace std::chrono_literals;

const ResponseCache::Clock::time_point T0 = ResponseCache::Clock::time_point{} + 1000h;

CacheKey key(const std::string& method, const std::string& params_json = "{}", const std::string& principal = "",
             const std::string& server = "srv") {
    Json params = parse_json(params_json);
    auto k = make_cache_key(server, method, &params, principal);
    EXPECT_TRUE(k.has_value()) << method << " " << params_json;
    return k.value_or(CacheKey{});
}

Json result(const std::string& text) { return parse_json(text); }

std::string tools(const std::string& name, const std::string& hints) {
    return R"({"tools":[{"name":")" + name + R"("}])" + (hints.empty() ? "" : "," + hints) + "}";
}

// The tool name of a cached tools/list, or "" on a miss.
std::string hit(ResponseCache& cache, const CacheKey& k, ResponseCache::Clock::time_point now) {
    auto r = cache.lookup(k, now);
    if (!r) return "";
    return (*r)["tools"][0]["name"].GetString();
}

TEST(ResponseCache, FreshWithinTtlStaleAtAndAfterIt) {
    ResponseCache cache;
    const CacheKey k = key("tools/list");
    cache.store(k, result(tools("a", R"("ttlMs":1000,"cacheScope":"public")")), T0);
    EXPECT_EQ(hit(cache, k, T0), "a");
    EXPECT_EQ(hit(cache, k, T0 + 999ms), "a");
    EXPECT_EQ(hit(cache, k, T0 + 1000ms), "") << "fresh only while now < received + ttlMs";
    EXPECT_EQ(cache.size(), 0u) << "the expired entry is dropped on lookup";
}

TEST(ResponseCache, LookupReturnsTheWholeResult) {
    ResponseCache cache;
    const CacheKey k = key("resources/read", R"({"uri":"file:///a"})");
    const Json r = result(R"({"contents":[{"uri":"file:///a","text":"hi"}],"ttlMs":50,"cacheScope":"private"})");
    cache.store(k, r, T0);
    auto got = cache.lookup(k, T0);
    ASSERT_TRUE(got);
    EXPECT_EQ(to_json(*got), to_json(r));
}

TEST(ResponseCache, DifferentParamsOrMethodOrServerMiss) {
    ResponseCache cache;
    cache.store(key("tools/list", R"({"cursor":"p2"})"), result(tools("page2", R"("ttlMs":60000)")), T0);
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"p2"})"), T0), "page2");
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"p3"})"), T0), "") << "another page";
    EXPECT_EQ(hit(cache, key("tools/list"), T0), "") << "the first page";
    EXPECT_EQ(hit(cache, key("prompts/list", R"({"cursor":"p2"})"), T0), "") << "another method";
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"p2"})", "", "other"), T0), "") << "another server";
}

TEST(ResponseCache, ParamsKeyOrderDoesNotMatterAtAnyLevel) {
    Json nested = parse_json(R"({"b":{"y":1,"x":[{"q":1,"p":2}]},"a":1})");
    EXPECT_EQ(canonical_params(&nested), R"({"a":1,"b":{"x":[{"p":2,"q":1}],"y":1}})");
    ResponseCache cache;
    cache.store(key("resources/read", R"({"uri":"u","a":1,"b":2})"), result(tools("x", R"("ttlMs":100)")), T0);
    EXPECT_EQ(hit(cache, key("resources/read", R"({"b":2,"uri":"u","a":1})"), T0), "x");
    EXPECT_EQ(hit(cache, key("resources/read", R"({"b":3,"uri":"u","a":1})"), T0), "") << "a value differs";
}

TEST(ResponseCache, ArrayOrderStillMatters) {
    Json a = parse_json(R"({"x":[1,2]})");
    Json b = parse_json(R"({"x":[2,1]})");
    EXPECT_NE(canonical_params(&a), canonical_params(&b));
}

TEST(ResponseCache, MetaIsNotPartOfTheKey) {
    ResponseCache cache;
    cache.store(key("tools/list", R"({"_meta":{"progressToken":1,"io.modelcontextprotocol/x":"a"}})"),
                result(tools("t", R"("ttlMs":100)")), T0);
    EXPECT_EQ(hit(cache, key("tools/list", R"({"_meta":{"progressToken":2}})"), T0), "t");
    EXPECT_EQ(hit(cache, key("tools/list"), T0), "t");
    Json null_params;
    auto k = make_cache_key("srv", "tools/list", &null_params, "");
    ASSERT_TRUE(k);
    EXPECT_EQ(hit(cache, *k, T0), "t") << "null params == {}";
    auto none = make_cache_key("srv", "tools/list", nullptr, "");
    ASSERT_TRUE(none);
    EXPECT_EQ(hit(cache, *none, T0), "t") << "absent params == {}";
    // Only the envelope's own _meta: a _meta nested inside an argument is data.
    Json nested_a = parse_json(R"({"x":{"_meta":1}})");
    Json nested_b = parse_json(R"({"x":{"_meta":2}})");
    EXPECT_NE(canonical_params(&nested_a), canonical_params(&nested_b));
}

TEST(ResponseCache, PrivateIsNeverServedToAnotherPrincipal) {
    ResponseCache cache;
    cache.store(key("resources/read", R"({"uri":"mail:inbox"})", "alice"),
                result(tools("alice-mail", R"("ttlMs":60000,"cacheScope":"private")")), T0);
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"mail:inbox"})", "alice"), T0), "alice-mail");
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"mail:inbox"})", "bob"), T0), "");
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"mail:inbox"})", ""), T0), "") << "nor to no principal";
}

TEST(ResponseCache, AbsentScopeIsPrivate) {
    ResponseCache cache;
    cache.store(key("tools/list", "{}", "alice"), result(tools("a", R"("ttlMs":60000)")), T0);
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "alice"), T0), "a");
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "bob"), T0), "");
}

TEST(ResponseCache, PublicIsSharedAcrossPrincipalsButNotServers) {
    ResponseCache cache;
    cache.store(key("tools/list", "{}", "alice", "srv"), result(tools("shared", R"("ttlMs":60000,"cacheScope":"public")")),
                T0);
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "bob", "srv"), T0), "shared");
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "", "srv"), T0), "shared");
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "alice", "srv2"), T0), "");
}

TEST(ResponseCache, UnknownOrMalformedScopeIsNotCached) {
    ResponseCache cache;
    cache.store(key("tools/list"), result(tools("a", R"("ttlMs":60000,"cacheScope":"shared")")), T0);
    cache.store(key("prompts/list"), result(tools("b", R"("ttlMs":60000,"cacheScope":1)")), T0);
    cache.store(key("resources/list"), result(tools("c", R"("ttlMs":60000,"cacheScope":"PUBLIC")")), T0);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(hit(cache, key("tools/list"), T0), "");
}

TEST(ResponseCache, TtlZeroAbsentNegativeOrNotANumberIsNotCached) {
    ResponseCache cache;
    for (const char* hints : {R"("ttlMs":0)", R"("cacheScope":"public")", R"("ttlMs":-5,"cacheScope":"public")",
                              R"("ttlMs":"1000")", R"("ttlMs":null)", R"("ttlMs":0.5)", R"("ttlMs":-1e300)"}) {
        cache.store(key("tools/list"), result(tools("a", hints)), T0);
        EXPECT_EQ(cache.size(), 0u) << hints;
    }
}

TEST(ResponseCache, FractionalTtlIsFloored) {
    ResponseCache cache;
    cache.store(key("tools/list"), result(tools("a", R"("ttlMs":2.9)")), T0);
    EXPECT_EQ(hit(cache, key("tools/list"), T0 + 1ms), "a");
    EXPECT_EQ(hit(cache, key("tools/list"), T0 + 2ms), "");
}

TEST(ResponseCache, HugeTtlIsCapped) {
    ResponseCacheLimits limits;
    limits.max_ttl = 10min;
    for (const char* ttl : {"86400000000", "18446744073709551615", "1e300"}) {
        ResponseCache cache(limits);
        cache.store(key("tools/list"), result(tools("a", std::string(R"("ttlMs":)") + ttl)), T0);
        EXPECT_EQ(hit(cache, key("tools/list"), T0 + 10min - 1ms), "a") << ttl;
        EXPECT_EQ(hit(cache, key("tools/list"), T0 + 10min), "") << ttl;
    }
    ResponseCache defaults;  // the default cap is a day
    defaults.store(key("tools/list"), result(tools("a", R"("ttlMs":1e15)")), T0);
    EXPECT_EQ(hit(defaults, key("tools/list"), T0 + 24h - 1ms), "a");
    EXPECT_EQ(hit(defaults, key("tools/list"), T0 + 24h), "");
}

TEST(ResponseCache, OnlyTheSpecsMethodsAreCacheable) {
    for (const char* m : {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
                          "resources/read"})
        EXPECT_TRUE(make_cache_key("srv", m, nullptr, "")) << m;
    for (const char* m : {"tools/call", "prompts/get", "completion/complete", "initialize", "ping", ""})
        EXPECT_FALSE(make_cache_key("srv", m, nullptr, "")) << m;
}

TEST(ResponseCache, MrtrRetriesAndInterimResultsAreNotCached) {
    Json retry = parse_json(R"({"uri":"u","inputResponses":{"a":{}}})");
    EXPECT_FALSE(make_cache_key("srv", "resources/read", &retry, ""));
    Json state = parse_json(R"({"uri":"u","requestState":"opaque"})");
    EXPECT_FALSE(make_cache_key("srv", "resources/read", &state, ""));

    ResponseCache cache;
    cache.store(key("resources/read", R"({"uri":"u"})"),
                result(R"({"resultType":"input_required","inputRequests":{},"ttlMs":1000})"), T0);
    EXPECT_EQ(cache.size(), 0u);
    cache.store(key("resources/read", R"({"uri":"u"})"), result(R"({"resultType":"complete","contents":[],"ttlMs":1000})"),
                T0);
    EXPECT_EQ(cache.size(), 1u) << "resultType complete is cacheable";
}

TEST(ResponseCache, NonObjectParamsOrResultAreNotCached) {
    Json arr = parse_json("[1,2]");
    EXPECT_FALSE(make_cache_key("srv", "tools/list", &arr, ""));
    ResponseCache cache;
    cache.store(key("tools/list"), result("[1]"), T0);
    cache.store(key("tools/list"), result("42"), T0);
    EXPECT_EQ(cache.size(), 0u);
}

TEST(ResponseCache, DeepParamsAreRefusedNotCrashed) {
    std::string deep = R"({"a":)";
    for (int i = 0; i < 100; ++i) deep += "[";
    for (int i = 0; i < 100; ++i) deep += "]";
    deep += "}";
    Json params = parse_json(deep);
    EXPECT_FALSE(canonical_params(&params));
    EXPECT_FALSE(make_cache_key("srv", "tools/list", &params, ""));
}

TEST(ResponseCache, ANewerAnswerReplacesTheOldOneEvenWhenNotCacheable) {
    ResponseCache cache;
    const CacheKey k = key("tools/list", "{}", "alice");
    cache.store(k, result(tools("old", R"("ttlMs":60000)")), T0);
    cache.store(k, result(tools("new", R"("ttlMs":60000)")), T0 + 1s);
    EXPECT_EQ(hit(cache, k, T0 + 1s), "new");
    EXPECT_EQ(cache.size(), 1u);
    // The scope changed from private to public: the private copy must not shadow it.
    cache.store(k, result(tools("pub", R"("ttlMs":60000,"cacheScope":"public")")), T0 + 2s);
    EXPECT_EQ(hit(cache, k, T0 + 2s), "pub");
    EXPECT_EQ(cache.size(), 1u);
    cache.store(k, result(tools("stale", R"("ttlMs":0)")), T0 + 3s);
    EXPECT_EQ(hit(cache, k, T0 + 3s), "") << "a ttlMs 0 answer drops the earlier entry";
    EXPECT_EQ(cache.size(), 0u);
}

TEST(ResponseCache, EvictMethodDropsAllPagesAndPrincipalsOfThatServerOnly) {
    ResponseCache cache;
    cache.store(key("tools/list", "{}", "alice"), result(tools("p1", R"("ttlMs":60000)")), T0);
    cache.store(key("tools/list", R"({"cursor":"2"})", "bob"), result(tools("p2", R"("ttlMs":60000)")), T0);
    cache.store(key("tools/list", "{}", "", "other"), result(tools("o", R"("ttlMs":60000)")), T0);
    cache.store(key("prompts/list"), result(tools("pr", R"("ttlMs":60000)")), T0);
    cache.evict_method("srv", "tools/list");
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "alice"), T0), "");
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"2"})", "bob"), T0), "");
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "", "other"), T0), "o");
    EXPECT_EQ(hit(cache, key("prompts/list"), T0), "pr");
}

TEST(ResponseCache, ListChangedNotificationsEvictTheirLists) {
    EXPECT_EQ(methods_invalidated_by("notifications/tools/list_changed"), std::vector<std::string>{"tools/list"});
    EXPECT_EQ(methods_invalidated_by("notifications/prompts/list_changed"), std::vector<std::string>{"prompts/list"});
    EXPECT_EQ(methods_invalidated_by("notifications/resources/list_changed"),
              (std::vector<std::string>{"resources/list", "resources/templates/list"}));
    EXPECT_TRUE(methods_invalidated_by("notifications/message").empty());

    ResponseCache cache;
    for (const char* m : {"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
        cache.store(key(m), result(tools(m, R"("ttlMs":60000)")), T0);
    cache.evict_for_notification("srv", "notifications/resources/list_changed", nullptr);
    EXPECT_EQ(hit(cache, key("resources/list"), T0), "");
    EXPECT_EQ(hit(cache, key("resources/templates/list"), T0), "");
    EXPECT_EQ(hit(cache, key("tools/list"), T0), "tools/list");
    cache.evict_for_notification("srv", "notifications/tools/list_changed", nullptr);
    EXPECT_EQ(hit(cache, key("tools/list"), T0), "");
    EXPECT_EQ(hit(cache, key("prompts/list"), T0), "prompts/list");
    cache.evict_for_notification("srv", "notifications/message", nullptr);
    EXPECT_EQ(hit(cache, key("prompts/list"), T0), "prompts/list");
}

TEST(ResponseCache, ResourceUpdatedEvictsThatResourceAndWhatContainsIt) {
    ResponseCache cache;
    auto read = [&](const std::string& uri, const std::string& server = "srv") {
        return key("resources/read", R"({"uri":")" + uri + R"("})", "", server);
    };
    for (const char* uri : {"file:///dir", "file:///dir/a", "file:///dir/ab", "file:///other", "file:///d"})
        cache.store(read(uri), result(tools(uri, R"("ttlMs":60000)")), T0);
    cache.store(read("file:///dir/a", "srv2"), result(tools("srv2", R"("ttlMs":60000)")), T0);
    cache.store(key("resources/list"), result(tools("list", R"("ttlMs":60000)")), T0);

    Json params = parse_json(R"({"uri":"file:///dir/a"})");
    cache.evict_for_notification("srv", "notifications/resources/updated", &params);
    EXPECT_EQ(hit(cache, read("file:///dir/a"), T0), "");
    EXPECT_EQ(hit(cache, read("file:///dir"), T0), "") << "the directory read contains the updated file";
    EXPECT_EQ(hit(cache, read("file:///dir/ab"), T0), "file:///dir/ab");
    EXPECT_EQ(hit(cache, read("file:///d"), T0), "file:///d") << "a string prefix is not a parent";
    EXPECT_EQ(hit(cache, read("file:///other"), T0), "file:///other");
    EXPECT_EQ(hit(cache, read("file:///dir/a", "srv2"), T0), "srv2");
    EXPECT_EQ(hit(cache, key("resources/list"), T0), "list");
}

TEST(ResponseCache, ClearDropsOneServer) {
    ResponseCache cache;
    cache.store(key("tools/list", "{}", "alice", "srv"), result(tools("a", R"("ttlMs":60000)")), T0);
    cache.store(key("tools/list", "{}", "", "srv"), result(tools("b", R"("ttlMs":60000,"cacheScope":"public")")), T0);
    cache.store(key("tools/list", "{}", "", "keep"), result(tools("k", R"("ttlMs":60000)")), T0);
    cache.clear("srv");
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(hit(cache, key("tools/list", "{}", "", "keep"), T0), "k");
}

TEST(ResponseCache, EntryBoundEvictsLeastRecentlyUsed) {
    ResponseCacheLimits limits;
    limits.max_entries = 3;
    ResponseCache cache(limits);
    for (const char* c : {"1", "2", "3"})
        cache.store(key("tools/list", std::string(R"({"cursor":")") + c + R"("})"), result(tools(c, R"("ttlMs":60000)")), T0);
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"1"})"), T0), "1");  // 1 is now the most recent
    cache.store(key("tools/list", R"({"cursor":"4"})"), result(tools("4", R"("ttlMs":60000)")), T0);
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"2"})"), T0), "") << "least recently used";
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"1"})"), T0), "1");
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"3"})"), T0), "3");
    EXPECT_EQ(hit(cache, key("tools/list", R"({"cursor":"4"})"), T0), "4");
}

TEST(ResponseCache, ExpiredEntriesGoBeforeFreshOnesWhenFull) {
    ResponseCacheLimits limits;
    limits.max_entries = 2;
    ResponseCache cache(limits);
    cache.store(key("tools/list"), result(tools("long", R"("ttlMs":60000)")), T0);
    cache.store(key("prompts/list"), result(tools("short", R"("ttlMs":10)")), T0);
    cache.store(key("resources/list"), result(tools("new", R"("ttlMs":60000)")), T0 + 1s);
    EXPECT_EQ(hit(cache, key("tools/list"), T0 + 1s), "long") << "the oldest, but fresh: the stale one went";
    EXPECT_EQ(hit(cache, key("resources/list"), T0 + 1s), "new");
}

TEST(ResponseCache, ByteBoundEvictsAndRefusesOversizedResults) {
    ResponseCacheLimits limits;
    limits.max_bytes = 4096;
    ResponseCache cache(limits);
    const std::string filler(1500, 'x');
    for (const char* c : {"1", "2"})
        cache.store(key("resources/read", std::string(R"({"uri":")") + c + R"("})"),
                    result(tools(c, R"("ttlMs":60000,"pad":")" + filler + "\"")), T0);
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_LE(cache.bytes(), limits.max_bytes);
    EXPECT_GT(cache.bytes(), 3000u) << "the estimate counts the serialised result";
    cache.store(key("resources/read", R"({"uri":"3"})"), result(tools("3", R"("ttlMs":60000,"pad":")" + filler + "\"")), T0);
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_LE(cache.bytes(), limits.max_bytes);
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"1"})"), T0), "") << "least recently used made room";
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"3"})"), T0), "3");

    const std::string huge(5000, 'y');
    cache.store(key("resources/read", R"({"uri":"big"})"), result(tools("big", R"("ttlMs":60000,"pad":")" + huge + "\"")),
                T0);
    EXPECT_EQ(hit(cache, key("resources/read", R"({"uri":"big"})"), T0), "") << "larger than the whole bound";
    EXPECT_EQ(cache.size(), 2u) << "and it evicted nothing on its way out";
}

TEST(ResponseCache, KeyFieldsCannotBeSplicedIntoACollision) {
    // Concatenated without lengths, "ab"+"" and "a"+"b" would be the same slot.
    ResponseCache cache;
    const Json r = result(tools("x", R"("ttlMs":60000)"));
    cache.store(CacheKey{"ab", "", "{}", "p", ""}, r, T0);
    EXPECT_FALSE(cache.lookup(CacheKey{"a", "b", "{}", "p", ""}, T0));
    EXPECT_FALSE(cache.lookup(CacheKey{"ab", "", "{}p", "", ""}, T0));
    EXPECT_TRUE(cache.lookup(CacheKey{"ab", "", "{}", "p", ""}, T0));
}

TEST(ResponseCache, ConcurrentUseStaysWithinBounds) {
    ResponseCacheLimits limits;
    limits.max_entries = 16;
    ResponseCache cache(limits);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 500; ++i) {
                const CacheKey k = key("tools/list", R"({"cursor":")" + std::to_string(i % 40) + R"("})",
                                       "p" + std::to_string(t));
                cache.store(k, result(tools("x", R"("ttlMs":60000)")), T0);
                (void)cache.lookup(k, T0 + std::chrono::milliseconds(i));
                if (i % 97 == 0) cache.evict_method("srv", "tools/list");
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_LE(cache.size(), limits.max_entries);
}

TEST(ResponseCache, ServerIdentityFollowsTheWholeDefinition) {
    EXPECT_EQ(cache_server_identity("s", R"({"url":"https://a"})"), cache_server_identity("s", R"({"url":"https://a"})"));
    EXPECT_NE(cache_server_identity("s", R"({"url":"https://a"})"), cache_server_identity("s", R"({"url":"https://b"})"));
    EXPECT_NE(cache_server_identity("s", "{}"), cache_server_identity("t", "{}"));
}

TEST(ResponseCache, PrincipalIsADigestOfTheCredentials) {
    EXPECT_EQ(cache_principal({}), "") << "no auth: the single context";
    const std::string alice = cache_principal({{"Authorization", "Bearer alice-token"}});
    EXPECT_EQ(alice.size(), 64u);
    EXPECT_EQ(alice.find("alice-token"), std::string::npos) << "no token in the cache";
    EXPECT_EQ(alice, cache_principal({{"authorization", "Bearer alice-token"}})) << "header names are case-insensitive";
    EXPECT_NE(alice, cache_principal({{"Authorization", "Bearer bob-token"}}));
    EXPECT_NE(alice, cache_principal({{"Authorization", "Bearer alice-token"}, {"X-Tenant", "2"}}));
    EXPECT_EQ(cache_principal({{"A", "1"}, {"B", "2"}}), cache_principal({{"b", "2"}, {"a", "1"}}));
    EXPECT_NE(cache_principal({{"A", "1B: 2"}}), cache_principal({{"A", "1"}, {"B", "2"}}));
}

}  // namespace
