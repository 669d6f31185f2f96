// Scope selection (challenge > PRM scopes_supported > omitted), offline_access, union, config.
#include "config.hpp"
#include "scopes.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

using namespace mcph::oauth;
using S = std::vector<std::string>;

TEST(Scopes, SelectionOrder) {
    S prm{"p1", "p2"}, as{"p1", "offline_access"}, none;
    std::optional<S> no_override, override_scopes = S{"o"};
    ScopeInputs in;
    in.config_override = &no_override;
    in.resource_scopes = &prm;
    in.server_scopes = &none;
    in.challenge_scope = "c1 c2";
    EXPECT_EQ(select_scopes(in), (S{"c1", "c2"}));
    in.challenge_scope = "";
    EXPECT_EQ(select_scopes(in), prm);
    in.resource_scopes = &none;
    EXPECT_EQ(select_scopes(in), S{});  // omitted entirely
    in.config_override = &override_scopes;
    in.challenge_scope = "c1";
    EXPECT_EQ(select_scopes(in), S{"o"});
}

TEST(Scopes, OfflineAccessOnlyWhenAdvertised) {
    S prm{"mcp:basic"}, with{"mcp:basic", "offline_access"}, without{"mcp:basic"}, none;
    std::optional<S> no_override;
    ScopeInputs in;
    in.config_override = &no_override;
    in.resource_scopes = &prm;
    in.server_scopes = &with;
    EXPECT_EQ(select_scopes(in), (S{"mcp:basic", "offline_access"}));
    in.server_scopes = &without;
    EXPECT_EQ(select_scopes(in), (S{"mcp:basic"}));
    in.server_scopes = &with;
    in.want_refresh_token = false;
    EXPECT_EQ(select_scopes(in), (S{"mcp:basic"}));
    in.want_refresh_token = true;
    in.resource_scopes = &none;  // nothing to add it to
    EXPECT_EQ(select_scopes(in), S{});
}

TEST(Scopes, SplitJoinUnion) {
    EXPECT_EQ(split_scopes("  a b\ta  c "), (S{"a", "b", "c"}));
    EXPECT_EQ(join_scopes({"a", "b"}), "a b");
    EXPECT_EQ(union_scopes({"a", "b"}, {"b", "c"}), (S{"a", "b", "c"}));
}

TEST(Config, ParsesAndValidates) {
    auto c = parse_config(R"({"clientId":"id","callbackPort":8123,"scopes":"a b","grant":"authorization_code",
                              "authTimeoutMs":500,"clientMetadataUrl":"https://app.example/client.json"})");
    EXPECT_EQ(c.client_id, "id");
    EXPECT_EQ(c.callback_port, 8123);
    EXPECT_EQ(c.callback_path, "/callback");
    EXPECT_EQ(*c.scopes, (S{"a", "b"}));
    EXPECT_EQ(c.auth_timeout_ms, 500);
    EXPECT_EQ(parse_config("{}").grant, Grant::authorization_code);
    EXPECT_EQ(parse_config("").callback_port, 0);
    for (const char* bad : {"[]", R"({"callbackPort":70000})", R"({"grant":"password"})",
                            R"({"clientMetadataUrl":"http://app.example/c.json"})", R"({"callbackPath":"cb"})",
                            R"({"grant":"client_credentials"})", R"({"grant":"client_credentials","clientId":"x"})",
                            R"({"tokenEndpointAuthMethod":"magic"})", R"({"authTimeoutMs":-1})"}) {
        try {
            parse_config(bad);
            ADD_FAILURE() << bad;
        } catch (const mcph::plugin::Error& e) {
            EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT) << bad;
        }
    }
}
