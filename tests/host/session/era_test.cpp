// Era negotiation: how a server/discover probe is classified, and the config's protocolVersion.
#include "session/era.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::parse_json;
using namespace mcph::session;

Error remote(int code, const std::string& data = "") { return Error(ErrorKind::Remote, "refused", code, data); }

TEST(EraProbe, ADiscoverResultWithAMutualVersionIsModern) {
    auto result = parse_json(R"({"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}}})");
    ProbeVerdict v = classify_probe_result(result, "s");
    EXPECT_EQ(v.kind, ProbeVerdict::Modern);
    EXPECT_EQ(v.version, "2026-07-28");
    EXPECT_TRUE(v.discover["capabilities"].HasMember("tools"));
}

TEST(EraProbe, AResultThatIsNotADiscoverResultIsLegacy) {
    EXPECT_EQ(classify_probe_result(parse_json("{}"), "s").kind, ProbeVerdict::Legacy);
    EXPECT_EQ(classify_probe_result(parse_json(R"({"supportedVersions":[],"capabilities":{}})"), "s").kind, ProbeVerdict::Legacy);
    EXPECT_EQ(classify_probe_result(parse_json(R"({"supportedVersions":["2026-07-28"]})"), "s").kind, ProbeVerdict::Legacy)
        << "no capabilities: not a DiscoverResult";
    EXPECT_EQ(classify_probe_result(parse_json(R"({"supportedVersions":["2025-11-25"],"capabilities":{}})"), "s").kind,
              ProbeVerdict::Legacy)
        << "no modern version in common: initialize decides";
}

TEST(EraProbe, UnsupportedVersionListingAMutualVersionIsCorrective) {
    for (int code : {kUnsupportedProtocolVersionCode, kUnsupportedProtocolVersionDraftCode}) {
        ProbeVerdict v = classify_probe_error(remote(code, R"({"supported":["2026-07-28"],"requested":"x"})"), false, "s");
        EXPECT_EQ(v.kind, ProbeVerdict::Corrective) << code;
        EXPECT_EQ(v.version, "2026-07-28");
    }
}

TEST(EraProbe, TheFallbackIsNeverKeyedToOneErrorCode) {
    for (int code : {-32601, -32602, -32600, -32000, -32001, -32603, 0, 12345})
        EXPECT_EQ(classify_probe_error(remote(code), true, "s").kind, ProbeVerdict::Legacy) << code;
    // -32022 without a usable supported list is no evidence of a modern server.
    EXPECT_EQ(classify_probe_error(remote(kUnsupportedProtocolVersionCode), true, "s").kind, ProbeVerdict::Legacy);
    EXPECT_EQ(classify_probe_error(remote(kUnsupportedProtocolVersionCode, R"({"supported":"2026-07-28"})"), true, "s").kind,
              ProbeVerdict::Legacy);
    EXPECT_EQ(classify_probe_error(remote(kUnsupportedProtocolVersionCode, R"({"supported":["2025-06-18"]})"), true, "s").kind,
              ProbeVerdict::Legacy)
        << "a legacy-only list: initialize will do";
}

TEST(EraProbe, AModernServerWithNoCommonVersionFailsNamingBothSides) {
    ProbeVerdict v = classify_probe_error(remote(kUnsupportedProtocolVersionCode, R"({"supported":["2099-01-01"]})"), false, "s");
    ASSERT_EQ(v.kind, ProbeVerdict::Failed);
    const std::string what = v.error->what();
    EXPECT_NE(what.find("2099-01-01"), std::string::npos) << what;
    EXPECT_NE(what.find("2026-07-28"), std::string::npos) << what;
}

TEST(EraProbe, SilenceIsLegacyOnStdioButAnOutageOverHttp) {
    const Error timeout(ErrorKind::Timeout, "timed out");
    EXPECT_EQ(classify_probe_error(timeout, true, "s").kind, ProbeVerdict::Legacy);
    EXPECT_EQ(classify_probe_error(timeout, false, "s").kind, ProbeVerdict::Failed);
    EXPECT_EQ(classify_probe_error(Error(ErrorKind::Connection, "refused"), true, "s").kind, ProbeVerdict::Failed);
}

TEST(EraProbe, UnsupportedVersionIsReadOnlyFromRemoteErrors) {
    EXPECT_FALSE(unsupported_version(Error(ErrorKind::Protocol, "x", kUnsupportedProtocolVersionCode, R"({"supported":["a"]})")));
    auto u = unsupported_version(remote(kUnsupportedProtocolVersionCode, R"({"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"})"));
    ASSERT_TRUE(u);
    EXPECT_EQ(u->supported.size(), 2u);
    EXPECT_EQ(u->requested, "1900-01-01");
}

TEST(ProtocolPreference, AutoPinnedModernPinnedLegacyAndUnknown) {
    EXPECT_TRUE(parse_protocol_preference("", false).automatic());
    EXPECT_TRUE(parse_protocol_preference("auto", false).automatic());
    EXPECT_TRUE(parse_protocol_preference("2026-07-28", false).pins_modern());
    auto legacy = parse_protocol_preference("2025-06-18", false);
    EXPECT_FALSE(legacy.automatic());
    EXPECT_FALSE(legacy.pins_modern());
    EXPECT_NO_THROW(parse_protocol_preference("2024-11-05", true));
    EXPECT_THROW(parse_protocol_preference("2024-11-05", false), Error);
    EXPECT_THROW(parse_protocol_preference("2026-07-28", true), Error) << "HTTP+SSE speaks 2024-11-05 only";
    try {
        parse_protocol_preference("1999-01-01", false);
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("2026-07-28"), std::string::npos) << "names what mcph speaks: " << e.what();
    }
}

}  // namespace
