#include "connection/reconnect_policy.hpp"

#include "connection/env_integer.hpp"

#include <mcph/error.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace mcph::connection {
namespace {

constexpr long long kMaxMillis = 24LL * 60 * 60 * 1000;  // a day: anything longer is a typo
constexpr long long kMaxAttempts = 1000;

void read_millis(const char* name, long long min, std::chrono::milliseconds& out) {
    if (auto v = env_integer(name, min, kMaxMillis)) out = std::chrono::milliseconds(*v);
}

}  // namespace

std::chrono::milliseconds ReconnectPolicy::delay_before(int attempt) const {
    // Doubling in a loop rather than a shift: no overflow however large `attempt` is.
    std::chrono::milliseconds delay = initial_backoff;
    for (int i = 1; i < attempt && delay < max_backoff; ++i) delay *= 2;
    return std::min(delay, max_backoff);
}

ReconnectPolicy ReconnectPolicy::from_environment() {
    ReconnectPolicy p;
    if (auto v = env_integer("MCPH_RECONNECT_ATTEMPTS", 0, kMaxAttempts)) p.max_attempts = static_cast<int>(*v);
    // A zero backoff would reconnect in a tight loop against a server that is down.
    read_millis("MCPH_RECONNECT_INITIAL_MS", 1, p.initial_backoff);
    read_millis("MCPH_RECONNECT_MAX_MS", 1, p.max_backoff);
    read_millis("MCPH_RECONNECT_STABLE_MS", 0, p.stable_after);
    if (p.max_backoff < p.initial_backoff)
        throw Error(ErrorKind::Usage, "MCPH_RECONNECT_MAX_MS (" + std::to_string(p.max_backoff.count()) +
                                          ") is below the initial backoff (" +
                                          std::to_string(p.initial_backoff.count()) + " ms)");
    return p;
}

CrashLoopGuard::CrashLoopGuard(ReconnectPolicy policy) : policy_(policy) {}

void CrashLoopGuard::on_connected(Clock::time_point now) { connected_at_ = now; }

std::optional<std::chrono::milliseconds> CrashLoopGuard::on_disconnected(Clock::time_point now) {
    if (connected_at_ && now - *connected_at_ >= policy_.stable_after) attempts_ = 0;
    connected_at_.reset();
    return next_attempt();
}

std::optional<std::chrono::milliseconds> CrashLoopGuard::on_attempt_failed() { return next_attempt(); }

void CrashLoopGuard::reset() {
    attempts_ = 0;
    connected_at_.reset();
}

std::optional<std::chrono::milliseconds> CrashLoopGuard::next_attempt() {
    if (attempts_ >= policy_.max_attempts) return std::nullopt;
    ++attempts_;
    return policy_.delay_before(attempts_);
}

}  // namespace mcph::connection
