// Unit tests of the Streamable HTTP request metadata headers (plugins/http-common/src/mcp_headers):
// the spec's Value Encoding examples (2026-07-28 "Request Metadata") and its edge cases.
#include "mcp_headers.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace mcph::http {
namespace {

// The examples table of the spec, verbatim.
TEST(McpHeaderValue, SpecExamples) {
    EXPECT_EQ(encode_header_value("us-west1"), "us-west1");
    EXPECT_EQ(encode_header_value("Hello, \xE4\xB8\x96\xE7\x95\x8C"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    EXPECT_EQ(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
    EXPECT_EQ(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    EXPECT_EQ(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

TEST(McpHeaderValue, InnerSpaceAndTabArePlain) {
    EXPECT_EQ(encode_header_value("a b"), "a b");
    EXPECT_EQ(encode_header_value("a\tb"), "a\tb");
    EXPECT_EQ(encode_header_value("file:///projects/my app/config.json"), "file:///projects/my app/config.json");
}

TEST(McpHeaderValue, LeadingOrTrailingWhitespaceIsEncoded) {
    EXPECT_EQ(encode_header_value(" a"), "=?base64?IGE=?=");
    EXPECT_EQ(encode_header_value("a "), "=?base64?YSA=?=");
    EXPECT_EQ(encode_header_value("\ta"), "=?base64?CWE=?=");
    EXPECT_EQ(encode_header_value("a\t"), "=?base64?YQk=?=");
    EXPECT_EQ(encode_header_value(" "), "=?base64?IA==?=");
}

TEST(McpHeaderValue, LineBreaksAndControlBytesAreEncoded) {
    EXPECT_EQ(encode_header_value("a\r\nX-Injected: 1"), "=?base64?YQ0KWC1JbmplY3RlZDogMQ==?=");
    EXPECT_EQ(encode_header_value("a\rb"), "=?base64?YQ1i?=");
    EXPECT_EQ(encode_header_value(std::string("a\0b", 3)), "=?base64?YQBi?=");
    EXPECT_EQ(encode_header_value("a\x01" "b"), "=?base64?YQFi?=");
    EXPECT_EQ(encode_header_value("a\x7f"), "=?base64?YX8=?=");  // DEL is not visible
    EXPECT_EQ(encode_header_value("\xC3\xA9"), "=?base64?w6k=?=");  // é
}

TEST(McpHeaderValue, OnlyTheWholeSentinelShapeIsEncoded) {
    EXPECT_EQ(encode_header_value("=?base64?" "?="), "=?base64?PT9iYXNlNjQ/Pz0=?=");
    EXPECT_EQ(encode_header_value("=?base64?abc"), "=?base64?abc");  // no suffix: plain
    EXPECT_EQ(encode_header_value("x=?base64?abc?="), "x=?base64?abc?=");  // not at the start
    EXPECT_EQ(encode_header_value("=?BASE64?abc?="), "=?BASE64?abc?=");  // markers are case-sensitive
    EXPECT_EQ(encode_header_value("=?base64?="), "=?base64?PT9iYXNlNjQ/PQ==?=");  // markers overlap: still ambiguous
}

TEST(McpHeaderValue, EmptyStringIsPlain) {
    EXPECT_TRUE(is_plain_header_value(""));
    EXPECT_EQ(encode_header_value(""), "");
}

TEST(McpHeaderValue, EveryVisibleAsciiByteIsPlain) {
    std::string all;
    for (int c = 0x21; c <= 0x7e; ++c) all += static_cast<char>(c);
    EXPECT_TRUE(is_plain_header_value(all));
    for (int c = 0; c < 0x21; ++c)
        if (c != ' ' && c != '\t') {
            EXPECT_FALSE(is_plain_header_value(std::string(1, 'a') + static_cast<char>(c) + "a")) << c;
        }
    for (int c = 0x7f; c <= 0xff; ++c) EXPECT_FALSE(is_plain_header_value(std::string("a") + static_cast<char>(c))) << c;
}

TEST(McpMetadataHeaders, MethodNameAndParams) {
    HeaderPairs h = request_metadata_headers("tools/call", "execute_sql",
                                             {{"Region", "us-west1"}, {"Greeting", "Hello, \xE4\xB8\x96\xE7\x95\x8C"}});
    HeaderPairs want = {{"Mcp-Method", "tools/call"},
                        {"Mcp-Name", "execute_sql"},
                        {"Mcp-Param-Region", "us-west1"},
                        {"Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="}};
    EXPECT_EQ(h, want);
}

TEST(McpMetadataHeaders, NameOnlyForTheMethodsThatHaveOne) {
    for (const char* method : {"tasks/get", "tasks/update", "tasks/cancel"})  // the task they name
        EXPECT_EQ(request_metadata_headers(method, "task-1", {}), (HeaderPairs{{"Mcp-Method", method}, {"Mcp-Name", "task-1"}}));
    EXPECT_EQ(request_metadata_headers("tasks/list", "task-1", {}), (HeaderPairs{{"Mcp-Method", "tasks/list"}}));
    EXPECT_EQ(request_metadata_headers("resources/read", "file:///a", {}),
              (HeaderPairs{{"Mcp-Method", "resources/read"}, {"Mcp-Name", "file:///a"}}));
    EXPECT_EQ(request_metadata_headers("prompts/get", " p ", {}),
              (HeaderPairs{{"Mcp-Method", "prompts/get"}, {"Mcp-Name", "=?base64?IHAg?="}}));
    EXPECT_EQ(request_metadata_headers("tools/list", "ignored", {}), (HeaderPairs{{"Mcp-Method", "tools/list"}}));
    EXPECT_EQ(request_metadata_headers("notifications/initialized", "", {}),
              (HeaderPairs{{"Mcp-Method", "notifications/initialized"}}));
    EXPECT_TRUE(request_metadata_headers("", "", {}).empty());  // a response: no metadata
}

TEST(McpMetadataHeaders, ParamNameMustBeAToken) {
    EXPECT_THROW(request_metadata_headers("tools/call", "t", {{"Bad Name", "v"}}), std::invalid_argument);
    EXPECT_THROW(request_metadata_headers("tools/call", "t", {{"X\r\nInjected", "v"}}), std::invalid_argument);
    EXPECT_THROW(request_metadata_headers("tools/call", "t", {{"", "v"}}), std::invalid_argument);
    EXPECT_THROW(request_metadata_headers("tools/call", "t", {{"A:B", "v"}}), std::invalid_argument);
    EXPECT_NO_THROW(request_metadata_headers("tools/call", "t", {{"Tenant_ID-2.x", "v"}}));
}

}  // namespace
}  // namespace mcph::http
