// headersHelper: a real /bin/sh command per case — success, failure, hang, garbage.
#include "config/headers_helper.hpp"

#include "test_scratch.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace {

using namespace std::chrono_literals;
using mcph::config::apply_headers_helper;
using mcph::config::HeadersHelperRequest;
using mcph::config::run_headers_helper;

HeadersHelperRequest request(const std::string& command, std::chrono::milliseconds timeout = 10s) {
    return HeadersHelperRequest{command, "srv", "https://example.test/mcp", timeout};
}

TEST(HeadersHelper, ParsesTheObjectItPrints) {
    auto headers = run_headers_helper(request(R"(printf '{"Authorization":"Bearer t1","X-Trace":"on"}')"));
    EXPECT_EQ(headers.at("Authorization"), "Bearer t1");
    EXPECT_EQ(headers.at("X-Trace"), "on");
}

TEST(HeadersHelper, SeesTheServerNameAndUrl) {
    auto headers = run_headers_helper(request(R"(printf '{"n":"%s","u":"%s"}' "$MCPH_SERVER_NAME" "$MCPH_SERVER_URL")"));
    EXPECT_EQ(headers.at("n"), "srv");
    EXPECT_EQ(headers.at("u"), "https://example.test/mcp");
}

// Boost 1.74's environment lookup read past entries shorter than the name it looked for; under
// ASan that is a heap-buffer-overflow as soon as the environment's last entry is short. setenv
// appends a new name at the end of environ.
TEST(HeadersHelper, RunsWhenTheEnvironmentEndsWithAShortVariable) {
    ASSERT_EQ(std::getenv("MCPH_T"), nullptr);  // a new name: setenv appends it last
    mcph::test::ScopedEnv short_last("MCPH_T", "1");
    auto headers = run_headers_helper(request(R"(printf '{"n":"%s","t":"%s"}' "$MCPH_SERVER_NAME" "$MCPH_T")"));
    EXPECT_EQ(headers.at("n"), "srv");
    EXPECT_EQ(headers.at("t"), "1");
}

TEST(HeadersHelper, FailingCommandIsAConnectionErrorWithoutItsOutput) {
    try {
        run_headers_helper(request("echo secret-token-123; exit 7"));
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Connection);
        EXPECT_NE(std::string(e.what()).find("exited with status 7"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'srv'"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("secret-token-123"), std::string::npos) << "output must never leak";
    }
}

TEST(HeadersHelper, HangingCommandIsKilledAtTheTimeout) {
    auto started = std::chrono::steady_clock::now();
    try {
        run_headers_helper(request("sleep 30", 300ms));
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("timed out after 300 ms"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(HeadersHelper, NonJsonOutputIsRefused) {
    for (const char* command : {"echo not json", "echo '[1,2]'", R"(printf '{"a":1}')", "true"}) {
        try {
            run_headers_helper(request(command));
            ADD_FAILURE() << "expected an error for: " << command;
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Connection) << command;
        }
    }
}

TEST(HeadersHelper, OverridesStaticHeadersInTheConfig) {
    std::string config = R"({"type":"http","url":"https://x.test/mcp","headers":{"Authorization":"old","Keep":"k"},)"
                         R"("headersHelper":"printf '{\"Authorization\":\"new\"}'"})";
    mcph::Json out = mcph::parse_json(apply_headers_helper("srv", config));
    EXPECT_STREQ(out["headers"]["Authorization"].GetString(), "new");
    EXPECT_STREQ(out["headers"]["Keep"].GetString(), "k");
}

TEST(HeadersHelper, ConfigWithoutHelperIsUnchanged) {
    std::string config = R"({"type":"http","url":"https://x.test/mcp"})";
    EXPECT_EQ(apply_headers_helper("srv", config), config);
}

TEST(HeadersHelper, EmptyHelperIsAUsageError) {
    try {
        apply_headers_helper("srv", R"({"url":"https://x.test","headersHelper":""})");
        FAIL();
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
    }
}

}  // namespace
