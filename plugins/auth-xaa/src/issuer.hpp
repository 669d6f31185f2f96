// Exact issuer discipline at the enterprise IdP.
//
// The IdP is chosen by the configured `idp.issuer` (the document's `xaaIdp.issuer`), and that
// string, byte for byte, is the issuer: the OpenID configuration must name it (OpenID Connect
// Discovery §4.3, RFC 8414 §3.3), the authorization callback's `iss` must equal it (RFC 9207),
// and so must the id_token's `iss` claim (OpenID Connect Core §3.1.3.7). No trailing-slash trim,
// no case folding, no default-port normalisation: a looser comparison lets a second issuer that
// normalises to the same string pass as this one (the mix-up RFC 9207 is about).
//
// Local to auth-xaa on purpose: oauth-common's metadata parser does not carry
// `authorization_response_iss_parameter_supported`, and the MCP server's AS side has its own
// rules there; these few functions are all the IdP side needs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcph::xaa {

// Throws OAuthError(metadata_invalid) unless `published` (nullopt: the document has no string
// `issuer`) equals `configured`. The message names both values, and when they differ only by a
// trailing slash, tells the user to write the issuer exactly as the IdP publishes it.
// `where`: the document's URL.
void check_metadata_issuer(const std::string& configured, const std::optional<std::string>& published,
                           const std::string& where);

// RFC 9207 on the IdP's authorization callback. `iss` nullopt = absent; a present empty `iss=` is a
// value like any other (and never the configured issuer). Throws OAuthError(state_mismatch) when
// the IdP advertised the parameter and it is absent, or when it is present and differs from
// `configured` (advertised or not).
void check_callback_iss(const std::string& configured, const std::optional<std::string>& iss, bool advertised);

// The id_token's `iss` claim (nullopt: absent or not a string) must equal `configured`; throws
// OAuthError(state_mismatch) otherwise.
void check_id_token_iss(const std::string& configured, const std::optional<std::string>& iss);

// An untrusted value (from a document or a callback) fit for an error message: quoted, at most
// 200 bytes, control bytes replaced by '?', so a hostile issuer cannot forge log lines.
std::string shown(std::string_view untrusted);

}  // namespace mcph::xaa
