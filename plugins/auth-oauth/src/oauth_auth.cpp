#include "oauth_auth.hpp"

#include "scopes.hpp"
#include "secret_lock.hpp"
#include "www_authenticate.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>

namespace mcph::oauth {

OAuthAuth::OAuthAuth(const mcph::plugin::AuthContext& ctx)
    : host_(ctx.host),
      name_(ctx.server_name),
      server_url_(ctx.server_url),
      config_(parse_config(ctx.config_json)),
      http_(ctx.host, std::string(ctx.server_url), config_.http_timeout_ms),
      store_(ctx.host, store_key_base(ctx.server_name, ctx.server_url, config_.client_id)),
      dpop_(ctx.host, store_, store_key_base(ctx.server_name, ctx.server_url, config_.client_id) + ".dpop", config_.dpop) {
    if (server_url_.empty()) throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "oauth: the server has no URL");
}

void OAuthAuth::log(mcph_log_level level, const std::string& message) const {
    if (!host_ || !host_->log) return;
    std::string source = "oauth:" + name_;
    host_->log(host_->host_data, level, mcph::plugin::str(source), mcph::plugin::str(message));
}

FlowContext OAuthAuth::flow_context(const CancelScope& cancel) {
    return FlowContext{host_, config_, http_, store_,
                       [this](mcph_log_level level, const std::string& m) { log(level, m); }, &dpop_, cancel};
}

std::string OAuthAuth::refresh_lock_key() const {
    return store_key_base(name_, server_url_, config_.client_id) + ".refresh";
}

// At most two token requests' time: the holder's refresh is bounded by one.
uint32_t OAuthAuth::refresh_lock_timeout_ms() const {
    return static_cast<uint32_t>(std::min<long>(2 * config_.http_timeout_ms + 1000, 120000));
}

void OAuthAuth::ensure_loaded(Lock&) {
    if (loaded_) return;
    loaded_ = true;
    try {
        tokens_ = store_.load_tokens();
        if (tokens_) issuer_ = tokens_->issuer;
    } catch (const std::exception& e) {
        log(MCPH_LOG_WARN, std::string("cannot read stored credentials: ") + e.what());
    }
}

void OAuthAuth::acquire_slot(Lock& lk, Cancellation::Epoch started) {
    cv_.wait(lk, [&] { return !busy_ || cancel_.cancelled_since(started); });
    cancel_.check(started);
    busy_ = true;
}

void OAuthAuth::cancel() noexcept {
    cancel_.cancel();  // wakes a browser wait of the calls in progress
    // A waiter on the slot re-checks its predicate under mu_: taking mu_ before notifying means
    // none can miss this wake between its check and its wait.
    { std::lock_guard<std::mutex> g(mu_); }
    cv_.notify_all();
}

void OAuthAuth::release_slot() {
    {
        std::lock_guard<std::mutex> g(mu_);
        busy_ = false;
    }
    cv_.notify_all();
}

void OAuthAuth::install(const StoredTokens& t, bool issued_here) {
    std::lock_guard<std::mutex> g(mu_);
    tokens_ = t;
    ++generation_;
    issued_here_ = issued_here;
    issued_at_ = std::chrono::steady_clock::now();
    issuer_ = t.issuer;
    last_kind_ = FailureKind::none;
    last_message_.clear();
}

void OAuthAuth::forget_tokens() {
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

void OAuthAuth::record_failure(FailureKind kind, const std::string& message) {
    log(MCPH_LOG_WARN, message);  // messages never contain tokens, codes, secrets or verifiers
    std::lock_guard<std::mutex> g(mu_);
    last_kind_ = kind;
    last_message_ = message;
}

StoredTokens OAuthAuth::refresh_shared(const StoredTokens& current) {
    // Re-read → refresh → save under the store's cross-process lock.
    SecretLock lock(host_, refresh_lock_key(), refresh_lock_timeout_ms());
    // Another process sharing the store may have refreshed already (and the AS may have rotated
    // the refresh token we hold): use its result rather than spending ours.
    if (auto stored = store_.load_tokens();
        stored && stored->access_token != current.access_token && !expires_within(*stored, kRefreshMarginSeconds)) {
        log(MCPH_LOG_INFO, "using credentials refreshed by another process");
        return *stored;
    }
    log(MCPH_LOG_INFO, "refreshing the access token");
    StoredTokens t = refresh_tokens(flow_context(), current);
    store_.save_tokens(t);
    return t;
}

std::string OAuthAuth::authorization_server_changed(const StoredTokens& current,
                                                   const std::string& resource_metadata_url) {
    if (current.issuer.empty()) return {};
    std::string now_named;
    try {
        now_named = chosen_issuer(discover_resource(http_, server_url_, resource_metadata_url), server_url_);
    } catch (const OAuthError& e) {
        // Unknown: keep the old behaviour (refresh); a new authorization will rediscover anyway.
        log(MCPH_LOG_DEBUG, std::string("cannot check the authorization server: ") + e.what());
        return {};
    }
    if (now_named == current.issuer) return {};
    log(MCPH_LOG_INFO, "the server now names authorization server " + now_named + " instead of " + current.issuer +
                           "; authorizing there");
    return now_named;
}

std::optional<StoredTokens> OAuthAuth::forget_tokens_for_migration(const std::string& new_issuer) {
    // Under the lock refresh uses, so no other process is between its read and its save while we
    // decide: what the store holds now is what it will hold until we erase.
    SecretLock lock(host_, refresh_lock_key(), refresh_lock_timeout_ms());
    std::optional<StoredTokens> stored;
    try {
        stored = store_.load_tokens();
    } catch (const std::exception& e) {
        log(MCPH_LOG_WARN, std::string("cannot read stored credentials: ") + e.what());
    }
    if (stored && stored->issuer == new_issuer && !stored->access_token.empty()) {
        log(MCPH_LOG_INFO, "using credentials another process obtained from " + new_issuer);
        install(*stored, false);
        return stored;
    }
    forget_tokens();
    return std::nullopt;
}

StoredTokens OAuthAuth::run_flow(const std::string& resource_metadata_url, const std::string& challenge_scope,
                                 const std::vector<std::string>& extra_scopes, bool count_attempt,
                                 const CancelScope& cancel) {
    Discovery d = discover(http_, server_url_, resource_metadata_url);
    static const std::vector<std::string> kNone;
    ScopeInputs in;
    in.config_override = &config_.scopes;
    in.challenge_scope = challenge_scope;
    in.resource_scopes = d.resource_metadata ? &d.resource_metadata->scopes_supported : &kNone;
    in.server_scopes = &d.server.scopes_supported;
    in.want_refresh_token = config_.grant == Grant::authorization_code;
    std::vector<std::string> scopes = union_scopes(select_scopes(in), extra_scopes);
    if (count_attempt) {
        std::string key = join_scopes(scopes);
        std::lock_guard<std::mutex> g(mu_);
        auto now = std::chrono::steady_clock::now();
        Attempts& a = attempts_[key];
        if (a.count == 0 || now - a.since > kAttemptWindow) a = Attempts{0, now};
        if (++a.count > kMaxAuthorizations)
            throw OAuthError(FailureKind::step_up_limit,
                             "gave up after " + std::to_string(kMaxAuthorizations) +
                                 " authorizations for scope \"" + key + "\" that the server still refuses");
    }
    StoredTokens t = acquire_tokens(flow_context(cancel), d, scopes);
    store_.save_tokens(t);
    log(MCPH_LOG_INFO, "authorized with " + d.server.issuer + (scopes.empty() ? "" : " for scope \"" + join_scopes(scopes) + "\""));
    return t;
}

std::vector<std::pair<std::string, std::string>> OAuthAuth::present(const StoredTokens& t,
                                                                    const mcph::plugin::AuthRequest& request,
                                                                    bool nonblocking) {
    if (!t.dpop_bound()) return {{"Authorization", "Bearer " + t.access_token}};
    std::shared_ptr<const DpopKey> key = dpop_.loaded_key();
    if (!key) {
        if (nonblocking) throw mcph::plugin::WouldBlock();  // the key is in the secret store
        key = dpop_.key();
    }
    // A 1.0 transport does not say which request: the MCP endpoint's POST is what it sends.
    std::string_view method = request.method.empty() ? std::string_view("POST") : request.method;
    std::string_view url = request.url.empty() ? std::string_view(server_url_) : request.url;
    return {{"Authorization", "DPoP " + t.access_token},
            {"DPoP", dpop_.proof(*key, DpopRole::resource_server, method, url, t.access_token)}};
}

std::vector<std::pair<std::string, std::string>> OAuthAuth::headers() { return headers_for({}, false); }

std::vector<std::pair<std::string, std::string>> OAuthAuth::headers_for(const mcph::plugin::AuthRequest& request,
                                                                        bool nonblocking) {
    const Cancellation::Epoch started = cancel_.begin();
    Lock lk(mu_, std::defer_lock);
    if (!nonblocking) lk.lock();
    else if (!lk.try_lock() || !loaded_) throw mcph::plugin::WouldBlock();  // busy, or the store is unread
    ensure_loaded(lk);
    bool waited = false;
    while (true) {
        // No token yet: send the request bare; its 401 starts discovery (handle_challenge).
        if (!tokens_ || tokens_->access_token.empty()) return {};
        const bool expired = expires_within(*tokens_, 0);
        if (!expires_within(*tokens_, kRefreshMarginSeconds)) return present(*tokens_, request, nonblocking);
        if (tokens_->refresh_token.empty() || waited) {
            if (expired) return {};
            return present(*tokens_, request, nonblocking);
        }
        if (nonblocking) throw mcph::plugin::WouldBlock();  // a refresh is due (ours, or one in flight)
        if (busy_) {  // someone is refreshing (or authorizing): use their result
            cv_.wait(lk, [&] { return !busy_ || cancel_.cancelled_since(started); });
            cancel_.check(started);
            waited = true;
            continue;
        }
        busy_ = true;
        StoredTokens current = *tokens_;
        lk.unlock();
        try {
            StoredTokens t = refresh_shared(current);
            install(t, true);
        } catch (const OAuthError& e) {
            record_failure(e.kind() == FailureKind::token_exchange_failed ? FailureKind::refresh_failed : e.kind(),
                           e.what());
            if (e.oauth_code() == "invalid_grant") forget_tokens();  // only a new authorization helps
        } catch (const std::exception& e) {
            record_failure(FailureKind::refresh_failed, std::string("refresh failed: ") + e.what());
        }
        release_slot();
        lk.lock();
        waited = true;
    }
}

bool OAuthAuth::accept_dpop_nonce(const mcph::plugin::AuthRequest& request) {
    bool asked = false;
    for (const auto& c : parse_www_authenticate(request.www_authenticate)) {
        std::string scheme = c.scheme;
        for (auto& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        auto e = c.params.find("error");
        if (scheme == "dpop" && e != c.params.end() && e->second == "use_dpop_nonce") asked = true;
    }
    if (!asked) return false;
    {
        Lock lk(mu_);
        ensure_loaded(lk);
        if (!tokens_ || !tokens_->dpop_bound()) return false;  // not ours to answer: the usual path decides
    }
    // The transport retries a challenged request once, so each request takes at most one nonce
    // round; the nonce itself is checked (RFC 9449 §8.1 syntax, 1 KiB) before it goes in a proof.
    const std::string_view url = request.url.empty() ? std::string_view(server_url_) : request.url;
    if (!dpop_.remember_nonce(DpopRole::resource_server, url, request.header("DPoP-Nonce")))
        throw OAuthError(FailureKind::token_rejected,
                         "the server asked for a DPoP nonce (use_dpop_nonce) without a usable DPoP-Nonce header");
    log(MCPH_LOG_DEBUG, "the server asked for a DPoP nonce; retrying with it");
    return true;
}

bool OAuthAuth::handle_challenge_for(const mcph::plugin::AuthRequest& request) {
    try {
        if (accept_dpop_nonce(request)) return true;
    } catch (const OAuthError& e) {
        record_failure(e.kind(), e.what());
        throw;
    }
    return handle_challenge(request.http_status, request.www_authenticate);
}

bool OAuthAuth::handle_challenge(int http_status, std::string_view www_authenticate) {
    const CancelScope cancel{&cancel_, cancel_.begin()};
    BearerChallenge ch = bearer_challenge(www_authenticate);
    Lock lk(mu_);
    ensure_loaded(lk);
    if (ch.error == "use_dpop_nonce" && tokens_ && tokens_->dpop_bound()) {
        // Here without the response headers (a 1.0 caller): the nonce is out of reach, and new
        // tokens would meet the same demand.
        lk.unlock();
        const std::string why =
            "the server asked for a DPoP nonce (use_dpop_nonce), but the transport did not pass the response's "
            "DPoP-Nonce header (plugin ABI 1.2 on_auth_challenge_ex)";
        record_failure(FailureKind::token_rejected, why);
        throw OAuthError(FailureKind::token_rejected, why);
    }
    const uint64_t entry_generation = generation_;
    acquire_slot(lk, cancel.started);
    if (generation_ != entry_generation) {  // credentials changed while we waited: just retry
        lk.unlock();
        release_slot();
        return true;
    }
    std::optional<StoredTokens> current = tokens_;
    // An expired token says nothing about whether the server accepts what the AS issues (and
    // was not even sent: headers_for sends none once it has expired), however recent.
    const bool expired = current && expires_within(*current, 0);
    bool fresh = current && !expired && issued_here_ && std::chrono::steady_clock::now() - issued_at_ < kFreshWindow;
    lk.unlock();

    struct SlotGuard {
        OAuthAuth* self;
        ~SlotGuard() { self->release_slot(); }
    } guard{this};

    try {
        if (http_status == 403) {
            if (ch.error != "insufficient_scope")
                throw OAuthError(FailureKind::token_rejected,
                                 "the server answered 403" + (ch.error.empty() ? std::string() : " (" + ch.error + ")") +
                                     ", which new credentials cannot fix");
            // Step-up: keep what we have and add what the server asks for.
            std::vector<std::string> have = current ? split_scopes(current->scope) : std::vector<std::string>{};
            install(run_flow(ch.resource_metadata, ch.scope, have, true, cancel), true);
            return true;
        }
        if (http_status != 401)
            throw OAuthError(FailureKind::token_rejected, "unexpected HTTP " + std::to_string(http_status) + " challenge");
        if (std::string moved = current ? authorization_server_changed(*current, ch.resource_metadata) : std::string();
            !moved.empty()) {
            // SEP-2352: tokens and client of the old AS mean nothing to the new one — but tokens
            // another process already got from the new one are exactly what we are after (if
            // expired, refreshed below like our own).
            current = forget_tokens_for_migration(moved);
            if (current && !expires_within(*current, 0)) return true;
            fresh = false;
        }
        if (fresh)
            throw OAuthError(FailureKind::token_rejected,
                             "the server rejected an access token issued moments ago (HTTP 401" +
                                 (ch.error.empty() ? std::string() : ", " + ch.error) + "); not retrying");
        // Another process may have logged in or refreshed.
        if (auto stored = store_.load_tokens(); stored && !stored->access_token.empty() &&
                                                (!current || stored->access_token != current->access_token) &&
                                                !expires_within(*stored, 0)) {
            install(*stored, false);
            return true;
        }
        if (current && !current->refresh_token.empty()) {
            try {
                install(refresh_shared(*current), true);
                return true;
            } catch (const OAuthError& e) {
                // Another process is refreshing: its result is the answer, a new sign-in is not.
                if (e.kind() == FailureKind::lock_busy) throw;
                log(MCPH_LOG_WARN, std::string(e.what()) + "; authorizing again");
                if (e.oauth_code() == "invalid_grant") forget_tokens();
            }
        }
        // A short-lived token that simply expired (no refresh token: client_credentials,
        // jwt-bearer) is renewed without counting towards the loop guard; an interactive grant
        // still counts, so a server whose tokens never last cannot keep opening the browser.
        const bool count = !(expired && config_.grant != Grant::authorization_code);
        install(run_flow(ch.resource_metadata, ch.scope, {}, count, cancel), true);
        return true;
    } catch (const OAuthError& e) {
        record_failure(e.kind(), e.what());
        throw;
    }
}

void OAuthAuth::login() {
    const CancelScope cancel{&cancel_, cancel_.begin()};
    Lock lk(mu_);
    ensure_loaded(lk);
    acquire_slot(lk, cancel.started);
    lk.unlock();
    struct SlotGuard {
        OAuthAuth* self;
        ~SlotGuard() { self->release_slot(); }
    } guard{this};
    try {
        install(run_flow({}, {}, {}, false, cancel), true);
    } catch (const OAuthError& e) {
        record_failure(e.kind(), e.what());
        throw;
    }
}

void OAuthAuth::logout() {
    const Cancellation::Epoch started = cancel_.begin();
    {
        Lock lk(mu_);
        acquire_slot(lk, started);
    }
    struct SlotGuard {
        OAuthAuth* self;
        ~SlotGuard() { self->release_slot(); }
    } guard{this};
    forget_tokens();
    store_.erase_client();
    dpop_.forget();  // the next sign-in binds to a new key
    std::lock_guard<std::mutex> g(mu_);
    attempts_.clear();
    issued_here_ = false;
}

std::string OAuthAuth::describe() {
    std::lock_guard<std::mutex> g(mu_);
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    auto field = [&](const char* k, const std::string& v) {
        w.Key(k);
        w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
    };
    w.StartObject();
    field("backend", "oauth");
    field("server", name_);
    field("grant", config_.grant == Grant::client_credentials ? "client_credentials"
                   : config_.grant == Grant::jwt_bearer       ? "jwt_bearer"
                                                              : "authorization_code");
    std::string state = "unauthenticated";
    if (busy_) state = "in_progress";
    else if (tokens_ && !tokens_->access_token.empty()) state = expires_within(*tokens_, 0) ? "expired" : "authenticated";
    field("state", state);
    if (tokens_) {
        field("scope", tokens_->scope);
        field("token_type", tokens_->token_type);
        field("client", tokens_->client.source);
        w.Key("refreshable");
        w.Bool(!tokens_->refresh_token.empty());
        if (tokens_->expires_at) {
            w.Key("expires_in");
            w.Int64(tokens_->expires_at - now_seconds());
        }
    }
    if (!issuer_.empty()) field("issuer", issuer_);
    if (last_kind_ != FailureKind::none) {
        w.Key("last_error");
        w.StartObject();
        field("kind", kind_name(last_kind_));
        field("message", last_message_);
        w.EndObject();
    }
    w.EndObject();
    return buf.GetString();
}

}  // namespace mcph::oauth
