// The modern envelope in params._meta.
#include "session/request_meta.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

namespace {

using mcph::Json;
using mcph::parse_json;
using namespace mcph::session;

TEST(RequestMeta, EveryRequiredFieldIsAddedAndTheCallersMetaKept) {
    Json caps = client_capabilities(parse_json(R"({"io.modelcontextprotocol/skills":{}})"));
    Json info = implementation_json({"mcph", "1.2", ""});
    Json params = parse_json(R"({"name":"t","_meta":{"progressToken":7}})");
    RequestMeta meta;
    meta.protocol_version = "2026-07-28";
    meta.capabilities = &caps;
    meta.client_info = &info;
    meta.log_level = "debug";
    meta.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    add_request_meta(params, meta);
    const auto& m = params["_meta"];
    EXPECT_EQ(m["progressToken"].GetInt(), 7);
    EXPECT_EQ(m[kMetaProtocolVersion], "2026-07-28");
    EXPECT_TRUE(m[kMetaClientCapabilities].HasMember("elicitation"));
    EXPECT_TRUE(m[kMetaClientCapabilities]["extensions"].HasMember("io.modelcontextprotocol/skills"));
    EXPECT_EQ(m[kMetaClientInfo]["name"], "mcph");
    EXPECT_EQ(m[kMetaLogLevel], "debug");
    EXPECT_EQ(m["traceparent"], meta.traceparent);
    EXPECT_FALSE(m.HasMember("tracestate")) << "absent when the embedder gave none";
}

// An empty elicitation object means form mode only in 2026-07-28; mcph serves URL mode too.
TEST(RequestMeta, EnvelopeDeclaresBothElicitationModes) {
    Json caps = client_capabilities(Json(rapidjson::kObjectType));
    ASSERT_TRUE(caps["elicitation"].IsObject());
    EXPECT_TRUE(caps["elicitation"].ObjectEmpty()) << "the legacy initialize keeps the bare {}";
    Json params;
    RequestMeta meta;
    meta.protocol_version = "2026-07-28";
    meta.capabilities = &caps;
    add_request_meta(params, meta);
    const auto& elicitation = params["_meta"][kMetaClientCapabilities]["elicitation"];
    ASSERT_TRUE(elicitation.IsObject()) << mcph::to_json(params);
    EXPECT_TRUE(elicitation.HasMember("form")) << mcph::to_json(params);
    EXPECT_TRUE(elicitation.HasMember("url")) << mcph::to_json(params);
}

TEST(RequestMeta, NullParamsBecomeAnObjectAndNoLogLevelMeansNone) {
    Json params;
    RequestMeta meta;
    meta.protocol_version = "2026-07-28";
    add_request_meta(params, meta);
    ASSERT_TRUE(params.IsObject());
    EXPECT_EQ(params["_meta"][kMetaProtocolVersion], "2026-07-28");
    EXPECT_FALSE(params["_meta"].HasMember(kMetaLogLevel)) << "the server must then send no notifications/message";
}

TEST(RequestMeta, CapabilitiesOmitAnEmptyExtensionsMap) {
    Json caps = client_capabilities(parse_json("{}"));
    EXPECT_FALSE(caps.HasMember("extensions"));
    EXPECT_TRUE(caps.HasMember("roots"));
    EXPECT_TRUE(caps.HasMember("sampling"));
}

}  // namespace
