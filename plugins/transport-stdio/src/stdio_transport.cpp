#include "stdio_transport.hpp"

#include "command_line.hpp"
#include "environment.hpp"
#include "pipe_io.hpp"
#include "resource_limits.hpp"
#include "signals.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mcph::stdio {

using mcph::plugin::Error;
using namespace std::chrono_literals;

namespace {
constexpr size_t kReadBufferBytes = size_t{64} << 10;
constexpr size_t kStderrTailBytes = 4096;
// At stdout EOF, how long to wait for the last stderr bytes before building the report.
constexpr auto kStderrSettle = 500ms;
// At stdout EOF, the shortest wait for the exit status, even with shutdownGraceMs = 0.
constexpr std::chrono::milliseconds kMinExitWait = 100ms;
}  // namespace

StdioTransport::StdioTransport(mcph::plugin::TransportHost host, std::string_view config_json)
    : host_(host),
      config_(parse_config(config_json)),
      log_source_(config_.name.empty() ? "stdio" : "stdio:" + config_.name),
      lines_(config_.max_message_bytes),
      stderr_buffer_(config_.stderr_cap_bytes) {}

StdioTransport::~StdioTransport() { close(); }

// ---- start ----------------------------------------------------------------------------------

void StdioTransport::start() {
    if (closed_) throw Error(MCPH_ERR_CLOSED, "transport is closed");
    if (started_) throw Error(MCPH_ERR_INVALID_ARGUMENT, "transport already started");
    ignore_sigpipe_once();  // also done in plugin init; repeated in case a host skipped init

    SpawnSpec spec;
    spec.env = child_environment(config_.env);
    spec.argv = build_argv(shell_prefix_from_environment(), config_.command, config_.args);
    auto path = spec.env.find("PATH");
    spec.program = resolve_program(spec.argv.front(), path == spec.env.end() ? "" : path->second, config_.cwd);
    spec.cwd = config_.cwd;

    child_ = ChildProcess::spawn(spec);
    stdin_ = std::move(child_->stdin_fd);
    stdout_ = std::move(child_->stdout_fd);
    stderr_ = std::move(child_->stderr_fd);
    started_ = true;
    log(MCPH_LOG_DEBUG, "started pid " + std::to_string(child_->pid()) + ": " + spec.program);
    start_threads();
}

void StdioTransport::start_threads() {
    try {
        stderr_thread_ = std::thread([this] { drain_stderr(); });
        stdout_thread_ = std::thread([this] { read_stdout(); });
    } catch (const std::system_error& e) {  // EAGAIN at the thread limit
        close();  // kills the child and joins whichever thread did start
        throw Error(MCPH_ERR_IO, std::string("cannot start reader threads: ") + e.what() + limit_hint(e.code().value()));
    } catch (const std::exception& e) {
        close();
        throw Error(MCPH_ERR_IO, std::string("cannot start reader threads: ") + e.what());
    }
}

// ---- send -----------------------------------------------------------------------------------

void StdioTransport::send(std::string_view message) {
    if (message.find('\n') != std::string_view::npos)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "message contains a newline (stdio frames one message per line)");
    std::lock_guard lock(write_mutex_);
    if (!stdin_ || closing_.load() || ended_.load()) throw Error(MCPH_ERR_CLOSED, "transport is closed");
    int error_code = 0;
    switch (write_all(stdin_.get(), message, "\n", send_wake_.fd(), error_code)) {
        case WriteResult::ok:
            return;
        case WriteResult::closed:
            throw Error(MCPH_ERR_CLOSED, "the server closed its stdin");
        case WriteResult::error:
            throw Error(MCPH_ERR_IO, std::string("write to the server's stdin failed: ") + std::strerror(error_code));
    }
}

// ---- the stdout reader thread ---------------------------------------------------------------

void StdioTransport::read_stdout() noexcept {
    try {
        std::unique_ptr<char[]> buffer(new char[kReadBufferBytes]);
        bool framing = true;  // false after a fatal framing error: keep draining, deliver nothing
        for (;;) {
            ssize_t n = read_or_wake(stdout_.get(), buffer.get(), kReadBufferBytes, read_wake_.fd());
            if (n > 0) {
                if (framing && !lines_.feed(buffer.get(), static_cast<size_t>(n),
                                            [this](std::string_view line) { on_line(line); })) {
                    framing = false;
                    on_oversized_line();
                }
                continue;
            }
            if (n == 0) return on_stdout_eof();
            if (n == -1) return;  // close() told us to stop
            return finish(MCPH_CLOSE_ERROR, std::string("read from the server's stdout failed: ") + std::strerror(errno));
        }
    } catch (const std::exception& e) {
        on_internal_error(e.what());
    } catch (...) {
        on_internal_error("unknown exception");
    }
}

void StdioTransport::on_line(std::string_view line) {
    // Delivered right here on the reader thread: no queue, no hand-off. Once close() has begun
    // the host no longer wants messages, and close() joins us before returning.
    if (!closing_.load(std::memory_order_acquire)) host_.deliver(line);
}

void StdioTransport::on_oversized_line() {
    std::string message = "message exceeds " + std::to_string(config_.max_message_bytes) + " bytes";
    if (!closing_.load()) host_.diagnostic(MCPH_LOG_ERROR, message + " (maxMessageBytes); closing the transport");
    finish(MCPH_CLOSE_ERROR, message);
}

void StdioTransport::on_stdout_eof() {
    if (closing_.load() || ended_.load()) return;
    // The server closed stdout, normally because it exited. Give it a moment to finish exiting
    // (EOF can arrive just before the exit status does), and stderr a moment to flush.
    std::optional<ExitStatus> status = child_->wait_exit(std::max(config_.shutdown_grace, kMinExitWait), &closing_);
    wait_stderr_eof(kStderrSettle);
    if (!status) return finish(MCPH_CLOSE_ERROR, with_stderr_tail("process closed its stdout but is still running"));
    if (status->clean() || !status->known) return finish(MCPH_CLOSE_CLEAN, status->describe());
    finish(MCPH_CLOSE_ERROR, with_stderr_tail(status->describe()));
}

void StdioTransport::on_internal_error(std::string_view what) {
    finish(MCPH_CLOSE_ERROR, std::string("internal error in the stdio reader: ") + std::string(what));
}

void StdioTransport::finish(mcph_close_reason reason, std::string_view detail) {
    // Our own close() is not news to the host; and on_closed fires at most once.
    if (closing_.load() || ended_.exchange(true)) return;
    host_.closed(reason, detail);
}

// ---- the stderr drain thread ----------------------------------------------------------------

void StdioTransport::drain_stderr() noexcept {
    // Never stop reading before EOF: a server blocked on a full stderr pipe would hang.
    char buffer[kReadBufferBytes];  // on this thread's own stack, which is 8 MiB by default
    for (;;) {
        ssize_t n = read_or_wake(stderr_.get(), buffer, sizeof buffer, read_wake_.fd());
        if (n <= 0) break;
        try {
            stderr_buffer_.append(buffer, static_cast<size_t>(n));
        } catch (...) {
            // Out of memory: losing diagnostics is better than blocking the server.
        }
    }
    {
        std::lock_guard lock(stderr_mutex_);
        stderr_eof_ = true;
    }
    stderr_cv_.notify_all();
}

bool StdioTransport::wait_stderr_eof(std::chrono::milliseconds timeout) {
    std::unique_lock lock(stderr_mutex_);
    return stderr_cv_.wait_for(lock, timeout, [this] { return stderr_eof_ || closing_.load(); });
}

std::string StdioTransport::with_stderr_tail(std::string detail) const {
    std::string tail = stderr_buffer_.tail(kStderrTailBytes);
    if (!tail.empty()) detail.append("; stderr:\n").append(tail);
    return detail;
}

// ---- close ----------------------------------------------------------------------------------

void StdioTransport::close() noexcept {
    if (closed_) return;
    closed_ = true;
    closing_.store(true);
    {
        std::lock_guard lock(stderr_mutex_);  // pairs with wait_stderr_eof's predicate
    }
    stderr_cv_.notify_all();
    send_wake_.signal();
    if (!child_) return;  // never started
    {
        std::lock_guard lock(write_mutex_);  // senders were woken and let go promptly
        stdin_.reset();                      // EOF on stdin: the polite way to ask a server to exit
    }
    stop_child();
    shut_down_threads();
}

void StdioTransport::stop_child() noexcept {
    auto grace = config_.shutdown_grace;
    if (!child_->wait_exit(grace)) {
        log(MCPH_LOG_INFO, "server did not exit after stdin was closed; sending SIGTERM");
        child_->signal_group(SIGTERM);
        if (!child_->wait_exit(grace)) {
            log(MCPH_LOG_WARN, "server ignored SIGTERM; sending SIGKILL");
            child_->signal_group(SIGKILL);
        }
    }
    // The leader is gone (or dying) but its zombie still pins the group id: sweep whatever it
    // left behind in its group, which could otherwise hold our pipes open forever.
    child_->signal_group(SIGKILL);
    child_->reap();
}

void StdioTransport::shut_down_threads() noexcept {
    // The group is dead, so EOF is imminent; but a process that left our group may still hold a
    // pipe, and close() must return regardless.
    read_wake_.signal();
    if (stdout_thread_.joinable()) stdout_thread_.join();
    if (stderr_thread_.joinable()) stderr_thread_.join();
    stdout_.reset();
    stderr_.reset();
}

void StdioTransport::log(mcph_log_level level, const std::string& message) const {
    host_.log(level, log_source_, message);
}

}  // namespace mcph::stdio
