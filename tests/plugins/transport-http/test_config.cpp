// Config validation: every bad field is refused with MCPH_ERR_INVALID_ARGUMENT naming it.
#include "config.hpp"

#include <gtest/gtest.h>
#include <mcph/plugin_helper.hpp>

namespace {

using mcph::http::parse_config;

std::string refused(const std::string& json) {
    try {
        parse_config(json);
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT) << json;
        return e.what();
    }
    ADD_FAILURE() << "accepted: " << json;
    return {};
}

TEST(HttpConfig, Defaults) {
    auto c = parse_config(R"({"type":"http","name":"s","url":"https://example.com/mcp"})");
    EXPECT_EQ(c.url, "https://example.com/mcp");
    EXPECT_EQ(c.name, "s");
    EXPECT_EQ(c.timeout.count(), 60000);
    EXPECT_EQ(c.connect_timeout.count(), 10000);
    EXPECT_EQ(c.max_message_bytes, size_t{128} << 20);
    EXPECT_TRUE(c.ca_file.empty());
    EXPECT_TRUE(c.headers.empty());
    EXPECT_EQ(c.loop_idle.count(), 2000);
}

TEST(HttpConfig, AllFields) {
    auto c = parse_config(R"({"url":"http://127.0.0.1:8080/mcp?x=1","headers":{"X-Api-Key":"k","Authorization":"Bearer t"},
        "timeoutMs":1500,"connectTimeoutMs":700,"maxMessageBytes":4096,"caFile":"/dev/null","loopIdleMs":0})");
    EXPECT_EQ(c.timeout.count(), 1500);
    EXPECT_EQ(c.loop_idle.count(), 0);
    EXPECT_EQ(c.connect_timeout.count(), 700);
    EXPECT_EQ(c.max_message_bytes, 4096u);
    EXPECT_EQ(c.ca_file, "/dev/null");
    ASSERT_EQ(c.headers.size(), 2u);
    EXPECT_EQ(c.headers[0].first, "X-Api-Key");
}

TEST(HttpConfig, BadFieldsAreNamed) {
    EXPECT_NE(refused("[]").find("object"), std::string::npos);
    EXPECT_NE(refused("{").find("JSON"), std::string::npos);
    EXPECT_NE(refused(R"({})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":5})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"ftp://example.com/"})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"not a url"})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://"})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/\r\nx"})").find("'url'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"stdio","url":"http://h/"})").find("'type'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","headers":[]})").find("'headers'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","headers":{"X":1}})").find("headers.X"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","headers":{"Bad Name":"v"}})").find("'headers'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","headers":{"X":"a\r\nEvil: 1"}})").find("headers.X"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","headers":{"mcp-session-id":"s"}})").find("managed"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","timeoutMs":0})").find("'timeoutMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","timeoutMs":"5"})").find("'timeoutMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","connectTimeoutMs":-1})").find("'connectTimeoutMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","maxMessageBytes":0})").find("'maxMessageBytes'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","loopIdleMs":-1})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","loopIdleMs":"soon"})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","loopIdleMs":86400001})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","caFile":"/no/such/file.pem"})").find("'caFile'"), std::string::npos);
}

// The reader's own rules (plugin_helper.hpp ConfigReader) hold for this plugin's config too.
TEST(HttpConfig, ReaderRulesApply) {
    EXPECT_EQ(refused(R"({"url":"http://a/","url":"http://b/"})"), "http config: 'url' appears more than once");
    EXPECT_EQ(refused(R"({"url":"http://h/","headers":{"X":"a\u0000b"}})"), "http config: 'headers.X' contains a NUL byte");
    EXPECT_EQ(refused(R"({"url":"http://h/","timeoutMs":86400001})"),
              "http config: 'timeoutMs' must be an integer between 1 and 86400000");
    EXPECT_NE(refused(std::string(R"({"url":"http://h/","x":")") + std::string(size_t{16} << 20, 'a') + "\"}")
                  .find("http config is 16777242 bytes, more than the 16777216 allowed"),
              std::string::npos);
    EXPECT_NE(refused(R"({"url":"http://h/","x":)" + std::string(200, '[')).find("nested deeper than 128"),
              std::string::npos);
}

}  // namespace
