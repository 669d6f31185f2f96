// The "xaa" auth backend for one MCP server (Enterprise-Managed Authorization, SEP-990).
//
// On a 401: discover the server's protected resource metadata and authorization server
// (oauth-common, exactly as auth-oauth), get the user's id_token (config, else the cache shared
// by all XAA servers of this IdP, else an interactive OIDC sign-in), exchange it at the IdP for
// an ID-JAG (RFC 8693), and the ID-JAG at the AS for an access token (RFC 7523 jwt-bearer).
// Refresh = the same two exchanges again when the access token expires.
//
// Concurrency: `mu_` guards the state and is never held across I/O; `flow_mu_` serialises the
// exchanges (single flight); a generation counter tells a caller that waited for it that the
// credentials changed, so it retries instead of exchanging again. cancel() ends the calls in
// progress (the IdP sign-in's browser wait, a caller that then takes flow_mu_) with
// user_cancelled; later calls are not affected (oauth::Cancellation).
#pragma once

#include "cancellation.hpp"
#include "discovery.hpp"
#include "errors.hpp"
#include "http_client.hpp"
#include "idp.hpp"
#include "token_store.hpp"
#include "xaa_config.hpp"

#include <mcph/plugin_helper.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcph::xaa {

class XaaAuth : public mcph::plugin::Auth {
public:
    explicit XaaAuth(const mcph::plugin::AuthContext& ctx);

    std::vector<std::pair<std::string, std::string>> headers() override;
    bool handle_challenge(int http_status, std::string_view www_authenticate) override;
    void login() override;
    void logout() override;
    std::string describe() override;
    void cancel() noexcept override;

    static constexpr int64_t kRefreshMarginSeconds = 60;
    static constexpr std::chrono::seconds kFreshWindow{30};
    static constexpr int kMaxStepUps = 3;

private:
    // Discovery (when `tokens` does not already say where to go) + both exchanges; saves and
    // returns the new tokens. `scope_hint`: the challenge's scope.
    oauth::StoredTokens acquire(const std::string& resource_metadata_url, const std::string& scope_hint,
                                const std::optional<oauth::StoredTokens>& previous, bool rediscover,
                                const oauth::CancelScope& cancel);
    std::string id_token(const IdpEndpoints& known, bool& from_cache, const oauth::CancelScope& cancel);
    void install(const oauth::StoredTokens& t);
    void forget_tokens();
    void record_failure(oauth::FailureKind kind, const std::string& message);
    void log(mcph_log_level level, const std::string& message) const;

    const mcph_host_services* host_;
    std::string name_;
    std::string server_url_;
    XaaConfig config_;
    oauth::HttpClient http_;
    oauth::TokenStore store_;
    oauth::Cancellation cancel_;

    std::mutex flow_mu_;  // held across I/O: one exchange at a time
    std::mutex mu_;       // state below; never held across I/O
    bool loaded_ = false;
    std::optional<oauth::StoredTokens> tokens_;
    uint64_t generation_ = 0;
    std::chrono::steady_clock::time_point issued_at_{};
    int step_ups_ = 0;
    oauth::FailureKind last_kind_ = oauth::FailureKind::none;
    std::string last_message_;
};

}  // namespace mcph::xaa
