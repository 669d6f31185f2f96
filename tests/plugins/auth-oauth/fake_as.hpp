// A scripted MCP resource + authorization server on one loopback origin (the transport-http
// tests' Beast server underneath). It serves protected resource metadata, RFC 8414 metadata,
// /register, /authorize (302 back to the redirect URI with code and state) and /token, and
// records what the client sent. Knobs select the failure each test needs.
#pragma once

#include "fake_server.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace oauth_test {

struct FakeAsOptions {
    bool dcr = true;
    bool pkce_s256 = true;
    std::vector<std::string> auth_methods{"none"};
    std::vector<std::string> scopes_supported;  // AS metadata scopes_supported (empty: absent)
    std::string prm_resource;                   // "" = the server URL
    std::string authorization_server;           // "" = this origin
    std::string token_mode = "ok";              // ok | html | error200
    std::string refresh_mode = "ok";            // ok | invalid_refresh_token
    long expires_in = 3600;
    bool refresh_tokens = true;                 // false: token responses carry no refresh_token
    std::chrono::milliseconds refresh_delay{0};
    bool prm_has_resource = true;               // false: a PRM without `resource`
    bool as_metadata = true;                    // false: no RFC 8414 / OIDC document (404)
    std::string metadata_issuer;                // "" = this origin; else what the metadata claims
    bool iss_supported = false;                 // advertise authorization_response_iss_parameter_supported
    std::string iss_mode = "omit";              // omit | correct | wrong | normalized | empty (redirect `iss`)
    std::string authorize_error;                // "" = issue a code; else redirect with this error
    std::string registered_client_id = "dcr-client";
    std::string grant_types;                    // "" = absent; else a JSON array for grant_types_supported
};

class FakeAs {
public:
    explicit FakeAs(FakeAsOptions options = {});
    std::string origin() const;
    std::string mcp_url() const { return origin() + "/mcp"; }
    std::string prm_url() const { return origin() + "/.well-known/oauth-protected-resource/mcp"; }

    std::atomic<int> registrations{0}, authorizations{0}, code_exchanges{0}, refreshes{0}, client_credentials{0},
        jwt_bearers{0};
    std::map<std::string, std::string> last_authorize();
    std::map<std::string, std::string> last_token_form();
    std::string last_token_authorization();
    std::string last_registration_body();
    std::vector<std::string> issued_tokens();
    // The PRM's authorization server from now on ("" = this origin): an AS migration.
    void set_authorization_server(const std::string& issuer);
    // The token endpoint answers the next `n` jwt-bearer requests with {"error": code}.
    void fail_jwt_bearer(int n, const std::string& code);
    std::vector<std::string> assertions();  // every jwt-bearer assertion received

    http_test::FakeServer server;

private:
    void handle(http_test::Exchange& ex);
    FakeAsOptions o_;
    std::mutex mutex_;
    std::map<std::string, std::string> authorize_, token_form_;
    std::string token_authorization_, registration_body_;
    std::vector<std::string> tokens_;
    std::vector<std::string> assertions_;
    int jwt_failures_ = 0;
    std::string jwt_failure_code_;
    std::map<std::string, std::string> challenges_;  // code → code_challenge
    int counter_ = 0;
};

}  // namespace oauth_test
