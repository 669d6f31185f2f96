// The wire trace's one redaction rule (names_a_secret / redact_secrets) and its line format:
// cut long messages with "… (N bytes)", escape the server's text, mark what is not JSON.
#include "wire_trace.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

namespace mcph::cli {
namespace {

TEST(WireTrace, SecretNamedKeysAreRecognisedWhateverTheirSpelling) {
    for (const char* key : {"authorization", "Authorization", "token", "access_token", "refreshToken", "id_token",
                            "password", "db_password", "secret", "client_secret", "apiKey", "api_key", "x-api-key",
                            "API-KEY", "cookie", "Set-Cookie", "private_key", "credentials", "githubToken", "passwd"})
        EXPECT_TRUE(names_a_secret(key)) << key;
    for (const char* key : {"progressToken", "maxTokens", "tokens", "key", "name", "uri", "cursor", "description",
                            "secretary_name_list_x"})
        EXPECT_FALSE(names_a_secret(key)) << key;
}

TEST(WireTrace, ValuesOfSecretKeysAreRedactedAtAnyDepth) {
    Json doc = parse_json(R"({"params":{"arguments":{"password":"hunter2","nested":[{"apiKey":{"v":"k1"}}],
        "header":"Bearer abc.def","ok":"visible"},"_meta":{"progressToken":7}}})");
    redact_secrets(doc, doc.GetAllocator());
    const std::string text = to_json(doc);
    EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
    EXPECT_EQ(text.find("k1"), std::string::npos) << text;
    EXPECT_EQ(text.find("abc.def"), std::string::npos) << text;
    EXPECT_NE(text.find("\"password\":\"***\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"apiKey\":\"***\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"header\":\"Bearer ***\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"ok\":\"visible\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"progressToken\":7"), std::string::npos) << text;
}

TEST(WireTrace, LineNamesServerAndDirectionAndCutsLongMessages) {
    const std::string small = R"({"jsonrpc":"2.0","id":1,"result":{}})";
    EXPECT_EQ(wire_trace_line("mem", WireDirection::Out, small), "mcph: [trace] mem \xE2\x86\x92 " + small);
    EXPECT_EQ(wire_trace_line("mem", WireDirection::In, small), "mcph: [trace] mem \xE2\x86\x90 " + small);

    const std::string big = R"({"jsonrpc":"2.0","id":1,"result":{"text":")" + std::string(10000, 'a') + "\"}}";
    const std::string line = wire_trace_line("mem", WireDirection::In, big, 100);
    EXPECT_LT(line.size(), 200u) << line;
    EXPECT_NE(line.find("\xE2\x80\xA6 (" + std::to_string(big.size()) + " bytes)"), std::string::npos) << line;
}

TEST(WireTrace, ServerTextIsEscapedAndNonJsonIsMarked) {
    // An escape sequence inside a JSON string arrives as \u001b, which the serializer keeps
    // escaped; raw control bytes of a non-JSON line are escaped by terminal_safe.
    const std::string line = wire_trace_line("s\x1b[31m", WireDirection::In, "not json \x1b]0;title\x07 here");
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
    EXPECT_EQ(line.find('\x07'), std::string::npos) << line;
    EXPECT_NE(line.find("(not JSON)"), std::string::npos) << line;
    const std::string multi = wire_trace_line("s", WireDirection::In, "line one\nline two");
    EXPECT_EQ(multi.find('\n'), std::string::npos) << "one message, one line\n" << multi;
}

TEST(WireTrace, ASecretInAMessageCutShortIsRedactedBeforeTheCut) {
    const std::string msg = R"({"params":{"token":"tok-123456789","pad":")" + std::string(5000, 'x') + "\"}}";
    const std::string line = wire_trace_line("s", WireDirection::Out, msg, 60);
    EXPECT_EQ(line.find("tok-123"), std::string::npos) << line;
}

}  // namespace
}  // namespace mcph::cli
