#include "fake_as.hpp"

#include "encoding.hpp"
#include "pkce.hpp"
#include "url.hpp"

#include <thread>

namespace oauth_test {

using mcph::oauth::parse_query;

namespace {
std::string json_list(const std::vector<std::string>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + v[i] + "\"";
    return out + "]";
}
}  // namespace

FakeAs::FakeAs(FakeAsOptions options) : o_(std::move(options)) {
    server.on([this](http_test::Exchange& ex) { handle(ex); });
}

std::string FakeAs::origin() const { return "http://127.0.0.1:" + std::to_string(server.port()); }

std::map<std::string, std::string> FakeAs::last_authorize() {
    std::lock_guard<std::mutex> g(mutex_);
    return authorize_;
}
std::map<std::string, std::string> FakeAs::last_token_form() {
    std::lock_guard<std::mutex> g(mutex_);
    return token_form_;
}
std::string FakeAs::last_token_authorization() {
    std::lock_guard<std::mutex> g(mutex_);
    return token_authorization_;
}
std::string FakeAs::last_registration_body() {
    std::lock_guard<std::mutex> g(mutex_);
    return registration_body_;
}
std::vector<std::string> FakeAs::issued_tokens() {
    std::lock_guard<std::mutex> g(mutex_);
    return tokens_;
}

void FakeAs::set_authorization_server(const std::string& issuer) {
    std::lock_guard<std::mutex> g(mutex_);
    o_.authorization_server = issuer;
}
void FakeAs::fail_jwt_bearer(int n, const std::string& code) {
    std::lock_guard<std::mutex> g(mutex_);
    jwt_failures_ = n;
    jwt_failure_code_ = code;
}
std::vector<std::string> FakeAs::assertions() {
    std::lock_guard<std::mutex> g(mutex_);
    return assertions_;
}

void FakeAs::handle(http_test::Exchange& ex) {
    const auto& rq = ex.request;
    std::string path = rq.target.substr(0, rq.target.find('?'));
    std::string query = rq.target.find('?') == std::string::npos ? "" : rq.target.substr(rq.target.find('?') + 1);
    if (path == "/.well-known/oauth-protected-resource/mcp") {
        std::string as;
        {
            std::lock_guard<std::mutex> g(mutex_);
            as = o_.authorization_server.empty() ? origin() : o_.authorization_server;
        }
        std::string resource = o_.prm_has_resource
                                   ? "\"resource\":\"" + (o_.prm_resource.empty() ? mcp_url() : o_.prm_resource) + "\","
                                   : "";
        ex.json("{" + resource + "\"authorization_servers\":[\"" + as + "\"],\"scopes_supported\":[\"mcp:read\"]}");
        return;
    }
    if (path == "/.well-known/oauth-authorization-server" && o_.as_metadata) {
        std::string issuer = o_.metadata_issuer.empty() ? origin() : o_.metadata_issuer;
        std::string m = "{\"issuer\":\"" + issuer + "\",\"authorization_endpoint\":\"" + origin() +
                        "/authorize\",\"token_endpoint\":\"" + origin() + "/token\"";
        if (o_.dcr) m += ",\"registration_endpoint\":\"" + origin() + "/register\"";
        if (o_.pkce_s256) m += ",\"code_challenge_methods_supported\":[\"S256\"]";
        m += ",\"token_endpoint_auth_methods_supported\":" + json_list(o_.auth_methods);
        if (!o_.scopes_supported.empty()) m += ",\"scopes_supported\":" + json_list(o_.scopes_supported);
        if (o_.iss_supported) m += ",\"authorization_response_iss_parameter_supported\":true";
        if (!o_.grant_types.empty()) m += ",\"grant_types_supported\":" + o_.grant_types;
        ex.json(m + "}");
        return;
    }
    if (path == "/register" && rq.method == "POST") {
        ++registrations;
        {
            std::lock_guard<std::mutex> g(mutex_);
            registration_body_ = rq.body;
        }
        ex.respond(201, "{\"client_id\":\"" + o_.registered_client_id + "\",\"token_endpoint_auth_method\":\"none\"}",
                   {{"Content-Type", "application/json"}});
        return;
    }
    if (path == "/authorize") {
        ++authorizations;
        auto q = parse_query(query);
        std::string code;
        {
            std::lock_guard<std::mutex> g(mutex_);
            authorize_ = q;
            code = "code-" + std::to_string(++counter_);
            challenges_[code] = q["code_challenge"];
        }
        std::string location = q["redirect_uri"] + "?state=" + mcph::oauth::form_encode(q["state"]);
        location += o_.authorize_error.empty() ? "&code=" + code
                                               : "&error=" + o_.authorize_error +
                                                     "&error_description=" + mcph::oauth::form_encode("AS-WROTE-THIS");
        if (o_.iss_mode == "correct") location += "&iss=" + mcph::oauth::form_encode(origin());
        else if (o_.iss_mode == "normalized") location += "&iss=" + mcph::oauth::form_encode(origin() + "/");
        else if (o_.iss_mode == "wrong") location += "&iss=" + mcph::oauth::form_encode("https://accounts.google.com");
        else if (o_.iss_mode == "empty") location += "&iss=";
        ex.respond(302, "", {{"Location", location}});
        return;
    }
    if (path == "/token" && rq.method == "POST") {
        auto f = parse_query(rq.body);
        {
            std::lock_guard<std::mutex> g(mutex_);
            token_form_ = f;
            token_authorization_ = rq.header("authorization");
        }
        std::string grant = f["grant_type"];
        if (grant == "refresh_token") {
            ++refreshes;
            std::this_thread::sleep_for(o_.refresh_delay);
            if (o_.refresh_mode == "invalid_refresh_token") {
                ex.json("{\"ok\":false,\"error\":\"invalid_refresh_token\"}");
                return;
            }
        } else if (grant == "authorization_code") {
            ++code_exchanges;
            std::lock_guard<std::mutex> g(mutex_);
            if (mcph::oauth::pkce_challenge(f["code_verifier"]) != challenges_[f["code"]]) {
                ex.respond(400, "{\"error\":\"invalid_grant\",\"error_description\":\"PKCE\"}",
                           {{"Content-Type", "application/json"}});
                return;
            }
        } else if (grant == "client_credentials") {
            ++client_credentials;
        } else if (grant == "urn:ietf:params:oauth:grant-type:jwt-bearer") {
            ++jwt_bearers;
            std::lock_guard<std::mutex> g(mutex_);
            assertions_.push_back(f["assertion"]);
            if (jwt_failures_ > 0) {
                --jwt_failures_;
                ex.respond(400, "{\"error\":\"" + jwt_failure_code_ + "\",\"error_description\":\"AS-WROTE-THIS\"}",
                           {{"Content-Type", "application/json"}});
                return;
            }
        }
        if (o_.token_mode == "html") {
            ex.respond(200, "<html><body>Sign in</body></html>", {{"Content-Type", "text/html; charset=utf-8"}});
            return;
        }
        if (o_.token_mode == "error200") {
            ex.json("{\"ok\":false,\"error\":\"invalid_client\",\"error_description\":\"no such app\"}");
            return;
        }
        std::string token;
        {
            std::lock_guard<std::mutex> g(mutex_);
            token = "at-" + std::to_string(++counter_);
            tokens_.push_back(token);
        }
        ex.json("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":" +
                std::to_string(o_.expires_in) + (o_.refresh_tokens ? ",\"refresh_token\":\"rt-" + token + "\"" : "") +
                (f.count("scope") ? ",\"scope\":\"" + f["scope"] + "\"" : "") + "}");
        return;
    }
    ex.respond(404, "{\"error\":\"not_found\"}", {{"Content-Type", "application/json"}});
}

}  // namespace oauth_test
