// The "stdio" transport: an MCP server as a child process, one JSON-RPC message per line.
//
// Threads (see ../README.md):
//   reader         poll over stdout and stderr; stdout: read 64 KiB, frame lines, call on_message
//                  directly (the hot path); stderr: into a capped buffer, so a chatty server
//                  never blocks on it. At stdout EOF it looks at the exit status (still draining
//                  stderr) and reports on_closed once, typed (ABI 1.1: PROCESS_EXITED with the
//                  exit status, the stderr tail as its own field). After readerIdleMs with nothing
//                  to read it *retires*: the process's idle watch (idle_watch.hpp, one thread for
//                  every server) waits on both pipes instead, and starts a new reader thread when
//                  output or EOF comes. A quiet server costs no thread of its own.
//   callers        send() writes on the calling thread under a mutex when nothing is queued and
//                  the pipe has room (the hot path: no hand-off); otherwise it queues the bytes,
//                  bounded, and returns at once.
//   stdin writer   drains that queue with poll(POLLOUT); a server that accepts no byte for
//                  writeStallTimeoutMs while bytes wait is reported as a terminal error. Started
//                  by the first send that finds the pipe full, so a server that keeps up with its
//                  input costs one thread, not two.
//   host thread    start(), close().
//   pumping caller [ABI 1.3] a host thread waiting for its reply calls pump(): it takes the *read
//                  role* and reads stdout/stderr and delivers on its own thread, so a synchronous
//                  call costs one sleep (in poll) instead of the reader's wake-up plus the
//                  caller's. One role holder at a time (on_message stays serialised, in order):
//                  the reader thread parks while a caller holds the role and resumes only once no
//                  caller has held it for kReaderGrace, so back-to-back calls keep the role with
//                  the callers and nothing wakes the reader per call. A caller that finds the
//                  reader holding the role (the first call after a quiet spell) does not make it
//                  yield: when the reader's poll ends (the reply is there) it hands the role over
//                  without reading, and the caller reads and delivers its reply on its own thread
//                  (mcph/pump_handover.hpp).
#pragma once

#include "child_process.hpp"
#include "config.hpp"
#include "line_reader.hpp"
#include "pipe_growth.hpp"
#include "outgoing_queue.hpp"
#include "stderr_buffer.hpp"
#include "wakeup.hpp"  // plugins/io-common

#include <mcph/plugin_helper.hpp>
#include <mcph/pump_handover.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace mcph::stdio {

using io::Wakeup;

class StdioTransport final : public mcph::plugin::Transport {
public:
    StdioTransport(mcph::plugin::TransportHost host, std::string_view config_json);
    ~StdioTransport() override;

    void start() override;                        // [host-thread]
    void send(std::string_view message) override; // [thread-safe], also from inside on_message
    void close() noexcept override;               // [host-thread], idempotent
    mcph_status pump(std::int32_t timeout_ms) override;  // [any host thread, one at a time]

private:
    // What one round of reading ended with.
    enum class ReadStep {
        idle,     // read something (or nothing) and may read again
        hand_over,            // the reader thread's poll ended with a pumping caller waiting: the caller reads
        hand_over_delivered,  // the reader thread delivered as a pumping caller came: the role is the caller's
        quiet,    // nothing came within the poll's timeout
        retired,  // the reader thread gave the pipes to the idle watch: it ends
        stop,     // close() said stop
        ended,    // stdout is finished (EOF, an error): nobody reads again
    };
    void start_threads();
    void read_stdout() noexcept;
    bool take_read_role() noexcept;
    bool retire() noexcept;
    void revive_reader() noexcept;
    ReadStep read_round(int timeout_ms);
    mcph_status pump_rounds(std::chrono::steady_clock::time_point deadline) noexcept;
    void release_pump_role(bool read_finished) noexcept;
    void on_read_error(const char* what);
    void read_stderr_once() noexcept;
    void drain_stderr_for(std::chrono::milliseconds timeout, int exit_fd = -1) noexcept;
    std::optional<ExitStatus> wait_exit_draining(std::chrono::milliseconds timeout) noexcept;
    void write_stdin() noexcept;
    void write_locked(std::string_view body, std::string_view tail);
    void write_cork_locked();
    void flush_cork() noexcept;
    void start_writer_locked();
    bool write_queued(std::unique_lock<std::mutex>& lock);
    void fail_writes(std::unique_lock<std::mutex>& lock, mcph::plugin::Failure failure, bool report);
    void flush_and_stop_writer() noexcept;
    [[noreturn]] void refuse_send_locked() const;
    void on_line(std::string_view line);
    void on_oversized_line();
    void on_stdout_eof();
    void on_internal_error(std::string_view what);
    void finish(mcph_close_reason reason, mcph::plugin::Failure failure);
    bool wait_stderr_eof(std::chrono::milliseconds timeout) noexcept;
    mcph::plugin::Failure with_stderr_tail(mcph::plugin::Failure failure) const;
    void stop_child() noexcept;
    void shut_down_threads() noexcept;
    void log(mcph_log_level level, const std::string& message) const;

    mcph::plugin::TransportHost host_;
    StdioConfig config_;
    std::string log_source_;

    std::unique_ptr<ChildProcess> child_;
    // One writer at a time on stdin. Guards stdin_, queue_, last_progress_, the writer_* flags and
    // write_failure_. Held only across non-blocking writes, never across a wait or a callback.
    std::mutex write_mutex_;
    std::condition_variable write_cv_;  // queue became non-empty / empty; writer exited
    UniqueFd stdin_;
    PipeGrowth stdin_pipe_;  // grown for large messages (see pipe_growth.hpp)
    OutgoingQueue queue_;
    size_t queue_limit_bytes_;                          // max(2 x maxMessageBytes, 16 MiB)
    std::chrono::steady_clock::time_point last_progress_;  // the pipe last accepted bytes (or queueing began)
    bool writer_stop_ = false;    // close(): flush what is queued, then exit
    bool writer_exited_ = false;  // the writer thread is done (flushed, failed or told to stop)
    std::string write_failure_;   // non-empty: writing ended for good; later sends are refused with it
    // Messages sent from inside a delivery by the thread holding the read role (a request_async
    // handler sending its next request, a ping answered inline), written together once the lines
    // of that read were delivered: one write(2) and one wake-up of the server per read, not per
    // message. Non-empty only while queue_ is empty (whatever else is sent flushes it first).
    std::string cork_;
    UniqueFd stdout_;
    UniqueFd stderr_;
    // Fired by close() once flushing is over: the writer stops waiting for room. Made with the
    // writer thread (under write_mutex_), the only one that waits on it: most servers never fill
    // their stdin pipe, and a descriptor per server matters at hundreds of servers.
    std::optional<Wakeup> send_wake_;
    Wakeup read_wake_;  // fired by close() once the group is dead: readers stop even without EOF

    // The read state below belongs to whoever holds the read role (the reader thread, or a host
    // thread inside pump()); the role passes under role_mutex_, which orders their accesses.
    LineReader lines_;                     // stdout is read straight into its buffer
    PipeGrowth stdout_pipe_;               // grown while large lines come (see pipe_growth.hpp)
    StderrBuffer stderr_buffer_;
    bool stderr_open_ = true;              // stderr not at EOF yet
    bool framing_ = true;                  // false after a fatal framing error: keep draining, deliver nothing
    std::size_t delivered_ = 0;            // messages on_line delivered (a pump returns after one)
    int retire_after_ms_;                  // the reader's poll timeout: readerIdleMs, or -1 (never retire)

    // Who holds the read role. Guards the flags and released_at_.
    std::mutex role_mutex_;
    std::condition_variable reader_cv_;   // the parked reader thread waits here (timed; close() notifies)
    std::condition_variable handoff_cv_;  // a pumper waits for the reader's hand-over; close() for the pumper to leave
    bool reader_reading_ = false;         // the reader thread holds the role
    bool pumper_ = false;                 // a host thread holds the role (inside pump)
    bool read_done_ = false;              // stdout is finished: nobody reads again
    bool reader_stop_ = false;            // close() is done with the child: the reader thread ends
    bool retired_ = false;                // no reader thread: the idle watch waits on the pipes
    bool watch_fired_ = false;            // the idle watch fired while the reader was still retiring
    std::chrono::steady_clock::time_point released_at_{};  // a pumper last gave the role back
    mcph::plugin::PumpHandover handover_;  // the reader thread's role to a waiting pumper (pump())

    std::thread stdout_thread_;  // the reader; replaced by revive_reader() after a retirement (role_mutex_)
    std::thread writer_thread_;  // guarded by write_mutex_ until close() joins it

    std::atomic<bool> closing_{false};  // close() began: deliver nothing more
    std::atomic<bool> ended_{false};    // on_closed fired (or will never fire)
    bool started_ = false;              // host thread only
    bool closed_ = false;               // host thread only
};

}  // namespace mcph::stdio
