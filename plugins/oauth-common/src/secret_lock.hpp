// The host's cross-process lock on one secret key (mcph_host_services v1.2 secret_lock), held
// for a scope. A refresh is re-read → refresh → save under it, so two processes sharing a
// rotating refresh token never both spend it: the second one waits, re-reads and adopts the
// first one's tokens. A host without the service (older ABI, or a store private to its process)
// leaves the scope unlocked — there is no other process to exclude.
#pragma once

#include "errors.hpp"

#include <mcph/plugin_helper.hpp>

#include <cstddef>
#include <string>

namespace mcph::oauth {

class SecretLock {
public:
    // Throws OAuthError(lock_busy) when the host has the lock but cannot take it within
    // `timeout_ms` (another process is refreshing, or stuck doing so) — a reason to try again
    // later, never to start a new sign-in — and OAuthError(refresh_failed) when the lock itself
    // is unusable.
    SecretLock(const mcph_host_services* host, const std::string& key, uint32_t timeout_ms) : host_(host) {
        if (!offered(host)) return;
        mcph_error err = mcph::plugin::make_error();
        mcph_status st = host->secret_lock(host->host_data, mcph::plugin::str(key), timeout_ms, &handle_, &err);
        if (st == MCPH_OK) return;
        handle_ = nullptr;
        if (st == MCPH_ERR_UNSUPPORTED) return;
        if (st == MCPH_ERR_TIMEOUT)
            throw OAuthError(FailureKind::lock_busy,
                             "another process holds the refresh lock for these credentials (not free within " +
                                 std::to_string(timeout_ms / 1000) + " s); try again once it has finished");
        throw OAuthError(FailureKind::refresh_failed, std::string("cannot take the refresh lock: ") + err.message);
    }
    ~SecretLock() {
        if (handle_) host_->secret_unlock(host_->host_data, handle_);
    }
    SecretLock(const SecretLock&) = delete;
    SecretLock& operator=(const SecretLock&) = delete;

    bool held() const { return handle_ != nullptr; }

private:
    static bool offered(const mcph_host_services* host) {
        return host && host->struct_size >= offsetof(mcph_host_services, secret_unlock) + sizeof host->secret_unlock &&
               host->secret_lock && host->secret_unlock;
    }
    const mcph_host_services* host_;
    void* handle_ = nullptr;
};

}  // namespace mcph::oauth
