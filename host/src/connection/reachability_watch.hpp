// ReachabilityWatch — reachability diagnosed from a connect's own outcome (issue #16), instead of
// a DNS + TCP check of its own before every handshake (a second connection, a resolver thread and
// ~0.3 ms on each connect that succeeds):
//   - a connect that succeeds before `timeout / 5` opens no other connection;
//   - a connect that fails at the connection level is diagnosed after the failure
//     (check_reachable), so the user still reads the step that failed;
//   - a connect still running at `timeout / 5` gets a probe beside it, on a thread of its own, with
//     what is left of `timeout`: a silent host (SYNs dropped, a resolver that hangs) still ends
//     `timeout` after the attempt began — the bound of the check it replaces, not the handshake's
//     longer connect timeout — because a probe that finds a problem aborts the connect.
// Used for Streamable HTTP ("http") only: the sse and ws plugins block in start() for their own
// handshake, which a close() does not end, so for them the check still runs first
// (ServerConnection::connect_diagnosed).
// Why not decide on the plugin's failure category: SessionCore turns a failed initialize into an
// Error without it (session_core_internals.hpp, request_failure_error), so every connection-level
// failure is ambiguous here and is checked; the category is never guessed from message text.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mcph::connection {

class ReachabilityWatch : public std::enable_shared_from_this<ReachabilityWatch> {
public:
    using Clock = std::chrono::steady_clock;

    // Starts watching an attempt that begins now. `abort` ends the attempt (closes its session);
    // it runs at most once, on the probe's thread, and never after settle_success/failure began.
    static std::shared_ptr<ReachabilityWatch> arm(boost::asio::io_context& loop, std::string url,
                                                  std::chrono::milliseconds timeout, std::function<void()> abort);

    // The attempt succeeded. The problem a probe found if it aborted the attempt first (the caller
    // then reports it), nullopt otherwise; a probe still running is ignored from now on.
    std::optional<std::string> settle_success();
    // The attempt failed at the connection level: the problem, or nullopt when the host is
    // reachable (the attempt's own error stands). Waits for a running probe (bounded by `timeout`),
    // or runs the check now if none ran.
    std::optional<std::string> settle_failure();

    // When the probe starts, after the attempt began (a fifth of the budget).
    static std::chrono::milliseconds slow_after(std::chrono::milliseconds timeout);

    ReachabilityWatch(std::string url, std::chrono::milliseconds timeout, std::function<void()> abort);

private:
    enum class Phase { Armed, Probing, Probed };
    void on_slow();
    void probe();

    const std::string url_;
    const std::chrono::milliseconds timeout_;
    const Clock::time_point started_ = Clock::now();
    std::function<void()> abort_;

    std::mutex mutex_;
    std::condition_variable probed_;
    Phase phase_ = Phase::Armed;
    bool settled_ = false;  // the attempt is over: no abort any more
    bool aborted_ = false;
    std::optional<std::string> verdict_;
};

}  // namespace mcph::connection
