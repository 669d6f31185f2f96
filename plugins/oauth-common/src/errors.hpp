// Failure classification and OAuth error normalisation.
//
// Every failure the plugin reports carries a FailureKind so `describe` (and the user) can tell a
// metadata problem from a refused registration, a cancelled browser step or a rejected token: each
// needs a different fix. OAuth servers in the wild also disagree on how they report errors (HTTP
// 200 with an `error` member, vendor codes such as `invalid_refresh_token`), so responses are
// normalised here, in one place, before any logic looks at them.
#pragma once

#include <mcph/plugin_helper.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcph::oauth {

enum class FailureKind {
    none,
    config_invalid,
    fetch_refused,          // the host's safe-fetch policy refused a URL (or a redirect hop)
    metadata_unreachable,   // a metadata endpoint could not be reached at all
    metadata_invalid,       // metadata was reachable but unusable (HTML, bad JSON, missing fields)
    resource_mismatch,      // protected resource metadata names another resource
    pkce_unsupported,       // the AS does not advertise S256
    insecure_endpoint,      // an AS endpoint is plain http and not loopback
    registration_failed,    // no client identity could be obtained
    user_cancelled,         // the application refused to open the URL, or the user denied access
    callback_timeout,       // the browser step never came back
    state_mismatch,         // the callback's state was wrong or reused
    token_exchange_failed,  // the code (or client credentials) could not be exchanged
    refresh_failed,
    token_rejected,         // the server rejected a token it had just been issued
    step_up_limit,          // too many insufficient_scope re-authorisations
    dpop_unsupported,       // DPoP is required by the config and the AS does not offer ES256
    lock_busy,              // another process holds the refresh lock (secret_lock timed out)
};

const char* kind_name(FailureKind kind);

// An error the plugin raises; it is an mcph::plugin::Error, so it crosses the ABI as a status
// plus message. `oauth_code` is the normalised OAuth `error` value when the AS sent one.
class OAuthError : public mcph::plugin::Error {
public:
    OAuthError(FailureKind kind, const std::string& message, std::string oauth_code = {});
    FailureKind kind() const noexcept { return kind_; }
    const std::string& oauth_code() const noexcept { return oauth_code_; }

private:
    FailureKind kind_;
    std::string oauth_code_;
};

// Vendor spellings mapped to the RFC 6749 code they mean (e.g. Slack's invalid_refresh_token).
std::string normalize_error_code(std::string_view code);

struct OAuthErrorBody {
    std::string error;  // normalised
    std::string description;
};
// The OAuth error inside a JSON body, if the body is a JSON object with a string `error`.
std::optional<OAuthErrorBody> oauth_error_in(std::string_view body);

}  // namespace mcph::oauth
