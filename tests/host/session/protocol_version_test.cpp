#include "session/protocol_version.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::session::is_supported_protocol_version;

TEST(ProtocolVersion, SupportedVersionsAreAccepted) {
    for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26"}) EXPECT_TRUE(is_supported_protocol_version(v)) << v;
}

TEST(ProtocolVersion, OthersAreRefused) {
    for (const char* v : {"2024-11-05", "", "2099-01-01", "2025-11-25 ", " 2025-06-18", "2025-3-26", "latest",
                          "2025-11-2", "2025-11-250"})
        EXPECT_FALSE(is_supported_protocol_version(v)) << "'" << v << "'";
    EXPECT_FALSE(is_supported_protocol_version(std::string("2025-11-25\0x", 12)));
}

TEST(ProtocolVersion, LatestIsOfferedAndSupported) {
    EXPECT_EQ(mcph::session::kLatestProtocolVersion, "2025-11-25");
    EXPECT_TRUE(is_supported_protocol_version(mcph::session::kLatestProtocolVersion));
    EXPECT_EQ(mcph::session::kSupportedProtocolVersions.front(), mcph::session::kLatestProtocolVersion)
        << "newest first";
}

}  // namespace

namespace {

TEST(ProtocolVersionLegacy, Accepts20241105OnlyOverLegacySse) {
    EXPECT_FALSE(mcph::session::is_supported_protocol_version("2024-11-05"));
    EXPECT_FALSE(mcph::session::is_supported_protocol_version("2024-11-05", false));
    EXPECT_TRUE(mcph::session::is_supported_protocol_version("2024-11-05", true));
    EXPECT_TRUE(mcph::session::is_supported_protocol_version("2025-11-25", true));
    EXPECT_FALSE(mcph::session::is_supported_protocol_version("2023-01-01", true));
}

}  // namespace
