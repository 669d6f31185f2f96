// with_connect_timeout: the host's --connect-timeout reaches a remote plugin as connectTimeoutMs.
#include "session/connect_budget.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using mcph::session::with_connect_timeout;

std::int64_t connect_ms(const std::string& json) { return mcph::parse_json(json)["connectTimeoutMs"].GetInt64(); }

TEST(ConnectBudget, TheHostTimeoutIsHandedToThePlugin) {
    const std::string out = with_connect_timeout(R"({"type":"http","url":"https://x.example/mcp"})", 3s);
    EXPECT_EQ(connect_ms(out), 3000);
    EXPECT_EQ(mcph::parse_json(out)["url"], "https://x.example/mcp") << "the rest is kept";
}

TEST(ConnectBudget, ASmallerServerSettingIsKeptALargerOneIsCut) {
    EXPECT_EQ(connect_ms(with_connect_timeout(R"({"connectTimeoutMs":500})", 3s)), 500);
    EXPECT_EQ(connect_ms(with_connect_timeout(R"({"connectTimeoutMs":600000})", 3s)), 3000);
}

TEST(ConnectBudget, StaysInsideWhatThePluginsAccept) {
    EXPECT_EQ(connect_ms(with_connect_timeout("{}", std::chrono::hours(2))), 600000);
    EXPECT_EQ(connect_ms(with_connect_timeout("{}", 0ms)), 1);
}

TEST(ConnectBudget, NotAnObjectIsAUsageError) {
    EXPECT_THROW(with_connect_timeout("[]", 1s), mcph::Error);
    EXPECT_THROW(with_connect_timeout(std::string(100000, '['), 1s), mcph::Error);
}

}  // namespace
