#include "errors.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <array>
#include <utility>

namespace mcph::oauth {

const char* kind_name(FailureKind kind) {
    switch (kind) {
        case FailureKind::none: return "none";
        case FailureKind::config_invalid: return "config_invalid";
        case FailureKind::fetch_refused: return "fetch_refused";
        case FailureKind::metadata_unreachable: return "metadata_unreachable";
        case FailureKind::metadata_invalid: return "metadata_invalid";
        case FailureKind::resource_mismatch: return "resource_mismatch";
        case FailureKind::pkce_unsupported: return "pkce_unsupported";
        case FailureKind::insecure_endpoint: return "insecure_endpoint";
        case FailureKind::registration_failed: return "registration_failed";
        case FailureKind::user_cancelled: return "user_cancelled";
        case FailureKind::callback_timeout: return "callback_timeout";
        case FailureKind::state_mismatch: return "state_mismatch";
        case FailureKind::token_exchange_failed: return "token_exchange_failed";
        case FailureKind::refresh_failed: return "refresh_failed";
        case FailureKind::token_rejected: return "token_rejected";
        case FailureKind::step_up_limit: return "step_up_limit";
        case FailureKind::dpop_unsupported: return "dpop_unsupported";
        case FailureKind::lock_busy: return "lock_busy";
    }
    return "unknown";
}

namespace {
mcph_status status_for(FailureKind kind) {
    switch (kind) {
        case FailureKind::config_invalid: return MCPH_ERR_INVALID_ARGUMENT;
        case FailureKind::user_cancelled: return MCPH_ERR_CANCELLED;
        case FailureKind::callback_timeout: return MCPH_ERR_TIMEOUT;
        case FailureKind::lock_busy: return MCPH_ERR_TIMEOUT;
        case FailureKind::metadata_unreachable: return MCPH_ERR_IO;
        default: return MCPH_ERR_AUTH;
    }
}
}  // namespace

OAuthError::OAuthError(FailureKind kind, const std::string& message, std::string oauth_code)
    : mcph::plugin::Error(status_for(kind), std::string("oauth ") + kind_name(kind) + ": " + message),
      kind_(kind),
      oauth_code_(std::move(oauth_code)) {}

std::string normalize_error_code(std::string_view code) {
    // Codes some providers use where RFC 6749 says invalid_grant: the refresh token (or grant) is
    // no longer valid and only a new authorisation helps.
    static constexpr std::array<std::string_view, 3> kInvalidGrantAliases = {
        "invalid_refresh_token", "expired_refresh_token", "token_expired"};
    for (auto alias : kInvalidGrantAliases)
        if (code == alias) return "invalid_grant";
    return std::string(code);
}

std::optional<OAuthErrorBody> oauth_error_in(std::string_view body) {
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, body) || !doc.IsObject()) return std::nullopt;
    auto it = doc.FindMember("error");
    if (it == doc.MemberEnd() || !it->value.IsString() || it->value.GetStringLength() == 0) return std::nullopt;
    OAuthErrorBody out;
    out.error = normalize_error_code(std::string_view(it->value.GetString(), it->value.GetStringLength()));
    auto d = doc.FindMember("error_description");
    if (d != doc.MemberEnd() && d->value.IsString()) out.description = d->value.GetString();
    return out;
}

}  // namespace mcph::oauth
