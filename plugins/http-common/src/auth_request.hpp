// What the host's auth hooks are told about one HTTP exchange (ABI v1.2 mcph_auth_request): the
// method and URL a DPoP proof binds to, and for a refusal the status, every WWW-Authenticate
// value and every response header (a DPoP-Nonce must not be lost).
#pragma once

#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>

#include <string>

namespace mcph::http {

// Before sending.
mcph::plugin::HookRequest auth_request(std::string method, std::string url);

// After `easy` got its (final) response. Bounded: at most kMaxAuthHeaders headers and
// kMaxAuthHeaderBytes of them; beyond, the rest are left out.
mcph::plugin::HookRequest auth_challenge_request(CURL* easy, std::string method, std::string url, long status);

inline constexpr size_t kMaxAuthHeaders = 100;
inline constexpr size_t kMaxAuthHeaderBytes = 64 * 1024;

// True when the response is an auth challenge: 401 or 403, or another 4xx carrying a
// WWW-Authenticate header (RFC 9449 §9: a server may ask for a DPoP nonce that way).
bool is_auth_challenge(CURL* easy, long status);

// How many challenge-driven retries one request may have had and still get another: one, and one
// more when this refusal demands a DPoP nonce (RFC 9449 §9) — a first request earns a sign-in, then,
// with its first DPoP-bound token, the nonce demand. The auth backend bounds how often it says yes.
int challenge_retry_budget(const mcph::plugin::HookRequest& refusal);

}  // namespace mcph::http
