// Content signatures: which definitions count as the same server (seed 000 §18.7).
#include "governance/server_signature.hpp"
#include "test_helpers.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <ostream>

namespace {

using mcph::config::ServerConfig;
using mcph::governance::server_signature;
using mcph::governance::unwrap_proxy_url;

using host_test::server;

struct SignatureCase {
    const char* what;
    const char* a;
    const char* b;
    bool same;
};

void PrintTo(const SignatureCase& c, std::ostream* os) { *os << c.what; }

class SignatureTable : public testing::TestWithParam<SignatureCase> {};

TEST_P(SignatureTable, ComparesByContentNotName) {
    const SignatureCase& c = GetParam();
    // Different names on purpose: a name never makes or breaks a duplicate.
    const std::string a = server_signature(server("mine", c.a));
    const std::string b = server_signature(server("plugin-copy", c.b));
    EXPECT_EQ(a == b, c.same) << c.what << "\n  a: " << a << "\n  b: " << b;
}

const SignatureCase kSignatureCases[] = {
    {"same command line", R"({"command":"npx","args":["-y","slack-mcp"]})", R"({"command":"npx","args":["-y","slack-mcp"]})", true},
    {"explicit stdio type", R"({"command":"npx","args":["a"]})", R"({"type":"stdio","command":"npx","args":["a"]})", true},
    {"arg order matters", R"({"command":"npx","args":["a","b"]})", R"({"command":"npx","args":["b","a"]})", false},
    {"args are not joined", R"({"command":"npx","args":["a b"]})", R"({"command":"npx","args":["a","b"]})", false},
    {"other command", R"({"command":"npx","args":["a"]})", R"({"command":"bunx","args":["a"]})", false},
    {"env order does not matter", R"({"command":"x","env":{"A":"1","B":"2"}})", R"({"command":"x","env":{"B":"2","A":"1"}})", true},
    {"env value matters", R"({"command":"x","env":{"TOKEN":"one"}})", R"({"command":"x","env":{"TOKEN":"two"}})", false},
    {"env name matters", R"({"command":"x","env":{"A":"1"}})", R"({"command":"x","env":{"B":"1"}})", false},
    {"empty env equals no env", R"({"command":"x","env":{}})", R"({"command":"x"})", true},
    {"no args equals empty args", R"({"command":"x","args":[]})", R"({"command":"x"})", true},
    {"timeout is not identity", R"({"command":"x","timeout":5000})", R"({"command":"x"})", true},
    {"same url", R"({"url":"https://mcp.slack.com/mcp"})", R"({"type":"http","url":"https://mcp.slack.com/mcp"})", true},
    {"proxy url equals direct url", R"({"url":"https://mcp.slack.com/mcp"})",
     R"({"url":"https://proxy.example.net/v1/connect?session=7&mcp_url=https%3A%2F%2Fmcp.slack.com%2Fmcp"})", true},
    {"host case", R"({"url":"https://MCP.Slack.COM/mcp"})", R"({"url":"https://mcp.slack.com/mcp"})", true},
    {"scheme case", R"({"url":"HTTPS://mcp.slack.com/mcp"})", R"({"url":"https://mcp.slack.com/mcp"})", true},
    {"default port", R"({"url":"https://mcp.slack.com:443/mcp"})", R"({"url":"https://mcp.slack.com/mcp"})", true},
    {"ws default port", R"({"type":"ws","url":"wss://Ws.test:443/mcp"})", R"({"type":"ws","url":"wss://ws.test/mcp"})", true},
    {"other port", R"({"url":"https://mcp.slack.com:8443/mcp"})", R"({"url":"https://mcp.slack.com/mcp"})", false},
    {"path case matters", R"({"url":"https://mcp.slack.com/MCP"})", R"({"url":"https://mcp.slack.com/mcp"})", false},
    {"other path", R"({"url":"https://mcp.slack.com/a"})", R"({"url":"https://mcp.slack.com/b"})", false},
    {"header identity matters", R"({"url":"https://h.test/mcp","headers":{"Authorization":"Bearer A"}})",
     R"({"url":"https://h.test/mcp","headers":{"Authorization":"Bearer B"}})", false},
    {"headers vs none", R"({"url":"https://h.test/mcp","headers":{"X-Tenant":"a"}})", R"({"url":"https://h.test/mcp"})", false},
    {"header name case and order", R"({"url":"https://h.test/mcp","headers":{"X-A":"1","x-b":"2"}})",
     R"({"url":"https://h.test/mcp","headers":{"X-B":"2","x-a":"1"}})", true},
    {"sse and http of one url", R"({"type":"sse","url":"https://h.test/mcp"})", R"({"type":"http","url":"https://h.test/mcp"})", true},
    {"inheritEnv true is another server", R"({"command":"x","inheritEnv":true})", R"({"command":"x"})", false},
    {"inheritEnv false equals absent", R"({"command":"x","inheritEnv":false})", R"({"command":"x"})", true},
    {"inheritEnv list vs true", R"({"command":"x","inheritEnv":["AWS_*"]})", R"({"command":"x","inheritEnv":true})", false},
    {"inheritEnv list vs absent", R"({"command":"x","inheritEnv":["AWS_*"]})", R"({"command":"x"})", false},
    {"inheritEnv other names", R"({"command":"x","inheritEnv":["A"]})", R"({"command":"x","inheritEnv":["B"]})", false},
    {"inheritEnv list order and repeats", R"({"command":"x","inheritEnv":["B","A","B"]})", R"({"command":"x","inheritEnv":["A","B"]})", true},
    {"inheritEnv same true", R"({"command":"x","inheritEnv":true})", R"({"type":"stdio","command":"x","inheritEnv":true})", true},
    {"stdio vs remote", R"({"command":"https://h.test/mcp"})", R"({"url":"https://h.test/mcp"})", false},
};

INSTANTIATE_TEST_SUITE_P(Cases, SignatureTable, testing::ValuesIn(kSignatureCases));

TEST(ServerSignature, SdkServersAreKnownByName) {
    EXPECT_EQ(server_signature(server("inproc", R"({"type":"sdk"})")), "sdk:inproc");
    EXPECT_NE(server_signature(server("a", R"({"type":"sdk"})")), server_signature(server("b", R"({"type":"sdk"})")));
}

TEST(ServerSignature, OtherTypesUseTheCanonicalEntryWithoutItsName) {
    const auto a = server("a", R"({"type":"custom","y":{"q":1,"p":2},"x":[1,2]})");
    const auto b = server("b", R"({"x":[1,2],"type":"custom","y":{"p":2,"q":1}})");
    EXPECT_EQ(server_signature(a), server_signature(b));
    EXPECT_EQ(server_signature(a), R"(custom:{"type":"custom","x":[1,2],"y":{"p":2,"q":1}})");
    EXPECT_NE(server_signature(a), server_signature(server("c", R"({"type":"custom","x":[2,1],"y":{"p":2,"q":1}})")));
}

TEST(ServerSignature, StdioShapeIsCommandArrayAndEnvHash) {
    const std::string sig = server_signature(server("s", R"({"command":"npx","args":["-y","pkg"]})"));
    EXPECT_EQ(sig.rfind(R"(stdio:["npx","-y","pkg"]|env:)", 0), 0u) << sig;
    EXPECT_EQ(sig.size(), std::string(R"(stdio:["npx","-y","pkg"]|env:)").size() + 64);  // sha256 hex
}

TEST(DefinitionFingerprint, CoversEveryFieldButTheName) {
    using mcph::governance::definition_fingerprint;
    const auto base = server("a", R"({"url":"https://h.test/mcp","headers":{"X":"1"}})");
    EXPECT_EQ(definition_fingerprint(base), definition_fingerprint(server("b", R"({"headers":{"X":"1"},"url":"https://h.test/mcp"})")));
    // Same signature, other definition: an approval must not carry over.
    const auto helper = server("a", R"({"url":"https://h.test/mcp","headers":{"X":"1"},"headersHelper":"sh evil.sh"})");
    EXPECT_EQ(server_signature(base), server_signature(helper));
    EXPECT_NE(definition_fingerprint(base), definition_fingerprint(helper));
    EXPECT_NE(definition_fingerprint(server("s", R"({"command":"node","args":["x.js"]})")),
              definition_fingerprint(server("s", R"({"command":"node","args":["x.js"],"cwd":"/elsewhere"})")));
    EXPECT_EQ(definition_fingerprint(base).size(), 64u);
}

TEST(ServerSignature, DefinitionFingerprintCoversTheSharedXaaIdp) {
    using mcph::governance::definition_fingerprint;
    const std::string entry = R"({"url":"https://h.test/mcp","oauth":{"xaa":true,"clientId":"c"}})";
    auto with_idp = [&](const std::string& idp) {
        ServerConfig s = server("a", entry);
        mcph::config::share_xaa_idp(mcph::parse_json(idp), s);
        return s;
    };
    const auto ours = with_idp(R"({"issuer":"https://idp.example","clientId":"i"})");
    const auto moved = with_idp(R"({"issuer":"https://idp.example","clientId":"i","tokenEndpoint":"https://evil.test/t"})");
    EXPECT_EQ(ours.config_json, moved.config_json);  // the entry itself is unchanged
    EXPECT_NE(definition_fingerprint(ours), definition_fingerprint(moved));
    EXPECT_EQ(definition_fingerprint(ours), definition_fingerprint(with_idp(R"({"clientId":"i","issuer":"https://idp.example"})")));
    EXPECT_NE(definition_fingerprint(ours), definition_fingerprint(server("a", entry)));  // no shared IdP at all
    // Other backends: unchanged (their auth config is the entry's own "oauth").
    const auto plain = server("p", R"({"url":"https://h.test/mcp","oauth":{"clientId":"c"}})");
    EXPECT_EQ(definition_fingerprint(plain), definition_fingerprint(server("q", R"({"oauth":{"clientId":"c"},"url":"https://h.test/mcp"})")));
}

struct UnwrapCase {
    const char* in;
    const char* out;
};

void PrintTo(const UnwrapCase& c, std::ostream* os) { *os << c.in; }

class UnwrapTable : public testing::TestWithParam<UnwrapCase> {};

TEST_P(UnwrapTable, Unwraps) { EXPECT_EQ(unwrap_proxy_url(GetParam().in), GetParam().out) << GetParam().in; }

const UnwrapCase kUnwrapCases[] = {
    {"https://mcp.slack.com/mcp", "https://mcp.slack.com/mcp"},
    {"https://p.test/c?mcp_url=https%3A%2F%2Fmcp.slack.com%2Fmcp", "https://mcp.slack.com/mcp"},
    {"https://p.test/c?a=1&mcp_url=https%3A%2F%2FMCP.slack.com%3A443%2Fmcp&b=2", "https://mcp.slack.com/mcp"},
    // An encoded '&' belongs to the original URL, not to the proxy's query.
    {"https://p.test/c?mcp_url=https%3A%2F%2Fs.test%2Fm%3Fa%3D1%26b%3D2&z=9", "https://s.test/m?a=1&b=2"},
    // A proxy behind a proxy.
    {"https://p1.test/?mcp_url=https%3A%2F%2Fp2.test%2F%3Fmcp_url%3Dhttps%253A%252F%252Fs.test%252Fm", "https://s.test/m"},
    // Not the parameter (prefix of its name, or a value that is no URL): the URL itself.
    {"https://p.test/c?xmcp_url=https%3A%2F%2Fs.test%2F", "https://p.test/c?xmcp_url=https%3A%2F%2Fs.test%2F"},
    {"https://p.test/c?mcp_url=not%20a%20url", "https://p.test/c?mcp_url=not%20a%20url"},
    {"HTTP://Example.COM:80", "http://example.com/"},
    {"http://example.com:8080/x", "http://example.com:8080/x"},
    // ws/wss: libcurl may not know these schemes (or their default ports); normalised all the same.
    {"WSS://A.test:443/x", "wss://a.test/x"},
    {"ws://a.test:80/", "ws://a.test/"},
    {"wss://a.test:80/", "wss://a.test:80/"},
    {"https://[::1]:443/m", "https://[::1]/m"},
    {"not a url", "not a url"},
};

INSTANTIATE_TEST_SUITE_P(Cases, UnwrapTable, testing::ValuesIn(kUnwrapCases));

}  // namespace

namespace {

// Two spellings of one host are one server (dedup sees them as duplicates); userinfo is kept.
TEST(NormalizeUrl, CanonicalHost) {
    using mcph::governance::normalize_url;
    EXPECT_EQ(normalize_url("https://MCP.example.com./mcp"), "https://mcp.example.com/mcp");
    EXPECT_EQ(normalize_url("https://évil.example.com/mcp"), "https://xn--vil-9la.example.com/mcp");
    EXPECT_EQ(normalize_url("http://[::ffff:10.0.0.5]:80/x"), "http://10.0.0.5/x");
    EXPECT_EQ(normalize_url("http://0x0a.0.0.5/x"), "http://10.0.0.5/x");
    EXPECT_EQ(normalize_url("https://u:p@h.example/x"), "https://u:p@h.example/x");
}

}  // namespace
