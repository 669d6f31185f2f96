// host/src/schema: 2020-12 evaluation, same-document $ref only, and the bounds (SEP-2106).
#include "schema/compiled_schema.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

namespace {

using mcph::schema::CompiledSchema;
using mcph::schema::SchemaLimits;
using Status = mcph::schema::ValidationResult::Status;

// The time bounds below tell "ended by a bound" from "ran unbounded" (2^40 evaluations, hours).
// ThreadSanitizer checks every memory access and runs the evaluator ~4x slower: the bounds
// scale, and still separate the two by orders of magnitude.
#if defined(__SANITIZE_THREAD__)
constexpr int kSlowdown = 4;
#else
constexpr int kSlowdown = 1;
#endif

std::shared_ptr<const CompiledSchema> compile(const std::string& schema, const SchemaLimits& limits = {}) {
    std::string error;
    auto compiled = CompiledSchema::compile(mcph::parse_json(schema), error, limits);
    EXPECT_TRUE(compiled) << error;
    return compiled;
}

mcph::schema::ValidationResult check(const CompiledSchema& schema, const std::string& instance) {
    return schema.validate(mcph::parse_json(instance));
}

TEST(CompiledSchema, WithoutSchemaKeywordItIs2020_12) {
    auto s = compile(R"({"prefixItems":[{"type":"integer"}],"items":{"type":"string"}})");
    EXPECT_EQ(s->dialect().name, "2020-12");
    EXPECT_TRUE(check(*s, R"([1,"a","b"])").valid());
    auto bad = check(*s, R"([1,2])");
    EXPECT_EQ(bad.status, Status::Invalid);
    EXPECT_EQ(bad.keyword, "type");
    EXPECT_EQ(bad.instance_location, "/1");
}

TEST(CompiledSchema, TheInstanceLocationIsAnEscapedPointerThroughNamesAndIndices) {
    auto s = compile(R"({"properties":{"a/b~c":{"items":{"properties":{"x":{"type":"string"}}}}},
                         "additionalProperties":{"contains":{"const":1},"maxContains":1}})");
    auto bad = check(*s, R"({"a/b~c":[{"x":"ok"},{"x":2}]})");
    EXPECT_EQ(bad.status, Status::Invalid);
    EXPECT_EQ(bad.keyword, "type");
    EXPECT_EQ(bad.instance_location, "/a~1b~0c/1/x");
    auto many = check(*s, R"({"other":[1,2,1]})");
    EXPECT_EQ(many.keyword, "maxContains");
    EXPECT_EQ(many.instance_location, "/other");
    EXPECT_TRUE(check(*s, R"({"a/b~c":[{"x":"ok"}],"other":[0,1]})").valid());
}

TEST(CompiledSchema, Draft07ReadsItemsArrayAsATuple) {
    auto s = compile(R"({"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],
                         "additionalItems":false})");
    EXPECT_EQ(s->dialect().name, "draft-07");
    EXPECT_TRUE(check(*s, "[1]").valid());
    EXPECT_EQ(check(*s, "[1,2]").status, Status::Invalid);
}

TEST(CompiledSchema, AnUnsupportedDialectIsAnErrorNamingIt) {
    std::string error;
    auto s = CompiledSchema::compile(mcph::parse_json(R"({"$schema":"https://example.com/my-dialect"})"), error);
    EXPECT_FALSE(s);
    EXPECT_NE(error.find("unsupported JSON Schema dialect"), std::string::npos) << error;
}

TEST(CompiledSchema, SameDocumentRefsResolveThroughDefsPointersAndAnchors) {
    auto s = compile(R"({"$defs":{"id":{"type":"string","pattern":"^[a-z0-9-]+$"},
                                   "address":{"$anchor":"addr","type":"object","required":["city"]}},
                         "properties":{"id":{"$ref":"#/$defs/id"},"home":{"$ref":"#addr"}},
                         "additionalProperties":false})");
    EXPECT_TRUE(check(*s, R"({"id":"a-1","home":{"city":"Oslo"}})").valid());
    auto bad_id = check(*s, R"({"id":"A 1"})");
    EXPECT_EQ(bad_id.keyword, "pattern");
    EXPECT_EQ(bad_id.instance_location, "/id");
    EXPECT_EQ(check(*s, R"({"home":{}})").keyword, "required");
    EXPECT_EQ(check(*s, R"({"other":1})").keyword, "false");
}

TEST(CompiledSchema, UnevaluatedPropertiesSeesWhatComposedSchemasEvaluated) {
    auto s = compile(R"({"allOf":[{"properties":{"a":true}}],"anyOf":[{"properties":{"b":true}},{"required":["c"]}],
                         "unevaluatedProperties":false})");
    EXPECT_TRUE(check(*s, R"({"a":1,"b":2})").valid());
    EXPECT_EQ(check(*s, R"({"a":1,"z":2})").status, Status::Invalid);
}

// The validator has no network code; this proves it: the $ref names a live loopback listener, and
// after the verdict the listener has no connection waiting.
TEST(CompiledSchema, ANetworkRefIsNeverFetchedAndIsAnError) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/profile.json";

    auto s = compile(R"({"properties":{"id":{"type":"string"},"profile":{"$ref":")" + url + R"("}}})");
    // Not reached: no verdict needed from the remote schema.
    EXPECT_TRUE(check(*s, R"({"id":"x"})").valid());
    auto verdict = check(*s, R"({"id":"x","profile":{}})");
    EXPECT_EQ(verdict.status, Status::Error);
    EXPECT_EQ(verdict.cause, mcph::schema::ValidationResult::Cause::NetworkRef);
    EXPECT_NE(verdict.message.find("network URI"), std::string::npos) << verdict.message;
    EXPECT_NE(verdict.message.find(url), std::string::npos) << verdict.message;
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0);
    EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
    ::close(listener);
}

TEST(CompiledSchema, AnUnresolvedLocalRefIsAnErrorNotAPass) {
    auto s = compile(R"({"properties":{"a":{"$ref":"#/$defs/missing"},"b":{"$ref":"#nowhere"}}})");
    auto a = check(*s, R"({"a":1})");
    EXPECT_EQ(a.status, Status::Error);
    EXPECT_EQ(a.cause, mcph::schema::ValidationResult::Cause::UnresolvedRef);
    EXPECT_NE(a.message.find("names no location"), std::string::npos) << a.message;
    auto b = check(*s, R"({"b":1})");
    EXPECT_EQ(b.status, Status::Error);
    EXPECT_NE(b.message.find("anchor"), std::string::npos) << b.message;
}

TEST(CompiledSchema, ARefCycleEndsAtTheDepthBound) {
    auto s = compile(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})");
    auto verdict = check(*s, "{}");
    EXPECT_EQ(verdict.status, Status::Error);
    EXPECT_EQ(verdict.cause, mcph::schema::ValidationResult::Cause::Bound);
    EXPECT_NE(verdict.message.find("nest deeper than 200"), std::string::npos) << verdict.message;
}

// d(k) = anyOf[d(k-1), d(k-1)]: 2^40 evaluations unbounded; the budget ends it at once.
TEST(CompiledSchema, ExponentialCompositionEndsAtTheBudget) {
    std::string defs = R"("d0":{"type":"object"})";
    for (int k = 1; k <= 40; ++k)
        defs += ",\"d" + std::to_string(k) + "\":{\"anyOf\":[{\"$ref\":\"#/$defs/d" + std::to_string(k - 1) +
                "\"},{\"$ref\":\"#/$defs/d" + std::to_string(k - 1) + "\"}]}";
    const std::string schema = "{\"$defs\":{" + defs + "},\"$ref\":\"#/$defs/d40\"}";
    const auto start = std::chrono::steady_clock::now();
    auto by_refs = check(*compile(schema), "{}");  // default limits: the $ref count ends it first
    EXPECT_EQ(by_refs.status, Status::Error);
    EXPECT_NE(by_refs.message.find("more than 20000 $ref followed"), std::string::npos) << by_refs.message;
    SchemaLimits limits;
    limits.max_refs_followed = 1'000'000'000;
    auto by_budget = check(*compile(schema, limits), "{}");
    EXPECT_EQ(by_budget.status, Status::Error);
    EXPECT_NE(by_budget.message.find("budget of 200000 subschema evaluations"), std::string::npos) << by_budget.message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5 * kSlowdown));
}

TEST(CompiledSchema, TooManySubschemasIsACompileError) {
    std::string properties;
    for (int i = 0; i < 20; ++i) properties += (i ? ",\"p" : "\"p") + std::to_string(i) + "\":{}";
    SchemaLimits limits;
    limits.max_subschemas = 10;
    std::string error;
    EXPECT_FALSE(CompiledSchema::compile(mcph::parse_json("{\"properties\":{" + properties + "}}"), error, limits));
    EXPECT_NE(error.find("more than 10 subschemas"), std::string::npos) << error;
}

TEST(CompiledSchema, ABacktrackingPatternRunsInLinearTime) {
    auto s = compile(R"({"pattern":"^(a+)+$"})");
    const std::string text = "\"" + std::string(20000, 'a') + "!\"";
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(check(*s, text).keyword, "pattern");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5 * kSlowdown));
}

TEST(CompiledSchema, NestedCountedRepetitionIsRefusedNotExpanded) {
    // 256^3 NFA states if expanded: refused at compile (not checked), in no time.
    const auto start = std::chrono::steady_clock::now();
    auto s = compile(R"js({"pattern":"^((a{256}){256}){256}$"})js");
    EXPECT_TRUE(check(*s, R"("b")").valid());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2 * kSlowdown));
    auto uuid = compile(R"({"pattern":"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"})");
    EXPECT_TRUE(check(*uuid, R"("123e4567-e89b-12d3-a456-426614174000")").valid());
    EXPECT_EQ(check(*uuid, R"("123e4567")").keyword, "pattern");
}

TEST(CompiledSchema, PatternSearchesAreChargedToTheBudget) {
    auto s = compile(R"({"items":{"pattern":"^(x{100}|y{100}|z{100})+$"}})");
    const std::string long_text = "\"" + std::string(200000, 'x') + "\"";
    std::string many = "[";
    for (int i = 0; i < 40; ++i) many += (i ? "," : "") + long_text;
    many += "]";
    const auto start = std::chrono::steady_clock::now();
    auto verdict = check(*s, many);
    EXPECT_EQ(verdict.status, Status::Error);
    EXPECT_NE(verdict.message.find("budget"), std::string::npos) << verdict.message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10 * kSlowdown));
}

TEST(CompiledSchema, EcmaEscapesAreTranslatedAndUnreadablePatternsAreNotChecked) {
    auto digits = compile(R"({"pattern":"^\\d{3}-\\w+$"})");
    EXPECT_TRUE(check(*digits, R"("123-ab_c")").valid());
    EXPECT_EQ(check(*digits, R"("12-ab")").status, Status::Invalid);
    auto lookahead = compile(R"js({"pattern":"^(?=x)"})js");
    EXPECT_TRUE(check(*lookahead, R"("y")").valid());  // documented: not checked
}

TEST(CompiledSchema, AnyJsonValueIsAnInstance) {
    auto s = compile(R"({"type":["array","string","null"],"items":{"type":"integer"}})");
    EXPECT_TRUE(check(*s, "[1,2]").valid());
    EXPECT_TRUE(check(*s, R"("text")").valid());
    EXPECT_TRUE(check(*s, "null").valid());
    EXPECT_EQ(check(*s, "1.5").keyword, "type");
    auto boolean = compile("false");
    EXPECT_EQ(check(*boolean, "{}").status, Status::Invalid);
}

}  // namespace
