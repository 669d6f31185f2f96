// The parsers of issue #15's remote configuration: the webapp connector document (every malformed
// shape refused with its reason), the "connectors" setting, the managed-settings endpoint file, and
// the configurable proxy URL parameter names as dedup and policy use them (two names).
#include "config/connectors.hpp"
#include "config/managed_endpoint.hpp"
#include "governance/dedup.hpp"
#include "governance/policy.hpp"
#include "governance/server_signature.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace mcph::config;
using mcph::Error;

// The message connectors_to_servers throws for `body`, or "" when it accepts it.
std::string connector_error(const std::string& body) {
    try {
        connectors_to_servers(body, "svc");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    return "";
}

std::string doc(const std::string& connectors) { return R"({"version":1,"connectors":[)" + connectors + "]}"; }

TEST(ConnectorDocument, ValidDocumentBecomesRemoteServers) {
    const std::string out = connectors_to_servers(
        doc(R"({"name":"github","url":"https://gh.example/mcp","headers":{"X-T":"1"},"futureField":{"a":1}},)"
            R"({"name":"events","url":"https://ev.example/sse","type":"sse","oauth":{"clientId":"c"}})"),
        "svc");
    mcph::Json servers = mcph::parse_json(out);
    ASSERT_TRUE(servers["mcpServers"].IsObject());
    const auto& gh = servers["mcpServers"]["github"];
    EXPECT_STREQ(gh["type"].GetString(), "http");
    EXPECT_STREQ(gh["url"].GetString(), "https://gh.example/mcp");
    EXPECT_STREQ(gh["headers"]["X-T"].GetString(), "1");
    EXPECT_FALSE(gh.HasMember("futureField")) << "only the fields a remote server needs are kept";
    EXPECT_STREQ(servers["mcpServers"]["events"]["type"].GetString(), "sse");
    EXPECT_TRUE(servers["mcpServers"]["events"]["oauth"].IsObject());
    EXPECT_EQ(connectors_to_servers(doc(""), "svc"), R"({"mcpServers":{}})");
}

TEST(ConnectorDocument, EveryMalformedShapeIsRefusedWithItsReason) {
    struct Case {
        std::string body;
        std::string expected;  // a part of the message
    };
    const std::vector<Case> cases = {
        {"not json", "not JSON"},
        {"[]", "must be a JSON object"},
        {R"({"connectors":[]})", "no \"version\""},
        {R"({"version":2,"connectors":[]})", "unsupported connector document version 2"},
        {R"({"version":"1","connectors":[]})", "unsupported connector document version \"1\""},
        {R"({"version":1.5,"connectors":[]})", "unsupported connector document version"},
        {R"({"version":1})", "\"connectors\" must be an array"},
        {R"({"version":1,"connectors":{}})", "\"connectors\" must be an array"},
        {doc(R"("github")"), "connectors[0] must be an object"},
        {doc(R"({"url":"https://a/"})"), "connectors[0]: name must be a non-empty string"},
        {doc(R"({"name":"","url":"https://a/"})"), "name must be a non-empty string"},
        {doc(R"({"name":7,"url":"https://a/"})"), "name must be a non-empty string"},
        {doc(R"({"name":"a\u001b[2Jb","url":"https://a/"})"), "without control characters"},
        {doc(R"({"name":")" + std::string(129, 'n') + R"(","url":"https://a/"})"), "at most 128 characters"},
        {doc(R"({"name":"a"})"), "connectors[0] ('a'): url must be a non-empty string"},
        {doc(R"({"name":"a","url":42})"), "url must be a non-empty string"},
        {doc(R"({"name":"a","url":"https://a/","type":"stdio"})"), "type must be http, sse or ws (not 'stdio')"},
        {doc(R"({"name":"a","url":"https://a/","type":1})"), "type must be a string"},
        {doc(R"({"name":"a","url":"https://a/","headers":[]})"), "headers must be an object"},
        {doc(R"({"name":"a","url":"https://a/","headers":{"X":1}})"), "headers.X must be a string"},
        {doc(R"({"name":"a","url":"https://a/","headers":{"X":"a\r\nHost: evil"}})"), "line break"},
        {doc(R"({"name":"a","url":"https://a/","oauth":"yes"})"), "oauth must be an object"},
        {doc(R"({"name":"a","url":"https://a/","command":"sh"})"), "\"command\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/","args":[]})"), "\"args\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/","env":{}})"), "\"env\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/","cwd":"/"})"), "\"cwd\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/","headersHelper":"id"})"), "\"headersHelper\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/","auth":{"backend":"x"}})"), "\"auth\" is not accepted"},
        {doc(R"({"name":"a","url":"https://a/"},{"name":"a","url":"https://b/"})"), "connectors[1] ('a'): the name is used twice"},
        {std::string(300, '[') + std::string(300, ']'), "not JSON"},
    };
    for (const Case& c : cases) {
        const std::string message = connector_error(c.body);
        EXPECT_NE(message.find(c.expected), std::string::npos) << c.body << "\n -> " << message;
        EXPECT_EQ(message.rfind("svc: ", 0), 0u) << "names the origin: " << message;
    }
}

TEST(ConnectorDocument, TooManyConnectorsIsRefusedNamingTheLimit) {
    std::string list;
    for (std::size_t i = 0; i <= kMaxConnectors; ++i)
        list += (i ? "," : "") + std::string(R"({"name":"c)") + std::to_string(i) + R"(","url":"https://a/"})";
    EXPECT_NE(connector_error(doc(list)).find("more than the limit of 500"), std::string::npos);
}

std::string endpoint_error(const std::string& json) {
    try {
        parse_connector_endpoint(mcph::parse_json(json), "settings.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ConnectorSetting, ParsesEveryField) {
    ConnectorEndpoint e = parse_connector_endpoint(
        mcph::parse_json(R"({"url":"https://svc.example/c","headers":{"Authorization":"Bearer t"},"headersHelper":"tok",)"
                         R"("timeoutMs":2500,"proxyUrlParameters":["mcp_url","target"]})"),
        "settings.json");
    EXPECT_EQ(e.url, "https://svc.example/c");
    EXPECT_EQ(e.headers.at("Authorization"), "Bearer t");
    EXPECT_EQ(e.headers_helper, "tok");
    EXPECT_EQ(e.timeout.count(), 2500);
    EXPECT_EQ(e.proxy_url_parameters, (std::vector<std::string>{"mcp_url", "target"}));
    EXPECT_EQ(parse_connector_endpoint(mcph::parse_json(R"({"url":"http://127.0.0.1:9/c"})"), "s").timeout.count(), 5000);
}

TEST(ConnectorSetting, MalformedShapesAreRefused) {
    EXPECT_NE(endpoint_error(R"("https://a/")").find("connectors must be an object"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({})").find("connectors.url is required"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":""})").find("must be a non-empty URL"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"http://svc.example/c"})").find("https is required"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"ftp://svc.example/c"})").find("https is required"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","timeoutMs":0})").find("from 100 to 60000"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","timeoutMs":600000})").find("from 100 to 60000"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","timeoutMs":"5"})").find("from 100 to 60000"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","headers":{"A":true}})").find("headers.A must be a string"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","headersHelper":""})").find("non-empty command"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","proxyUrlParameters":"mcp_url"})").find("must be an array"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","proxyUrlParameters":["a=b"]})").find("query parameter names"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","proxyUrlParameters":[""]})").find("query parameter names"), std::string::npos);
    EXPECT_NE(endpoint_error(R"({"url":"https://a/","proxyUrlParameters":[3]})").find("query parameter names"), std::string::npos);
}

std::string managed_error(const std::string& text) {
    try {
        parse_managed_endpoint_config(text, "/etc/mcph/managed-settings-endpoint.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ManagedEndpointFile, ParsesEveryField) {
    ManagedEndpointConfig c = parse_managed_endpoint_config(
        R"({"url":"https://mdm.example/s","timeoutMs":800,"headers":{"X-Device":"d1"},"useCachedOnFailure":true})", "f");
    EXPECT_EQ(c.url, "https://mdm.example/s");
    EXPECT_EQ(c.timeout.count(), 800);
    EXPECT_EQ(c.headers.at("X-Device"), "d1");
    EXPECT_TRUE(c.use_cached_on_failure);
    EXPECT_FALSE(parse_managed_endpoint_config(R"({"url":"https://mdm.example/s"})", "f").use_cached_on_failure);
}

TEST(ManagedEndpointFile, MalformedShapesAreRefused) {
    EXPECT_NE(managed_error("{").find("not JSON"), std::string::npos);
    EXPECT_NE(managed_error("[]").find("must hold a JSON object"), std::string::npos);
    EXPECT_NE(managed_error("{}").find("url is required"), std::string::npos);
    EXPECT_NE(managed_error(R"({"url":5})").find("non-empty URL"), std::string::npos);
    EXPECT_NE(managed_error(R"({"url":"http://mdm.example/s"})").find("https is required"), std::string::npos);
    EXPECT_NE(managed_error(R"({"url":"https://a/","timeoutMs":50})").find("from 100 to 60000"), std::string::npos);
    EXPECT_NE(managed_error(R"({"url":"https://a/","headers":"x"})").find("headers must be an object"), std::string::npos);
    EXPECT_NE(managed_error(R"({"url":"https://a/","useCachedOnFailure":"yes"})").find("true or false"), std::string::npos);
    // A typo in an administrator's file must not be silently ignored.
    EXPECT_NE(managed_error(R"({"url":"https://a/","useCacheOnFailure":true})").find("unknown field \"useCacheOnFailure\""),
              std::string::npos);
    EXPECT_EQ(managed_error("{}").rfind("/etc/mcph/managed-settings-endpoint.json: ", 0), 0u) << "names the file";
    EXPECT_EQ(managed_error(R"({"url":"https://a/"})"), "");
}

// ---- proxy URL parameter names, two of them ---------------------------------------------------------

namespace gov = mcph::governance;

const std::vector<std::string> kTwoNames = {"mcp_url", "target"};
constexpr const char* kDirect = "https://api.github.test/mcp";
constexpr const char* kViaMcpUrl = "https://proxy.test/c?mcp_url=https%3A%2F%2Fapi.github.test%2Fmcp";
constexpr const char* kViaTarget = "https://proxy.test/c?session=1&target=https%3A%2F%2Fapi.github.test%2Fmcp";

ConfiguredServer remote(const std::string& name, const std::string& url, Scope scope) {
    ConfiguredServer s;
    s.config = parse_server_config(name, mcph::parse_json(R"({"url":")" + url + R"("})"));
    s.scope = scope;
    s.origin = scope == Scope::Webapp ? "https://connectors.test/mine" : "settings.json";
    return s;
}

TEST(ProxyUrlParameters, UnwrapByEveryConfiguredName) {
    EXPECT_EQ(gov::unwrap_proxy_url(kViaMcpUrl, kTwoNames), kDirect);
    EXPECT_EQ(gov::unwrap_proxy_url(kViaTarget, kTwoNames), kDirect);
    // The control: with the default name only, "target" is not a proxy parameter.
    EXPECT_EQ(gov::unwrap_proxy_url(kViaMcpUrl), kDirect);
    EXPECT_NE(gov::unwrap_proxy_url(kViaTarget), kDirect);
}

TEST(ProxyUrlParameters, DedupSuppressesConnectorsUnderBothNames) {
    auto result = gov::dedup_servers({remote("gh-a", kViaMcpUrl, Scope::Webapp), remote("gh-b", kViaTarget, Scope::Webapp),
                                      remote("github", kDirect, Scope::User)},
                                     kTwoNames);
    ASSERT_EQ(result.kept.size(), 1u);
    EXPECT_EQ(result.kept[0].config.name, "github");
    ASSERT_EQ(result.suppressed.size(), 2u);
    EXPECT_EQ(result.suppressed[0].reason,
              "connector 'gh-a' from https://connectors.test/mine is a duplicate of manually configured server 'github' "
              "(same URL and headers)");
    EXPECT_EQ(result.suppressed[1].duplicate_of, "github");
    // Default names only: the "target" connector is another server.
    EXPECT_EQ(gov::dedup_servers({remote("gh-b", kViaTarget, Scope::Webapp), remote("github", kDirect, Scope::User)})
                  .kept.size(),
              2u);
}

TEST(ProxyUrlParameters, ManualServersAreNeverSuppressedByAConnector) {
    auto result = gov::dedup_servers({remote("gh-a", kViaMcpUrl, Scope::Webapp), remote("github", kDirect, Scope::Project)});
    ASSERT_EQ(result.kept.size(), 1u);
    EXPECT_EQ(result.kept[0].config.name, "github");
}

TEST(ProxyUrlParameters, PolicyDeniesByTheOriginalUnderEachName) {
    gov::PolicySettings settings;
    settings.denied = gov::parse_policy_rules(mcph::parse_json(R"([{"serverUrl":"https://api.github.test/*"}])"), "managed",
                                              "deniedMcpServers");
    settings.proxy_url_parameters = kTwoNames;
    for (const char* url : {kViaMcpUrl, kViaTarget}) {
        auto decision = gov::check_server_allowed(remote("gh", url, Scope::Webapp).config, settings);
        EXPECT_FALSE(decision.allowed) << url;
        EXPECT_NE(decision.reason.find("https://api.github.test/*"), std::string::npos) << decision.reason;
    }
    // A URL carrying both names is held against the rule under either original.
    auto both = gov::check_server_allowed(
        remote("gh", "https://proxy.test/c?mcp_url=https%3A%2F%2Fok.test%2F&target=https%3A%2F%2Fapi.github.test%2Fmcp",
               Scope::Webapp)
            .config,
        settings);
    EXPECT_FALSE(both.allowed);
    // Only the default name: "target" hides nothing, the proxy itself is what is matched.
    settings.proxy_url_parameters = {"mcp_url"};
    EXPECT_TRUE(gov::check_server_allowed(remote("gh", kViaTarget, Scope::Webapp).config, settings).allowed);
}

}  // namespace
