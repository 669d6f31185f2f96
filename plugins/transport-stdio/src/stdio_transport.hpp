// The "stdio" transport: an MCP server as a child process, one JSON-RPC message per line.
//
// Threads (see ../README.md):
//   stdout reader  poll+read 64 KiB, frame lines, call on_message directly (the hot path);
//                  at EOF it looks at the exit status and reports on_closed once.
//   stderr drain   reads stderr into a capped buffer so a chatty server never blocks on it.
//   callers        send() writes on the calling thread under a mutex (no writer thread).
//   host thread    start(), close().
#pragma once

#include "child_process.hpp"
#include "config.hpp"
#include "line_reader.hpp"
#include "stderr_buffer.hpp"
#include "wakeup.hpp"

#include <mcph/plugin_helper.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace mcph::stdio {

class StdioTransport final : public mcph::plugin::Transport {
public:
    StdioTransport(mcph::plugin::TransportHost host, std::string_view config_json);
    ~StdioTransport() override;

    void start() override;                        // [host-thread]
    void send(std::string_view message) override; // [thread-safe], also from inside on_message
    void close() noexcept override;               // [host-thread], idempotent

private:
    void start_threads();
    void read_stdout() noexcept;
    void drain_stderr() noexcept;
    void on_line(std::string_view line);
    void on_oversized_line();
    void on_stdout_eof();
    void on_internal_error(std::string_view what);
    void finish(mcph_close_reason reason, std::string_view detail);
    bool wait_stderr_eof(std::chrono::milliseconds timeout);
    std::string with_stderr_tail(std::string detail) const;
    void stop_child() noexcept;
    void shut_down_threads() noexcept;
    void log(mcph_log_level level, const std::string& message) const;

    mcph::plugin::TransportHost host_;
    StdioConfig config_;
    std::string log_source_;

    std::unique_ptr<ChildProcess> child_;
    std::mutex write_mutex_;  // one writer at a time on stdin; guards stdin_
    UniqueFd stdin_;
    UniqueFd stdout_;
    UniqueFd stderr_;
    Wakeup send_wake_;  // fired by close(): unblocks senders waiting on a full stdin pipe
    Wakeup read_wake_;  // fired by close() once the group is dead: readers stop even without EOF

    LineReader lines_;
    StderrBuffer stderr_buffer_;
    std::mutex stderr_mutex_;
    std::condition_variable stderr_cv_;
    bool stderr_eof_ = false;  // guarded by stderr_mutex_

    std::thread stdout_thread_;
    std::thread stderr_thread_;

    std::atomic<bool> closing_{false};  // close() began: deliver nothing more
    std::atomic<bool> ended_{false};    // on_closed fired (or will never fire)
    bool started_ = false;              // host thread only
    bool closed_ = false;               // host thread only
};

}  // namespace mcph::stdio
