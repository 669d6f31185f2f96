// The "oauth" auth backend for one MCP server: the object behind mcph.auth/1.
//
// Concurrency: get_headers and handle_challenge may be called from any transport thread at
// once. `mu_` guards the state and is never held across I/O; `busy_` is the single-flight slot —
// whoever holds it is the only one refreshing or running a flow for this server; everyone else
// waits on `cv_` and then uses the result (a generation counter tells them it changed). Across
// processes the secret store is the shared truth: it is re-read after taking the slot and before
// refreshing, and a token another process stored is adopted instead of refreshing again.
//
// headers_for in non-blocking mode (the transport's I/O thread) answers only from what is at
// hand: it try-locks `mu_`, never reads the secret store, never waits on `cv_` and never
// refreshes; whenever one of those would be needed it throws WouldBlock and the host asks again
// on a thread where blocking is fine. DPoP-bound tokens (RFC 9449) go out as
// "Authorization: DPoP <token>" with a fresh proof for the request's method and URL.
//
// cancel() (the host closing the server) ends the blocking calls in progress — a browser wait, a
// wait for the busy_ slot — with user_cancelled; each public call notes the cancel epoch when it
// starts, so a cancel never reaches a later call (Cancellation).
#pragma once

#include "cancellation.hpp"
#include "config.hpp"
#include "discovery.hpp"
#include "dpop.hpp"
#include "errors.hpp"
#include "flows.hpp"
#include "http_client.hpp"
#include "token_store.hpp"

#include <mcph/plugin_helper.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mcph::oauth {

class OAuthAuth : public mcph::plugin::Auth {
public:
    explicit OAuthAuth(const mcph::plugin::AuthContext& ctx);

    std::vector<std::pair<std::string, std::string>> headers() override;
    bool handle_challenge(int http_status, std::string_view www_authenticate) override;
    std::vector<std::pair<std::string, std::string>> headers_for(const mcph::plugin::AuthRequest& request,
                                                                 bool nonblocking) override;
    bool handle_challenge_for(const mcph::plugin::AuthRequest& request) override;
    void login() override;
    void logout() override;
    std::string describe() override;
    void cancel() noexcept override;

    // Refresh this long before expiry (the brief's 60 s).
    static constexpr int64_t kRefreshMarginSeconds = 60;
    // A 401 for a token issued less than this long ago means the server rejects what the AS
    // issues: give up instead of looping through the browser.
    static constexpr std::chrono::seconds kFreshWindow{30};
    // At most this many challenge-driven authorisations for the same scope set per window.
    static constexpr int kMaxAuthorizations = 3;
    static constexpr std::chrono::minutes kAttemptWindow{10};

private:
    using Lock = std::unique_lock<std::mutex>;
    struct Attempts {
        int count = 0;
        std::chrono::steady_clock::time_point since;
    };

    void ensure_loaded(Lock& lk);
    // Waits for the busy_ slot and takes it; throws user_cancelled when the call that began at
    // `started` is cancelled meanwhile.
    void acquire_slot(Lock& lk, Cancellation::Epoch started);
    void release_slot();
    FlowContext flow_context(const CancelScope& cancel = {});
    // The headers presenting `t` for `request` (called with mu_ held; signs, never does I/O
    // when nonblocking).
    std::vector<std::pair<std::string, std::string>> present(const StoredTokens& t,
                                                             const mcph::plugin::AuthRequest& request,
                                                             bool nonblocking);
    // A resource server's `DPoP error="use_dpop_nonce"` challenge with a DPoP-Nonce header:
    // the nonce is kept and the request may be retried. False when the challenge is not one.
    bool accept_dpop_nonce(const mcph::plugin::AuthRequest& request);
    void log(mcph_log_level level, const std::string& message) const;

    // Each returns the new tokens, already saved; the caller installs them.
    StoredTokens refresh_shared(const StoredTokens& current);
    StoredTokens run_flow(const std::string& resource_metadata_url, const std::string& challenge_scope,
                          const std::vector<std::string>& extra_scopes, bool count_attempt, const CancelScope& cancel);
    // The issuer the protected resource now names when it is another AS than the one `current`
    // came from; "" when it is the same (or cannot be told).
    std::string authorization_server_changed(const StoredTokens& current, const std::string& resource_metadata_url);
    void install(const StoredTokens& t, bool issued_here);
    void forget_tokens();
    // On an AS change: forgets the old AS's tokens, unless the store (re-read under the refresh
    // lock) already holds tokens another process obtained from `new_issuer` — those are
    // installed, kept and returned (they may need a refresh).
    std::optional<StoredTokens> forget_tokens_for_migration(const std::string& new_issuer);
    std::string refresh_lock_key() const;
    uint32_t refresh_lock_timeout_ms() const;
    void record_failure(FailureKind kind, const std::string& message);

    const mcph_host_services* host_;
    std::string name_;
    std::string server_url_;
    OAuthConfig config_;
    HttpClient http_;
    TokenStore store_;
    DpopSession dpop_;  // used for new tokens by config_.dpop; always for DPoP-bound stored ones
    Cancellation cancel_;

    std::mutex mu_;
    std::condition_variable cv_;
    bool busy_ = false;
    bool loaded_ = false;
    std::optional<StoredTokens> tokens_;
    uint64_t generation_ = 0;
    bool issued_here_ = false;
    std::chrono::steady_clock::time_point issued_at_{};
    std::string issuer_;  // for describe
    std::map<std::string, Attempts> attempts_;
    FailureKind last_kind_ = FailureKind::none;
    std::string last_message_;
};

}  // namespace mcph::oauth
