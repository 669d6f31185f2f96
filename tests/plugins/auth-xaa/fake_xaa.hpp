// A scripted MCP resource + authorization server + enterprise IdP on one loopback origin (the
// transport-http tests' Beast server underneath). The AS lives at the origin, the IdP under
// /idp. It records the token-exchange form sent to the IdP and the jwt-bearer request sent to
// the AS, so the tests can check every parameter.
#pragma once

#include "fake_server.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace xaa_test {

// How the IdP spells its issuer in one place (OpenID configuration, callback `iss`, id_token
// `iss`), relative to idp_issuer().
enum class IssuerSpelling {
    absent,          // the member / parameter / claim is left out
    exact,           // idp_issuer()
    trailing_slash,  // idp_issuer() + "/"
    upper_scheme,    // "HTTP://127.0.0.1:<port>/idp"
    other,           // origin() + "/other-idp" (another issuer on the same origin)
    empty,           // present with an empty value ("iss=")
};

struct FakeXaaOptions {
    long expires_in = 3600;
    std::vector<std::string> as_auth_methods{"client_secret_basic"};
    std::string rejected_subject;  // the IdP answers invalid_grant for this subject_token
    IssuerSpelling metadata_issuer = IssuerSpelling::exact;
    bool advertise_iss_parameter = false;  // authorization_response_iss_parameter_supported: true
    IssuerSpelling callback_iss = IssuerSpelling::absent;
    IssuerSpelling id_token_iss = IssuerSpelling::exact;
    // The authorization callback is an error (access_denied) with this error_description.
    std::string callback_error_description;
};

// An unsigned JWT (alg none) with these claims — enough for claim reading.
std::string fake_jwt(const std::string& payload_json);

class FakeXaa {
public:
    explicit FakeXaa(FakeXaaOptions options = {});
    std::string origin() const;
    std::string mcp_url() const { return origin() + "/mcp"; }
    std::string prm_url() const { return origin() + "/.well-known/oauth-protected-resource/mcp"; }
    std::string idp_issuer() const { return origin() + "/idp"; }

    std::string spelled(IssuerSpelling s) const;  // "" for absent

    // idp_logins: requests to /idp/authorize; idp_code_grants: authorization_code requests at the
    // IdP token endpoint; exchanges: ID-JAG requests (token exchange); jwt_bearer_grants: the AS.
    std::atomic<int> idp_metadata_fetches{0}, idp_logins{0}, idp_code_grants{0}, exchanges{0}, jwt_bearer_grants{0};
    std::map<std::string, std::string> last_exchange_form();
    std::map<std::string, std::string> last_grant_form();
    std::string last_grant_authorization();
    std::vector<std::string> issued();  // every token and ID-JAG handed out
    // The subject_token of every request to /idp/other-token (an IdP token endpoint that a second
    // config names for the same issuer; it serves the same grants as /idp/token).
    std::vector<std::string> other_endpoint_subjects();

    http_test::FakeServer server;

private:
    void handle(http_test::Exchange& ex);
    FakeXaaOptions o_;
    std::mutex mutex_;
    std::map<std::string, std::string> exchange_form_, grant_form_;
    std::string grant_authorization_;
    std::vector<std::string> issued_;
    std::vector<std::string> other_endpoint_subjects_;
    std::map<std::string, std::string> nonces_;  // code → nonce
    int counter_ = 0;
};

}  // namespace xaa_test
