#include "xaa_auth.hpp"

#include "scopes.hpp"
#include "www_authenticate.hpp"
#include "xaa_requests.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph::xaa {

using oauth::FailureKind;
using oauth::OAuthError;
using oauth::StoredTokens;
using oauth::expires_within;
using oauth::now_seconds;

XaaAuth::XaaAuth(const mcph::plugin::AuthContext& ctx)
    : host_(ctx.host),
      name_(ctx.server_name),
      server_url_(ctx.server_url),
      config_(parse_config(ctx.config_json)),
      http_(ctx.host, std::string(ctx.server_url), config_.http_timeout_ms),
      // "xaa" in the key: never the record of an "oauth" config for the same server.
      store_(ctx.host, oauth::store_key_base(std::string("xaa:") + std::string(ctx.server_name), ctx.server_url,
                                             config_.client_id)) {
    if (server_url_.empty()) throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "xaa: the server has no URL");
}

void XaaAuth::log(mcph_log_level level, const std::string& message) const {
    if (!host_ || !host_->log) return;
    std::string source = "xaa:" + name_;
    host_->log(host_->host_data, level, mcph::plugin::str(source), mcph::plugin::str(message));
}

void XaaAuth::install(const StoredTokens& t) {
    std::lock_guard<std::mutex> g(mu_);
    tokens_ = t;
    ++generation_;
    issued_at_ = std::chrono::steady_clock::now();
    last_kind_ = FailureKind::none;
    last_message_.clear();
}

void XaaAuth::forget_tokens() {
    {
        std::lock_guard<std::mutex> g(mu_);
        tokens_.reset();
        ++generation_;
    }
    try {
        store_.erase_tokens();
    } catch (const std::exception& e) {
        log(MCPH_LOG_WARN, std::string("cannot erase stored tokens: ") + e.what());
    }
}

void XaaAuth::record_failure(FailureKind kind, const std::string& message) {
    log(MCPH_LOG_WARN, message);  // messages never contain tokens or secrets
    std::lock_guard<std::mutex> g(mu_);
    last_kind_ = kind;
    last_message_ = message;
}

// The user's id_token: configured, else cached (shared by all XAA servers of this IdP and token
// endpoint), else an interactive sign-in whose result is cached for the others.
std::string XaaAuth::id_token(const IdpEndpoints& known, bool& from_cache, const oauth::CancelScope& cancel) {
    from_cache = false;
    if (!config_.idp.id_token.empty()) return config_.idp.id_token;
    try {
        if (auto cached = load_id_token(store_, config_.idp, known.token_endpoint);
            cached && (cached->expires_at == 0 || cached->expires_at - now_seconds() > 30)) {
            from_cache = true;
            return cached->id_token;
        }
    } catch (const std::exception& e) {
        log(MCPH_LOG_WARN, std::string("cannot read the cached IdP sign-in: ") + e.what());
    }
    IdpEndpoints ep = !known.authorization_endpoint.empty() ? known : idp_endpoints(http_, config_.idp, true);
    CachedIdToken t = interactive_login(host_, http_, config_.idp, ep, config_.auth_timeout_ms,
                                        [this](mcph_log_level l, const std::string& m) { log(l, m); }, cancel);
    try {
        save_id_token(store_, config_.idp, ep.token_endpoint, t);
    } catch (const std::exception& e) {
        log(MCPH_LOG_WARN, std::string("cannot cache the IdP sign-in: ") + e.what());
    }
    return t.id_token;
}

StoredTokens XaaAuth::acquire(const std::string& resource_metadata_url, const std::string& scope_hint,
                              const std::optional<StoredTokens>& previous, bool rediscover,
                              const oauth::CancelScope& cancel) {
    oauth::TokenEndpoint ep;
    oauth::ClientIdentity client;
    std::string scope;
    if (previous && !rediscover && !previous->token_endpoint.empty() && !previous->issuer.empty()) {
        ep = {previous->token_endpoint, previous->issuer, previous->resource};
        client = previous->client;
        scope = previous->scope;
    } else {
        oauth::Discovery d = oauth::discover(http_, server_url_, resource_metadata_url);
        oauth::check_server(d.server, false);
        if (d.server.issuer.empty())
            throw OAuthError(FailureKind::metadata_invalid,
                             "the authorization server publishes no issuer, which the ID-JAG audience needs");
        static const std::vector<std::string> kNone;
        oauth::ScopeInputs in;
        in.config_override = &config_.scopes;
        in.challenge_scope = scope_hint;
        in.resource_scopes = d.resource_metadata ? &d.resource_metadata->scopes_supported : &kNone;
        in.server_scopes = &d.server.scopes_supported;
        in.want_refresh_token = false;
        std::vector<std::string> wanted = oauth::select_scopes(in);
        if (previous && !scope_hint.empty()) wanted = oauth::union_scopes(wanted, oauth::split_scopes(previous->scope));
        scope = oauth::join_scopes(wanted);
        ep = {d.server.token_endpoint, d.server.issuer, d.resource};
        client = as_client(config_, d.server);
    }

    IdpEndpoints idp = idp_endpoints(http_, config_.idp, false);
    bool from_cache = false;
    std::string subject = id_token(idp, from_cache, cancel);
    IdJag jag;
    try {
        jag = request_id_jag(http_, idp.token_endpoint, config_.idp, subject, ep.issuer, ep.resource, scope);
    } catch (const OAuthError& e) {
        if (!from_cache || e.oauth_code() != "invalid_grant") throw;
        // The cached sign-in is no longer accepted: sign in again once.
        log(MCPH_LOG_INFO, "the IdP no longer accepts the cached sign-in; signing in again");
        erase_id_token(store_, config_.idp, idp.token_endpoint);
        subject = id_token(idp, from_cache, cancel);
        jag = request_id_jag(http_, idp.token_endpoint, config_.idp, subject, ep.issuer, ep.resource, scope);
    }
    oauth::TokenResponse t = jwt_bearer_grant(http_, ep, client, jag.assertion, scope);

    StoredTokens s;
    s.access_token = t.access_token;
    s.refresh_token = t.refresh_token;  // kept, but refresh is a new exchange (the ID-JAG is one-shot)
    s.scope = t.scope.empty() ? scope : t.scope;
    s.expires_at = t.expires_in > 0 ? now_seconds() + t.expires_in : 0;
    s.token_endpoint = ep.url;
    s.issuer = ep.issuer;
    s.resource = ep.resource;
    s.client = client;
    store_.save_tokens(s);
    log(MCPH_LOG_INFO, "authorized with " + ep.issuer + " through the IdP " + config_.idp.issuer +
                           (s.scope.empty() ? "" : " for scope \"" + s.scope + "\""));
    return s;
}

void XaaAuth::cancel() noexcept { cancel_.cancel(); }

std::vector<std::pair<std::string, std::string>> XaaAuth::headers() {
    const oauth::CancelScope cancel{&cancel_, cancel_.begin()};
    std::optional<StoredTokens> current;
    uint64_t gen = 0;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!loaded_) {
            loaded_ = true;
            try {
                tokens_ = store_.load_tokens();
            } catch (const std::exception& e) {
                log(MCPH_LOG_WARN, std::string("cannot read stored credentials: ") + e.what());
            }
        }
        if (!tokens_ || tokens_->access_token.empty()) return {};  // the bare request earns the 401
        if (!expires_within(*tokens_, kRefreshMarginSeconds)) return {{"Authorization", "Bearer " + tokens_->access_token}};
        current = tokens_;
        gen = generation_;
    }
    // Expiring: repeat the exchange (single flight; a waiter reuses the result).
    {
        std::lock_guard<std::mutex> flow(flow_mu_);
        bool changed;
        {
            std::lock_guard<std::mutex> g(mu_);
            changed = generation_ != gen;
        }
        if (!changed && !cancel_.cancelled_since(cancel.started)) {
            try {
                log(MCPH_LOG_INFO, "access token expiring: exchanging again");
                install(acquire({}, {}, current, false, cancel));
            } catch (const OAuthError& e) {
                record_failure(FailureKind::refresh_failed, e.what());
            } catch (const std::exception& e) {
                record_failure(FailureKind::refresh_failed, std::string("refresh failed: ") + e.what());
            }
        }
    }
    std::lock_guard<std::mutex> g(mu_);
    if (!tokens_ || tokens_->access_token.empty() || expires_within(*tokens_, 0)) return {};
    return {{"Authorization", "Bearer " + tokens_->access_token}};
}

bool XaaAuth::handle_challenge(int http_status, std::string_view www_authenticate) {
    const oauth::CancelScope cancel{&cancel_, cancel_.begin()};
    oauth::BearerChallenge ch = oauth::bearer_challenge(www_authenticate);
    uint64_t entry_generation;
    {
        std::lock_guard<std::mutex> g(mu_);
        entry_generation = generation_;
    }
    std::lock_guard<std::mutex> flow(flow_mu_);
    cancel_.check(cancel.started);  // cancelled while the flow before us ran
    std::optional<StoredTokens> current;
    bool fresh;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (generation_ != entry_generation) return true;  // credentials changed while we waited
        current = tokens_;
        // An expired token was not sent (headers() sends none): its 401 says nothing about it.
        fresh = current && !expires_within(*current, 0) && std::chrono::steady_clock::now() - issued_at_ < kFreshWindow;
    }
    try {
        if (http_status == 403) {
            if (ch.error != "insufficient_scope")
                throw OAuthError(FailureKind::token_rejected,
                                 "the server answered 403" + (ch.error.empty() ? std::string() : " (" + ch.error + ")") +
                                     ", which new credentials cannot fix");
            {
                std::lock_guard<std::mutex> g(mu_);
                if (++step_ups_ > kMaxStepUps)
                    throw OAuthError(FailureKind::step_up_limit, "gave up after " + std::to_string(kMaxStepUps) +
                                                                     " scope step-ups the server still refuses");
            }
            install(acquire(ch.resource_metadata, ch.scope, current, true, cancel));
            return true;
        }
        if (http_status != 401)
            throw OAuthError(FailureKind::token_rejected, "unexpected HTTP " + std::to_string(http_status) + " challenge");
        if (fresh)
            throw OAuthError(FailureKind::token_rejected,
                             "the server rejected an access token issued moments ago (HTTP 401" +
                                 (ch.error.empty() ? std::string() : ", " + ch.error) + "); not retrying");
        if (auto stored = store_.load_tokens(); stored && !stored->access_token.empty() &&
                                                (!current || stored->access_token != current->access_token) &&
                                                !expires_within(*stored, 0)) {
            install(*stored);  // another process exchanged already
            return true;
        }
        install(acquire(ch.resource_metadata, ch.scope, std::nullopt, true, cancel));
        return true;
    } catch (const OAuthError& e) {
        record_failure(e.kind(), e.what());
        throw;
    }
}

void XaaAuth::login() {
    const oauth::CancelScope cancel{&cancel_, cancel_.begin()};
    std::lock_guard<std::mutex> flow(flow_mu_);
    try {
        cancel_.check(cancel.started);
        install(acquire({}, {}, std::nullopt, true, cancel));
    } catch (const OAuthError& e) {
        record_failure(e.kind(), e.what());
        throw;
    }
}

void XaaAuth::logout() {
    // This server's tokens only: the IdP sign-in is shared with the other XAA servers.
    std::lock_guard<std::mutex> flow(flow_mu_);
    forget_tokens();
    std::lock_guard<std::mutex> g(mu_);
    step_ups_ = 0;
}

std::string XaaAuth::describe() {
    std::lock_guard<std::mutex> g(mu_);
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    auto field = [&](const char* k, const std::string& v) {
        w.Key(k);
        w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
    };
    w.StartObject();
    field("backend", "xaa");
    field("server", name_);
    field("idp", config_.idp.issuer);
    std::string state = "unauthenticated";
    if (tokens_ && !tokens_->access_token.empty()) state = expires_within(*tokens_, 0) ? "expired" : "authenticated";
    field("state", state);
    if (tokens_) {
        field("scope", tokens_->scope);
        if (!tokens_->issuer.empty()) field("issuer", tokens_->issuer);
        if (tokens_->expires_at) {
            w.Key("expires_in");
            w.Int64(tokens_->expires_at - now_seconds());
        }
    }
    if (last_kind_ != FailureKind::none) {
        w.Key("last_error");
        w.StartObject();
        field("kind", oauth::kind_name(last_kind_));
        field("message", last_message_);
        w.EndObject();
    }
    w.EndObject();
    return buf.GetString();
}

}  // namespace mcph::xaa
