// Server definitions: both document shapes, type inference, and Usage errors naming server + field.
#include "config/server_config.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::config::parse_mcp_config;
using mcph::config::ServerConfig;

TEST(ServerConfig, McpServersShapeWithTypeDefaults) {
    auto configs = parse_mcp_config(R"({"mcpServers":{
        "files":{"command":"npx","args":["-y","server-files"],"env":{"ROOT":"/tmp"},"cwd":"/"},
        "remote":{"url":"https://mcp.example.com/mcp","headers":{"X-Key":"k"}},
        "events":{"type":"sse","url":"https://mcp.example.com/sse"}}})",
                                    "test.json");
    ASSERT_EQ(configs.size(), 3u);
    std::map<std::string, ServerConfig> by_name;
    for (auto& c : configs) by_name[c.name] = c;
    EXPECT_EQ(by_name.at("files").type, "stdio");
    EXPECT_EQ(by_name.at("remote").type, "http");
    EXPECT_EQ(by_name.at("events").type, "sse");
    EXPECT_FALSE(by_name.at("files").disabled);
    EXPECT_FALSE(by_name.at("files").request_timeout.has_value());
}

TEST(ServerConfig, VsCodeServersShape) {
    auto configs = parse_mcp_config(R"({"servers":{"one":{"type":"stdio","command":"srv"}}})", "settings.json");
    ASSERT_EQ(configs.size(), 1u);
    EXPECT_EQ(configs[0].name, "one");
    EXPECT_EQ(configs[0].type, "stdio");
}

TEST(ServerConfig, ConfigJsonHasTypeAndNameFilledIn) {
    auto configs = parse_mcp_config(R"({"mcpServers":{"real":{"command":"x","name":"spoofed","args":["a"]}}})", "t");
    ASSERT_EQ(configs.size(), 1u);
    mcph::Json filled = mcph::parse_json(configs[0].config_json);
    EXPECT_STREQ(filled["type"].GetString(), "stdio");
    EXPECT_STREQ(filled["name"].GetString(), "real") << "the key is the name, whatever the entry says";
    EXPECT_STREQ(filled["command"].GetString(), "x");
    EXPECT_STREQ(filled["args"][0].GetString(), "a");
    EXPECT_EQ(configs[0].config_json.find('\n'), std::string::npos);
}

TEST(ServerConfig, ExplicitTypeIsKeptInConfigJson) {
    auto c = mcph::config::parse_server_config("h", mcph::parse_json(R"({"type":"http","url":"https://x/mcp"})"));
    mcph::Json filled = mcph::parse_json(c.config_json);
    EXPECT_STREQ(filled["type"].GetString(), "http");
    EXPECT_EQ(filled.MemberCount(), 3u) << c.config_json;  // type appears once
}

TEST(ServerConfig, TimeoutAndDisabled) {
    auto c = mcph::config::parse_server_config("s", mcph::parse_json(R"({"command":"x","timeout":1500,"disabled":true})"));
    ASSERT_TRUE(c.request_timeout.has_value());
    EXPECT_EQ(c.request_timeout->count(), 1500);
    EXPECT_TRUE(c.disabled);
    auto d = mcph::config::parse_server_config("s", mcph::parse_json(R"({"command":"x","timeout":2.5})"));
    ASSERT_TRUE(d.request_timeout.has_value());
    EXPECT_EQ(d.request_timeout->count(), 2);
}

TEST(ServerConfig, OtherTypesNeedNoUrl) {
    // A plugin-served type such as "echo" or "sdk" decides its own required fields.
    EXPECT_NO_THROW(mcph::config::parse_server_config("e", mcph::parse_json(R"({"type":"echo","mode":"x"})")));
    EXPECT_NO_THROW(mcph::config::parse_server_config("e", mcph::parse_json(R"({"type":"sdk"})")));
}

struct BadCase {
    const char* name;
    const char* entry;  // the server "svc"'s definition
    const char* field;  // must appear in the message
};

const BadCase kBad[] = {
    {"no command or url", R"({})", "command or url"},
    {"only args", R"({"args":["a"]})", "command or url"},
    {"empty command", R"({"command":""})", "command"},
    {"command not a string", R"({"command":["npx"]})", "command"},
    {"stdio type without command", R"({"type":"stdio","url":"https://x"})", "command"},
    {"args not an array", R"({"command":"x","args":"-y"})", "args"},
    {"args with a number", R"({"command":"x","args":["-p",8080]})", "args"},
    {"env not an object", R"({"command":"x","env":["A=1"]})", "env"},
    {"env value not a string", R"({"command":"x","env":{"PORT":8080}})", "env.PORT"},
    {"cwd not a string", R"({"command":"x","cwd":1})", "cwd"},
    {"http without url", R"({"type":"http"})", "url"},
    {"sse without url", R"({"type":"sse"})", "url"},
    {"url not a string", R"({"url":5})", "url"},
    {"empty url", R"({"url":""})", "url"},
    {"headers not an object", R"({"url":"https://x","headers":"Authorization: x"})", "headers"},
    {"header value not a string", R"({"url":"https://x","headers":{"X-N":1}})", "headers.X-N"},
    {"timeout a string", R"({"command":"x","timeout":"30s"})", "timeout"},
    {"timeout zero", R"({"command":"x","timeout":0})", "timeout"},
    {"timeout negative", R"({"command":"x","timeout":-5})", "timeout"},
    {"disabled a string", R"({"command":"x","disabled":"yes"})", "disabled"},
    {"disabled a number", R"({"command":"x","disabled":1})", "disabled"},
    {"type empty", R"({"type":"","command":"x"})", "type"},
    {"type not a string", R"({"type":1,"command":"x"})", "type"},
    {"definition not an object", R"("npx server")", "definition"},
};

TEST(ServerConfig, BadEntriesAreUsageErrorsNamingServerAndField) {
    for (const BadCase& c : kBad) {
        SCOPED_TRACE(c.name);
        const std::string doc = std::string(R"({"mcpServers":{"ok":{"command":"x"},"svc":)") + c.entry + "}}";
        try {
            parse_mcp_config(doc, "my-config.json");
            ADD_FAILURE() << "accepted " << c.entry;
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(what.find("server 'svc'"), std::string::npos) << what;
            EXPECT_NE(what.find(c.field), std::string::npos) << what;
            EXPECT_NE(what.find("my-config.json"), std::string::npos) << what;
        }
    }
}

struct BadDocCase {
    const char* name;
    const char* text;
    const char* contains;
};

const BadDocCase kBadDocs[] = {
    {"malformed JSON", R"({"mcpServers":{"a":{"command":"x",,}}})", "offset"},
    {"truncated", R"({"mcpServers":)", "offset"},
    {"empty", "", "offset"},
    {"not an object", R"(["a"])", "must be a JSON object"},
    {"no servers key", R"({"mcp":{}})", "mcpServers"},
    {"servers not an object", R"({"mcpServers":[]})", "must be an object"},
    {"empty server name", R"({"mcpServers":{"":{"command":"x"}}})", "name must not be empty"},
};

TEST(ServerConfig, BadDocumentsAreUsageErrors) {
    for (const BadDocCase& c : kBadDocs) {
        SCOPED_TRACE(c.name);
        try {
            parse_mcp_config(c.text, "origin.json");
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(c.contains), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("origin.json"), std::string::npos) << e.what();
        }
    }
}

TEST(ServerConfig, MalformedJsonReportsTheOffset) {
    try {
        parse_mcp_config(R"({"mcpServers": @})", "x.json");  // the '@' is at offset 15
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("offset 15"), std::string::npos) << e.what();
    }
}

TEST(ServerConfig, OtherHostsTypeSpellingsFold) {
    const std::pair<const char*, const char*> cases[] = {
        {"streamable-http", "http"}, {"streamableHttp", "http"}, {"http", "http"}, {"sse", "sse"},
        {"ws", "ws"},               {"websocket", "ws"},        {"Http", "Http"},  // not a spelling we fold
    };
    for (const auto& [written, type] : cases) {
        SCOPED_TRACE(written);
        mcph::Json entry = mcph::parse_json(std::string(R"({"url":"http://127.0.0.1:1/mcp","type":")") + written + "\"}");
        const auto config = mcph::config::parse_server_config("s", entry);
        EXPECT_EQ(config.type, type);
        EXPECT_EQ(mcph::parse_json(config.config_json)["type"].GetString(), std::string(type));  // what the plugin sees
        EXPECT_FALSE(config.auto_fallback_to_sse);  // an explicit type is taken at its word
    }
    mcph::Json stdio = mcph::parse_json(R"({"type":"stdio","command":"x"})");
    EXPECT_EQ(mcph::config::parse_server_config("s", stdio).type, "stdio");
}

TEST(ServerConfig, UrlOnlyEntryFallsBackToSse) {
    mcph::Json url_only = mcph::parse_json(R"({"url":"http://127.0.0.1:1/sse"})");
    const auto config = mcph::config::parse_server_config("s", url_only);
    EXPECT_EQ(config.type, "http");
    EXPECT_TRUE(config.auto_fallback_to_sse);
    mcph::Json streamable = mcph::parse_json(R"({"url":"http://127.0.0.1:1/mcp","mode":"streamable"})");
    EXPECT_FALSE(mcph::config::parse_server_config("s", streamable).auto_fallback_to_sse);
}

TEST(ServerConfig, EnvFileMustBeAPath) {
    mcph::Json ok = mcph::parse_json(R"({"command":"x","envFile":"${workspaceFolder}/.env"})");
    EXPECT_NO_THROW(mcph::config::parse_server_config("s", ok));
    for (const char* bad : {R"({"command":"x","envFile":3})", R"({"command":"x","envFile":""})"}) {
        mcph::Json entry = mcph::parse_json(bad);
        try {
            mcph::config::parse_server_config("s", entry);
            ADD_FAILURE() << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("envFile"), std::string::npos) << e.what();
        }
    }
}

TEST(ServerConfig, EmptyServerMapIsFine) {
    EXPECT_TRUE(parse_mcp_config(R"({"mcpServers":{}})", "x").empty());
}

}  // namespace

namespace {

TEST(ServerConfigMode, AutoModeFallsBackToLegacySse) {
    mcph::Json entry = mcph::parse_json(R"({"type":"http","url":"https://x.test/mcp","mode":"auto"})");
    auto config = mcph::config::parse_server_config("s", entry);
    EXPECT_TRUE(config.auto_fallback_to_sse);
    auto legacy = mcph::config::as_legacy_sse(config);
    EXPECT_EQ(legacy.type, "sse");
    EXPECT_FALSE(legacy.auto_fallback_to_sse);
    mcph::Json out = mcph::parse_json(legacy.config_json);
    EXPECT_STREQ(out["type"].GetString(), "sse");
    EXPECT_FALSE(out.HasMember("mode"));
    EXPECT_STREQ(out["url"].GetString(), "https://x.test/mcp");
}

TEST(ServerConfigMode, ModeIsValidated) {
    EXPECT_FALSE(mcph::config::parse_server_config("s", mcph::parse_json(R"({"type":"sse","url":"https://x","mode":"auto"})"))
                     .auto_fallback_to_sse);  // not ours to interpret outside http
    for (const char* bad : {R"({"type":"http","url":"https://x","mode":"fast"})",
                            R"({"type":"http","url":"https://x","mode":1})"}) {
        mcph::Json entry = mcph::parse_json(bad);
        try {
            mcph::config::parse_server_config("s", entry);
            ADD_FAILURE() << bad;
        } catch (const mcph::Error& e) {
            EXPECT_NE(std::string(e.what()).find("mode"), std::string::npos) << e.what();
        }
    }
}

TEST(ServerConfigAuth, OauthAndAuthSelectBackends) {
    auto oauth = mcph::config::parse_server_config("s", mcph::parse_json(R"({"url":"https://x","oauth":{"clientId":"c"}})"));
    EXPECT_EQ(oauth.auth_backend, "oauth");
    auto xaa = mcph::config::parse_server_config("s", mcph::parse_json(R"({"url":"https://x","oauth":{"xaa":true}})"));
    EXPECT_EQ(xaa.auth_backend, "xaa");
    auto custom = mcph::config::parse_server_config("s", mcph::parse_json(R"({"url":"https://x","auth":{"backend":"acme"}})"));
    EXPECT_EQ(custom.auth_backend, "acme");
    for (const char* bad : {R"({"url":"https://x","auth":{}})", R"({"url":"https://x","oauth":true})",
                            R"({"url":"https://x","oauth":{},"auth":{"backend":"a"}})", R"({"command":"c","oauth":{}})"}) {
        EXPECT_THROW(mcph::config::parse_server_config("s", mcph::parse_json(bad)), mcph::Error) << bad;
    }
}

}  // namespace

namespace {

TEST(ServerConfigXaa, DocumentLevelIdpReachesEveryXaaServer) {
    auto servers = mcph::config::parse_mcp_config(
        R"({"xaaIdp":{"issuer":"https://idp.test","clientId":"z"},"mcpServers":{
            "a":{"url":"https://a.test/mcp","oauth":{"xaa":true}},
            "b":{"url":"https://b.test/mcp","oauth":{"xaa":true,"idp":{"issuer":"https://own.test"}}},
            "c":{"url":"https://c.test/mcp","oauth":{"clientId":"x"}}}})",
        "test");
    ASSERT_EQ(servers.size(), 3u);
    EXPECT_STREQ(mcph::parse_json(servers[0].auth_config_json)["idp"]["issuer"].GetString(), "https://idp.test");
    EXPECT_STREQ(mcph::parse_json(servers[1].auth_config_json)["idp"]["issuer"].GetString(), "https://own.test");
    EXPECT_FALSE(mcph::parse_json(servers[2].auth_config_json).HasMember("idp"));
    EXPECT_THROW(mcph::config::parse_mcp_config(R"({"xaaIdp":1,"mcpServers":{}})", "t"), mcph::Error);
}

}  // namespace
