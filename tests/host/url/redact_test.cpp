// Secrets inside URLs (userinfo, query values, keys in the path) never reach text for people.
#include "url/redact.hpp"

#include <gtest/gtest.h>

namespace {

using mcph::url::redact_url;
using mcph::url::redact_urls_in_text;

TEST(RedactUrl, Table) {
    const std::pair<const char*, const char*> cases[] = {
        {"https://u:secret@h.example/mcp", "https://***@h.example/mcp"},
        {"https://u:p@ss@h.example/", "https://***@h.example/"},
        {"https://h.example/mcp?api_key=secret&x=1", "https://h.example/mcp?api_key=***&x=***"},
        {"https://h.example/mcp?flag", "https://h.example/mcp?flag"},
        {"https://h.example/mcp#token=secret", "https://h.example/mcp#***"},
        {"https://actions.zapier.com/mcp/sk-ak-abcdefgh/sse", "https://actions.zapier.com/mcp/***/sse"},
        {"https://h.example/v1/a1b2c3d4e5f6a7b8c9d0/mcp", "https://h.example/v1/***/mcp"},
        {"https://h.example/key/hunter2/mcp", "https://h.example/key/***/mcp"},
        {"https://h.example/2025-06-18/mcp", "https://h.example/2025-06-18/mcp"},
        {"https://h.example:8443/", "https://h.example:8443/"},
        {"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/mcp"},
        {"not a url?token=secret", "not a url?token=***"},
    };
    for (const auto& [in, out] : cases) EXPECT_EQ(redact_url(in), out) << in;
}

TEST(RedactUrl, InFreeText) {
    const std::string text =
        "POST https://user:secret@h.example/mcp?api_key=secret failed; retry 'wss://h.example/ws?t=secret' later";
    const std::string red = redact_urls_in_text(text);
    EXPECT_EQ(red.find("secret"), std::string::npos) << red;
    EXPECT_EQ(red, "POST https://***@h.example/mcp?api_key=*** failed; retry 'wss://h.example/ws?t=***' later");
    EXPECT_EQ(redact_urls_in_text("no url here: a://"), "no url here: a://");
    EXPECT_EQ(redact_urls_in_text("x ://y?k=v"), "x ://y?k=v");  // no scheme: not a URL
    EXPECT_EQ(redact_urls_in_text("{\"issuer\":\"https://as.example/?k=v\"}"), "{\"issuer\":\"https://as.example/?k=***\"}");
}

}  // namespace
