// Workload identity federation (SEP-1933, RFC 7523 §2.1): the JWT a workload platform issued to
// this process — a Kubernetes projected service-account token, a CI job's OIDC token — read
// from a file, an environment variable or a command each time a token is needed, because the
// platform rotates it. The assertion is a credential: it is never logged and never part of an
// error message or describe(); `where()` names the source instead.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mcph::oauth {

struct AssertionSourceConfig {
    std::string file;                  // assertionFile
    std::string env;                   // assertionEnv
    std::vector<std::string> command;  // assertionCommand: argv, no shell
    std::chrono::milliseconds timeout{10000};  // assertionTimeoutMs: how long the command may run
    bool configured() const { return !file.empty() || !env.empty() || !command.empty(); }
};

class AssertionSource {
public:
    // Larger than any JWT a platform issues; a bigger answer is an error, not a truncation.
    static constexpr size_t kMaxBytes = 64 * 1024;

    explicit AssertionSource(AssertionSourceConfig config) : config_(std::move(config)) {}

    // The current assertion, surrounding whitespace removed. Throws OAuthError(config_invalid)
    // naming the source and the reason (missing, empty, too large, command failed or timed out).
    std::string read() const;
    // "file /var/run/token", "environment variable X", "command kubectl": for messages.
    std::string where() const;

private:
    AssertionSourceConfig config_;
};

// The `exp` claim of a compact JWS, when it has one that can be read (the signature is the AS's
// business; this only spares a round trip with a token the platform let expire).
std::optional<long long> jwt_expiry(const std::string& jwt);

}  // namespace mcph::oauth
