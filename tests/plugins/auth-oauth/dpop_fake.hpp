// A scripted DPoP (RFC 9449) authorization server and MCP resource server on one loopback origin
// (the transport-http tests' Beast server underneath). Both check every proof the way a strict
// server would — the signature with the public key from the proof's own jwk (OpenSSL), typ, alg,
// htm, htu, iat, ath, the token's key binding (jkt) and jti replay — and can demand nonces
// (use_dpop_nonce). A small client loop (send_mcp) plays the transport: headers from the plugin's
// get_headers_ex, a real HTTP POST, handle_challenge_ex on a 401 and one retry.
#pragma once

#include "fake_server.hpp"

#include <mcph/plugin_api.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace oauth_test {

// A DPoP proof taken apart and checked (independently of the plugin's code).
struct CheckedProof {
    bool valid = false;
    std::string error;  // why not valid
    std::string jti, htm, htu, ath, nonce, thumbprint;
    long long iat = 0;
    std::string header_json, claims_json;
};
CheckedProof check_proof(const std::string& proof, const std::string& method, const std::string& url,
                         const std::string& access_token);

struct DpopServerOptions {
    std::vector<std::string> dpop_algs{"ES256"};  // AS metadata; empty: not advertised
    bool as_nonce = false;         // the token endpoint demands nonce "as-nonce-1"
    bool as_nonce_rotates = false; // ...and answers use_dpop_nonce with a new nonce every time
    bool rs_nonce = false;         // /mcp demands nonce "rs-nonce-1"
    long expires_in = 3600;
};

class DpopServer {
public:
    explicit DpopServer(DpopServerOptions options = {});
    std::string origin() const;
    std::string mcp_url() const { return origin() + "/mcp"; }
    std::string token_url() const { return origin() + "/token"; }
    std::string prm_url() const { return origin() + "/.well-known/oauth-protected-resource/mcp"; }

    std::atomic<int> token_requests{0}, authorizations{0}, mcp_requests{0}, mcp_ok{0};
    std::vector<CheckedProof> token_proofs();  // every token request's proof, in order
    std::vector<CheckedProof> mcp_proofs();
    std::vector<std::string> errors();         // every proof a server refused, with the reason
    std::vector<std::string> issued_tokens();
    std::string last_token_type_issued();

    http_test::FakeServer server;

private:
    void handle(http_test::Exchange& ex);
    void token(http_test::Exchange& ex);
    void mcp(http_test::Exchange& ex);
    DpopServerOptions o_;
    std::mutex mutex_;
    std::vector<CheckedProof> token_proofs_, mcp_proofs_;
    std::vector<std::string> errors_, tokens_;
    std::map<std::string, std::string> token_jkt_;  // access token → thumbprint it is bound to
    std::set<std::string> jtis_;
    std::string last_type_;
    int counter_ = 0;
};

// What a transport does for one POST to `url`: headers from the plugin (get_headers_ex, `flags`),
// the request, and on 401/403 handle_challenge_ex with the whole response and one retry.
struct McpExchange {
    mcph_status header_status = MCPH_OK;
    std::string header_error;
    long status = 0;  // final HTTP status (0: never sent)
    int attempts = 0;
    std::vector<std::pair<std::string, std::string>> sent;  // the last request's auth headers
    mcph_status challenge_status = MCPH_OK;
    std::string challenge_error;
};
McpExchange send_mcp(mcph_auth* auth, const std::string& url, uint32_t flags = 0);

// A bare HTTP POST with these headers: status, response headers (lower-cased names).
long post_with(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
               std::map<std::string, std::string>* response_headers = nullptr);

}  // namespace oauth_test
