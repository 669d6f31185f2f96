#include "fake_xaa.hpp"

#include "encoding.hpp"
#include "url.hpp"

#include <chrono>

namespace xaa_test {

using mcph::oauth::parse_query;

std::string fake_jwt(const std::string& payload_json) {
    return mcph::oauth::base64url_encode(R"({"alg":"none","typ":"JWT"})") + "." +
           mcph::oauth::base64url_encode(payload_json) + ".sig";
}

FakeXaa::FakeXaa(FakeXaaOptions options) : o_(std::move(options)) {
    server.on([this](http_test::Exchange& ex) { handle(ex); });
}

std::string FakeXaa::origin() const { return "http://127.0.0.1:" + std::to_string(server.port()); }

std::string FakeXaa::spelled(IssuerSpelling s) const {
    switch (s) {
        case IssuerSpelling::absent: return "";
        case IssuerSpelling::exact: return idp_issuer();
        case IssuerSpelling::trailing_slash: return idp_issuer() + "/";
        case IssuerSpelling::upper_scheme: return "HTTP" + idp_issuer().substr(4);
        case IssuerSpelling::other: return origin() + "/other-idp";
        case IssuerSpelling::empty: return "";
    }
    return "";
}

std::map<std::string, std::string> FakeXaa::last_exchange_form() {
    std::lock_guard<std::mutex> g(mutex_);
    return exchange_form_;
}
std::map<std::string, std::string> FakeXaa::last_grant_form() {
    std::lock_guard<std::mutex> g(mutex_);
    return grant_form_;
}
std::string FakeXaa::last_grant_authorization() {
    std::lock_guard<std::mutex> g(mutex_);
    return grant_authorization_;
}
std::vector<std::string> FakeXaa::other_endpoint_subjects() {
    std::lock_guard<std::mutex> g(mutex_);
    return other_endpoint_subjects_;
}

std::vector<std::string> FakeXaa::issued() {
    std::lock_guard<std::mutex> g(mutex_);
    return issued_;
}

void FakeXaa::handle(http_test::Exchange& ex) {
    const auto& rq = ex.request;
    const std::string path = rq.target.substr(0, rq.target.find('?'));
    const std::string query = rq.target.find('?') == std::string::npos ? "" : rq.target.substr(rq.target.find('?') + 1);
    const http_test::Headers json_type{{"Content-Type", "application/json"}};
    if (path == "/.well-known/oauth-protected-resource/mcp") {
        ex.json("{\"resource\":\"" + mcp_url() + "\",\"authorization_servers\":[\"" + origin() +
                "\"],\"scopes_supported\":[\"mcp:read\"]}");
        return;
    }
    if (path == "/.well-known/oauth-authorization-server") {
        std::string methods;
        for (const auto& m : o_.as_auth_methods) methods += (methods.empty() ? "\"" : ",\"") + m + "\"";
        ex.json("{\"issuer\":\"" + origin() + "\",\"token_endpoint\":\"" + origin() +
                "/token\",\"grant_types_supported\":[\"urn:ietf:params:oauth:grant-type:jwt-bearer\"]," +
                "\"token_endpoint_auth_methods_supported\":[" + methods + "]}");
        return;
    }
    if (path == "/idp/.well-known/openid-configuration") {
        ++idp_metadata_fetches;
        std::string doc = "{";
        if (o_.metadata_issuer != IssuerSpelling::absent) doc += "\"issuer\":\"" + spelled(o_.metadata_issuer) + "\",";
        if (o_.advertise_iss_parameter) doc += "\"authorization_response_iss_parameter_supported\":true,";
        ex.json(doc + "\"authorization_endpoint\":\"" + idp_issuer() + "/authorize\",\"token_endpoint\":\"" +
                idp_issuer() + "/token\"}");
        return;
    }
    if (path == "/idp/authorize") {
        ++idp_logins;
        auto q = parse_query(query);
        std::string code;
        {
            std::lock_guard<std::mutex> g(mutex_);
            code = "idp-code-" + std::to_string(++counter_);
            nonces_[code] = q["nonce"];
        }
        std::string location = q["redirect_uri"] + "?state=" + mcph::oauth::form_encode(q["state"]);
        if (o_.callback_error_description.empty()) location += "&code=" + code;
        else location += "&error=access_denied&error_description=" + mcph::oauth::form_encode(o_.callback_error_description);
        if (o_.callback_iss != IssuerSpelling::absent) location += "&iss=" + mcph::oauth::form_encode(spelled(o_.callback_iss));
        ex.respond(302, "", {{"Location", location}});
        return;
    }
    if ((path == "/idp/token" || path == "/idp/other-token") && rq.method == "POST") {
        auto f = parse_query(rq.body);
        if (path == "/idp/other-token" && f.count("subject_token")) {
            std::lock_guard<std::mutex> g(mutex_);
            other_endpoint_subjects_.push_back(f["subject_token"]);
        }
        if (f["grant_type"] == "authorization_code") {
            ++idp_code_grants;
            std::string nonce;
            {
                std::lock_guard<std::mutex> g(mutex_);
                nonce = nonces_[f["code"]];
            }
            const long exp = static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(
                                                   std::chrono::system_clock::now().time_since_epoch())
                                                   .count()) +
                             3600;
            std::string iss;
            if (o_.id_token_iss != IssuerSpelling::absent) iss = "\"iss\":\"" + spelled(o_.id_token_iss) + "\",";
            std::string idt = fake_jwt("{" + iss + "\"sub\":\"alice\",\"nonce\":\"" + nonce +
                                       "\",\"exp\":" + std::to_string(exp) + "}");
            {
                std::lock_guard<std::mutex> g(mutex_);
                issued_.push_back(idt);
            }
            ex.json("{\"id_token\":\"" + idt + "\",\"access_token\":\"idp-at\",\"token_type\":\"Bearer\"}");
            return;
        }
        ++exchanges;
        {
            std::lock_guard<std::mutex> g(mutex_);
            exchange_form_ = f;
        }
        if (!o_.rejected_subject.empty() && f["subject_token"] == o_.rejected_subject) {
            ex.respond(400, "{\"error\":\"invalid_grant\",\"error_description\":\"id_token expired\"}", json_type);
            return;
        }
        std::string jag;
        {
            std::lock_guard<std::mutex> g(mutex_);
            jag = "jag-" + std::to_string(++counter_);
            issued_.push_back(jag);
        }
        ex.json("{\"access_token\":\"" + jag +
                "\",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:id-jag\",\"token_type\":\"N_A\"," +
                "\"expires_in\":300}");
        return;
    }
    if (path == "/token" && rq.method == "POST") {
        ++jwt_bearer_grants;
        auto f = parse_query(rq.body);
        std::string token;
        {
            std::lock_guard<std::mutex> g(mutex_);
            grant_form_ = f;
            grant_authorization_ = rq.header("authorization");
            token = "at-" + std::to_string(++counter_);
            issued_.push_back(token);
        }
        ex.json("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":" +
                std::to_string(o_.expires_in) + "}");
        return;
    }
    ex.respond(404, "{\"error\":\"not_found\"}", json_type);
}

}  // namespace xaa_test
