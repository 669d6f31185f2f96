#include "dpop_fake.hpp"

#include "encoding.hpp"
#include "jwt_verify.hpp"
#include "pkce.hpp"
#include "test_host.hpp"
#include "url.hpp"

#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>

namespace oauth_test {

using mcph::oauth::base64url_decode;
using mcph::oauth::base64url_encode;
using mcph::oauth::parse_query;
using mcph::oauth::sha256;

namespace {

std::string str_member(const rapidjson::Value& v, const char* name) {
    auto it = v.FindMember(name);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
}

// The P-256 public key of a JWK as PEM (SubjectPublicKeyInfo), "" when unusable.
std::string jwk_public_pem(const std::string& x64, const std::string& y64) {
    auto x = base64url_decode(x64), y = base64url_decode(y64);
    if (!x || !y || x->size() != 32 || y->size() != 32) return {};
    std::string point = "\x04" + *x + *y;
    OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
    OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
    EVP_PKEY* key = nullptr;
    std::string pem;
    if (ctx && EVP_PKEY_fromdata_init(ctx) == 1 && EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) == 1) {
        BIO* b = BIO_new(BIO_s_mem());
        PEM_write_bio_PUBKEY(b, key);
        char* data = nullptr;
        long n = BIO_get_mem_data(b, &data);
        pem.assign(data, static_cast<size_t>(n));
        BIO_free(b);
    }
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return pem;
}

long long now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

CheckedProof check_proof(const std::string& proof, const std::string& method, const std::string& url,
                         const std::string& access_token) {
    CheckedProof p;
    auto bad = [&](const std::string& why) {
        p.error = why;
        return p;
    };
    if (proof.empty()) return bad("no DPoP header");
    size_t d1 = proof.find('.'), d2 = proof.rfind('.');
    if (d1 == std::string::npos || d1 == d2) return bad("not a compact JWS");
    auto header = base64url_decode(proof.substr(0, d1));
    auto claims = base64url_decode(proof.substr(d1 + 1, d2 - d1 - 1));
    if (!header || !claims) return bad("bad base64url");
    p.header_json = *header;
    p.claims_json = *claims;
    rapidjson::Document h, c;
    if (h.Parse(header->c_str()).HasParseError() || !h.IsObject()) return bad("header is not JSON");
    if (c.Parse(claims->c_str()).HasParseError() || !c.IsObject()) return bad("claims are not JSON");
    if (str_member(h, "typ") != "dpop+jwt") return bad("typ is not dpop+jwt");
    if (str_member(h, "alg") != "ES256") return bad("alg is not ES256");
    auto jwk = h.FindMember("jwk");
    if (jwk == h.MemberEnd() || !jwk->value.IsObject()) return bad("no jwk");
    if (jwk->value.HasMember("d")) return bad("jwk carries the private key");
    if (str_member(jwk->value, "kty") != "EC" || str_member(jwk->value, "crv") != "P-256") return bad("jwk is not P-256");
    std::string x = str_member(jwk->value, "x"), y = str_member(jwk->value, "y");
    std::string pem = jwk_public_pem(x, y);
    if (pem.empty()) return bad("jwk is not a P-256 point");
    if (!verify_es256(proof, pem, nullptr)) return bad("signature does not verify with the embedded jwk");
    // RFC 7638: required members in lexicographic order.
    p.thumbprint = base64url_encode(sha256("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"" + x + "\",\"y\":\"" + y + "\"}"));
    p.jti = str_member(c, "jti");
    p.htm = str_member(c, "htm");
    p.htu = str_member(c, "htu");
    p.ath = str_member(c, "ath");
    p.nonce = str_member(c, "nonce");
    if (auto it = c.FindMember("iat"); it != c.MemberEnd() && it->value.IsInt64()) p.iat = it->value.GetInt64();
    if (p.jti.size() < 16) return bad("jti missing or short");
    if (p.htm != method) return bad("htm " + p.htm + " is not " + method);
    if (p.htu != url) return bad("htu " + p.htu + " is not " + url);
    if (std::llabs(now() - p.iat) > 60) return bad("iat is not now");
    if (access_token.empty() ? !p.ath.empty() : p.ath != base64url_encode(sha256(access_token)))
        return bad("ath does not match the access token");
    p.valid = true;
    return p;
}

DpopServer::DpopServer(DpopServerOptions options) : o_(std::move(options)) {
    server.on([this](http_test::Exchange& ex) { handle(ex); });
}

std::string DpopServer::origin() const { return "http://127.0.0.1:" + std::to_string(server.port()); }

std::vector<CheckedProof> DpopServer::token_proofs() {
    std::lock_guard<std::mutex> g(mutex_);
    return token_proofs_;
}
std::vector<CheckedProof> DpopServer::mcp_proofs() {
    std::lock_guard<std::mutex> g(mutex_);
    return mcp_proofs_;
}
std::vector<std::string> DpopServer::errors() {
    std::lock_guard<std::mutex> g(mutex_);
    return errors_;
}
std::vector<std::string> DpopServer::issued_tokens() {
    std::lock_guard<std::mutex> g(mutex_);
    return tokens_;
}
std::string DpopServer::last_token_type_issued() {
    std::lock_guard<std::mutex> g(mutex_);
    return last_type_;
}

void DpopServer::handle(http_test::Exchange& ex) {
    const auto& rq = ex.request;
    std::string path = rq.target.substr(0, rq.target.find('?'));
    std::string query = rq.target.find('?') == std::string::npos ? "" : rq.target.substr(rq.target.find('?') + 1);
    if (path == "/.well-known/oauth-protected-resource/mcp") {
        ex.json("{\"resource\":\"" + mcp_url() + "\",\"authorization_servers\":[\"" + origin() + "\"]}");
        return;
    }
    if (path == "/.well-known/oauth-authorization-server") {
        std::string m = "{\"issuer\":\"" + origin() + "\",\"authorization_endpoint\":\"" + origin() +
                        "/authorize\",\"token_endpoint\":\"" + token_url() + "\",\"registration_endpoint\":\"" +
                        origin() + "/register\",\"code_challenge_methods_supported\":[\"S256\"]," +
                        "\"token_endpoint_auth_methods_supported\":[\"none\"]";
        if (!o_.dpop_algs.empty()) {
            m += ",\"dpop_signing_alg_values_supported\":[";
            for (size_t i = 0; i < o_.dpop_algs.size(); ++i) m += (i ? ",\"" : "\"") + o_.dpop_algs[i] + "\"";
            m += "]";
        }
        ex.json(m + "}");
        return;
    }
    if (path == "/register" && rq.method == "POST") {
        ex.respond(201, "{\"client_id\":\"dcr-client\",\"token_endpoint_auth_method\":\"none\"}",
                   {{"Content-Type", "application/json"}});
        return;
    }
    if (path == "/authorize") {
        ++authorizations;
        auto q = parse_query(query);
        ex.respond(302, "", {{"Location", q["redirect_uri"] + "?code=code-1&state=" + mcph::oauth::form_encode(q["state"])}});
        return;
    }
    if (path == "/token" && rq.method == "POST") return token(ex);
    if (path == "/mcp" && rq.method == "POST") return mcp(ex);
    ex.respond(404, "{\"error\":\"not_found\"}", {{"Content-Type", "application/json"}});
}

void DpopServer::token(http_test::Exchange& ex) {
    ++token_requests;
    auto f = parse_query(ex.request.body);
    const std::string header = ex.request.header("dpop");
    auto error = [&](const std::string& code, const std::string& why, const http_test::Headers& extra = {}) {
        http_test::Headers h = extra;
        h.emplace_back("Content-Type", "application/json");
        ex.respond(400, "{\"error\":\"" + code + "\",\"error_description\":\"" + why + "\"}", h);
    };
    std::string jkt;
    if (!header.empty()) {
        CheckedProof p = check_proof(header, "POST", token_url(), "");
        {
            std::lock_guard<std::mutex> g(mutex_);
            token_proofs_.push_back(p);
            if (!p.valid) errors_.push_back("token: " + p.error);
            else if (!jtis_.insert(p.jti).second) {
                errors_.push_back("token: replayed jti");
                p.valid = false;
            }
        }
        if (!p.valid) return error("invalid_dpop_proof", p.error);
        if (o_.as_nonce_rotates) {
            return error("use_dpop_nonce", "nonce required",
                         {{"DPoP-Nonce", "as-rotating-" + std::to_string(token_requests.load())}});
        }
        if (o_.as_nonce && p.nonce != "as-nonce-1") return error("use_dpop_nonce", "nonce required", {{"DPoP-Nonce", "as-nonce-1"}});
        jkt = p.thumbprint;
    }
    if (f["grant_type"] == "authorization_code" && f["code"] != "code-1") return error("invalid_grant", "code");
    std::string token, type = jkt.empty() ? "Bearer" : "DPoP";
    {
        std::lock_guard<std::mutex> g(mutex_);
        token = "at-" + std::to_string(++counter_);
        tokens_.push_back(token);
        if (!jkt.empty()) token_jkt_[token] = jkt;
        last_type_ = type;
    }
    ex.json("{\"access_token\":\"" + token + "\",\"token_type\":\"" + type + "\",\"expires_in\":" +
            std::to_string(o_.expires_in) + ",\"refresh_token\":\"rt-" + token + "\"}");
}

void DpopServer::mcp(http_test::Exchange& ex) {
    ++mcp_requests;
    const std::string authorization = ex.request.header("authorization");
    auto challenge = [&](const std::string& params, const http_test::Headers& extra = {}) {
        http_test::Headers h = extra;
        h.emplace_back("WWW-Authenticate", "DPoP " + params + (params.empty() ? "" : ", ") + "resource_metadata=\"" +
                                               prm_url() + "\"");
        h.emplace_back("Content-Type", "application/json");
        ex.respond(401, "{\"error\":\"unauthorized\"}", h);
    };
    if (authorization.rfind("DPoP ", 0) != 0) return challenge("");
    const std::string token = authorization.substr(5);
    CheckedProof p = check_proof(ex.request.header("dpop"), "POST", mcp_url(), token);
    bool replay = false, bound = false;
    {
        std::lock_guard<std::mutex> g(mutex_);
        mcp_proofs_.push_back(p);
        auto it = token_jkt_.find(token);
        bound = it != token_jkt_.end() && it->second == p.thumbprint;
        if (p.valid) replay = !jtis_.insert(p.jti).second;
        if (!p.valid) errors_.push_back("mcp: " + p.error);
        else if (replay) errors_.push_back("mcp: replayed jti");
        else if (!bound) errors_.push_back("mcp: proof key is not the token's key");
    }
    if (!p.valid || replay || !bound) return challenge("error=\"invalid_dpop_proof\"");
    if (o_.rs_nonce && p.nonce != "rs-nonce-1")
        return challenge("error=\"use_dpop_nonce\"", {{"DPoP-Nonce", "rs-nonce-1"}});
    ++mcp_ok;
    ex.json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
}

namespace {

size_t collect_body(char*, size_t size, size_t n, void*) { return size * n; }

size_t collect_header(char* data, size_t size, size_t n, void* user) {
    auto* out = static_cast<std::map<std::string, std::string>*>(user);
    std::string line(data, size * n);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
        while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
        (*out)[name] = value;
    }
    return size * n;
}

}  // namespace

long post_with(const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
               std::map<std::string, std::string>* response_headers) {
    std::map<std::string, std::string> seen;
    CURL* e = curl_easy_init();
    curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
    for (const auto& [n, v] : headers) list = curl_slist_append(list, (n + ": " + v).c_str());
    static const char kBody[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, kBody);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &seen);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
    long status = 0;
    if (curl_easy_perform(e) == CURLE_OK) curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(list);
    curl_easy_cleanup(e);
    if (response_headers) *response_headers = std::move(seen);
    return status;
}

McpExchange send_mcp(mcph_auth* auth, const std::string& url, uint32_t flags) {
    using mcph::plugin::str;
    const mcph_auth_vtable_v1* vt = auth_vtable();
    McpExchange out;
    for (int attempt = 0; attempt < 2; ++attempt) {
        mcph_auth_request rq{};
        rq.struct_size = sizeof rq;
        rq.method = str("POST");
        rq.url = str(url);
        std::vector<std::pair<std::string, std::string>> headers;
        mcph_header_sink sink{sizeof(mcph_header_sink), &headers, [](void* ud, mcph_str n, mcph_str v) {
                                  static_cast<std::vector<std::pair<std::string, std::string>>*>(ud)->emplace_back(
                                      std::string(mcph::plugin::view(n)), std::string(mcph::plugin::view(v)));
                              }};
        mcph_error err = mcph::plugin::make_error();
        out.header_status = vt->get_headers_ex(auth, &rq, flags, &sink, &err);
        if (out.header_status != MCPH_OK) {
            out.header_error = err.message;
            return out;
        }
        out.sent = headers;
        std::map<std::string, std::string> response;
        out.status = post_with(url, headers, &response);
        ++out.attempts;
        if (out.status != 401 && out.status != 403) return out;
        if (attempt == 1) return out;  // the transport retries once
        std::vector<std::pair<std::string, std::string>> kept(response.begin(), response.end());
        std::vector<mcph_header> c_headers;
        for (const auto& [n, v] : kept) c_headers.push_back(mcph_header{str(n), str(v)});
        std::string www = response["www-authenticate"];
        mcph_auth_request ch{};
        ch.struct_size = sizeof ch;
        ch.method = str("POST");
        ch.url = str(url);
        ch.http_status = static_cast<int>(out.status);
        ch.www_authenticate = str(www);
        ch.response_headers = c_headers.data();
        ch.response_header_count = c_headers.size();
        mcph_error cerr = mcph::plugin::make_error();
        out.challenge_status = vt->handle_challenge_ex(auth, &ch, &cerr);
        if (out.challenge_status != MCPH_OK) {
            out.challenge_error = cerr.message;
            return out;
        }
    }
    return out;
}

}  // namespace oauth_test
