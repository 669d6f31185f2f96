#include "issuer.hpp"

#include "errors.hpp"

namespace mcph::xaa {

using oauth::FailureKind;
using oauth::OAuthError;

namespace {

constexpr size_t kShownMax = 200;

// Only for the fix-it hint, never for the decision.
bool differ_only_by_trailing_slash(std::string_view a, std::string_view b) {
    auto strip = [](std::string_view s) {
        while (!s.empty() && s.back() == '/') s.remove_suffix(1);
        return s;
    };
    return a != b && strip(a) == strip(b);
}

}  // namespace

std::string shown(std::string_view untrusted) {
    std::string out = "\"";
    for (size_t i = 0; i < untrusted.size() && i < kShownMax; ++i) {
        const unsigned char c = static_cast<unsigned char>(untrusted[i]);
        out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
    if (untrusted.size() > kShownMax) out += "...";
    return out + "\"";
}

void check_metadata_issuer(const std::string& configured, const std::optional<std::string>& published,
                           const std::string& where) {
    if (!published)
        throw OAuthError(FailureKind::metadata_invalid, "IdP OpenID configuration at " + where +
                                                            " names no issuer; expected " + shown(configured) +
                                                            " (the issuer must be published to be checked)");
    if (*published == configured) return;
    std::string message = "IdP OpenID configuration at " + where + " names issuer " + shown(*published) +
                          ", but the configured idp.issuer is " + shown(configured) +
                          "; issuers are compared exactly, so nothing from that document is used";
    if (differ_only_by_trailing_slash(*published, configured))
        message += " — write the issuer exactly as the IdP publishes it: " + shown(*published);
    throw OAuthError(FailureKind::metadata_invalid, message);
}

void check_callback_iss(const std::string& configured, const std::optional<std::string>& iss, bool advertised) {
    // Checked before anything else in the callback is looked at, the error text included: a
    // response from another issuer says nothing about this sign-in.
    if (!iss) {
        if (!advertised) return;  // RFC 9207 §2.4: without the advertisement, absence is allowed
        throw OAuthError(FailureKind::state_mismatch,
                         "the IdP advertises authorization_response_iss_parameter_supported but its callback "
                         "carried no iss; refused (RFC 9207)");
    }
    if (*iss != configured)
        throw OAuthError(FailureKind::state_mismatch, "the IdP callback came from issuer " + shown(*iss) +
                                                          ", expected " + shown(configured) + "; refused (RFC 9207)");
}

void check_id_token_iss(const std::string& configured, const std::optional<std::string>& iss) {
    if (!iss)
        throw OAuthError(FailureKind::state_mismatch, "the IdP's id_token has no iss claim; expected " + shown(configured));
    if (*iss != configured)
        throw OAuthError(FailureKind::state_mismatch, "the IdP's id_token was issued by " + shown(*iss) + ", expected " +
                                                          shown(configured));
}

}  // namespace mcph::xaa
