// The loopback redirect receiver of the authorization code flow (RFC 8252 §7.3).
//
// Listens on 127.0.0.1 only, on the configured port or a free one, from construction (so the
// redirect URI is known before registration) until destruction. Serves exactly one callback at
// the exact configured path — other paths get 404 and do not count — then stops accepting, so
// the port is free again as soon as the object is gone. The state check happens here so the
// browser is told at once when a callback is refused.
#pragma once

#include "cancellation.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace mcph::oauth {

struct CallbackResult {
    std::string code;
    std::string state;
    std::string iss;          // RFC 9207, when the AS sends it
    bool iss_present = false;  // `iss` was in the query, even empty: an empty iss is not an absent one
    std::string error;
    std::string error_description;
};

class LoopbackServer {
public:
    // Throws OAuthError(config_invalid) when the port cannot be bound.
    LoopbackServer(uint16_t port, std::string path);
    ~LoopbackServer();
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    uint16_t port() const;
    std::string redirect_uri() const;  // http://127.0.0.1:<port><path>

    // Starts serving; a callback whose state differs from `expected_state` is refused (the
    // browser sees 400, wait() throws state_mismatch).
    void start(const std::string& expected_state);
    // Blocks until the callback arrives or `timeout` passes (throws callback_timeout), or until
    // `cancel` cancels the call it belongs to (throws user_cancelled).
    CallbackResult wait(std::chrono::milliseconds timeout, const CancelScope& cancel = {});

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mcph::oauth
