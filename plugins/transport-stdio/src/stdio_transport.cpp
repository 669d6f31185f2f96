#include "stdio_transport.hpp"

#include "command_line.hpp"
#include "environment.hpp"
#include "stdio_idle_watch.hpp"
#include "pipe_io.hpp"
#include "resource_limits.hpp"
#include "signals.hpp"
#include "thread_names.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mcph::stdio {

using mcph::plugin::Error;
using namespace std::chrono_literals;

namespace {
// A stderr read's chunk (on the stack: stdout is read straight into the line buffer).
constexpr size_t kStderrChunkBytes = size_t{16} << 10;
constexpr size_t kStderrTailBytes = 4096;
// At stdout EOF, how long to wait for the last stderr bytes before building the report.
constexpr auto kStderrSettle = 500ms;
// At stdout EOF, the shortest wait for the exit status, even with shutdownGraceMs = 0.
constexpr std::chrono::milliseconds kMinExitWait = 100ms;

// The outgoing queue's bounds. Bytes: room for two messages of the largest size the server may
// send us (a big answer to a big request), at least 16 MiB. Messages: each costs an allocation
// beyond its bytes, so a flood of tiny ones (answers to a server's request flood) is capped too.
constexpr size_t kMinQueueBytes = size_t{16} << 20;
constexpr size_t kMaxQueuedMessages = size_t{1} << 16;
// iovecs per writev from the queue (IOV_MAX is 1024; a pipe takes 64 KiB at a time anyway).
constexpr int kMaxIov = 64;
// How long the reader thread stays parked after a pumping caller last gave the read role back.
// Long enough that back-to-back synchronous calls (microseconds apart) keep the role with the
// callers, so nothing wakes the reader per call; short enough that a message the server sends
// while no call is waiting (a notification between calls) is still read within ~2 ms.
constexpr auto kReaderGrace = std::chrono::milliseconds(2);
// The cork (cork_): at most this much is held back; a larger message is written at once.
constexpr size_t kCorkBytes = 64 * 1024;
constexpr size_t kCorkMaxMessageBytes = 16 * 1024;

// The transport whose read-role holder is delivering on this thread: its sends are corked.
thread_local const StdioTransport* t_corking = nullptr;

// True on a reader thread (of any stdio transport): a pump from there, i.e. from inside one of
// its callbacks, is refused. Thread-local rather than a stored thread id: the id would be written
// by start() while the new thread may already be running.
thread_local bool t_reader_thread = false;

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

mcph::plugin::Failure failure(mcph_failure_category category, std::string message, int os_error = 0) {
    mcph::plugin::Failure f;
    f.category = category;
    f.os_error = os_error;
    f.message = std::move(message);
    return f;
}

// How the child ended, typed: os_error is its exit code, or 128 + the signal number when a signal
// killed it (the shell's $? convention, so people read it as they would in a terminal).
mcph::plugin::Failure exit_failure(const ExitStatus& status) {
    return failure(MCPH_FAILURE_PROCESS_EXITED, status.describe(),
                   !status.known ? 0 : status.signaled ? 128 + status.value : status.value);
}
}  // namespace

StdioTransport::StdioTransport(mcph::plugin::TransportHost host, std::string_view config_json)
    : host_(host),
      config_(parse_config(config_json)),
      log_source_(config_.name.empty() ? "stdio" : "stdio:" + config_.name),
      queue_limit_bytes_(std::max(2 * config_.max_message_bytes, kMinQueueBytes)),
      lines_(config_.max_message_bytes),
      stderr_buffer_(config_.stderr_cap_bytes),
      retire_after_ms_(config_.reader_idle.count() > 0
                           ? static_cast<int>(std::min<long long>(config_.reader_idle.count(), 1 << 30))
                           : -1) {}

StdioTransport::~StdioTransport() { close(); }

// ---- start ----------------------------------------------------------------------------------

void StdioTransport::start() {
    if (closed_) throw Error(MCPH_ERR_CLOSED, "transport is closed");
    if (started_) throw Error(MCPH_ERR_INVALID_ARGUMENT, "transport already started");
    ignore_sigpipe_once();  // also done in plugin init; repeated in case a host skipped init

    SpawnSpec spec;
    spec.env = child_environment(config_.env, config_.inherit_env);
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
        {
            // Under the role mutex: a reader that retires at once is revived by the idle watch's
            // thread, which replaces stdout_thread_ (the new thread's first step takes the mutex).
            std::lock_guard lock(role_mutex_);
            stdout_thread_ = io::start_thread("the I/O threads", [this] { read_stdout(); }, kServerCost);
        }
        // The stdin writer starts only when a send first finds the pipe full (start_writer_locked):
        // most servers read their input as fast as it comes, and never need one.
    } catch (const Error&) {  // EAGAIN at the thread limit, named
        close();  // kills the child and joins whichever thread did start
        throw;
    } catch (const std::exception& e) {
        close();
        throw Error(MCPH_ERR_IO, std::string("cannot start the I/O threads: ") + e.what());
    }
}

// ---- send -----------------------------------------------------------------------------------

// Why a queue and a writer thread rather than a blocking write: a server that stops reading its
// stdin (deaf, or flooding us and never reading the answers) would block the caller in write(2)
// once the 64 KiB pipe is full, past any timeout of the host, with the host's locks and threads
// tied up behind it. So send() never waits: when nothing is queued it writes on the caller's thread
// (the common case: no hand-off, no copy) and queues only what the pipe did not take; once bytes
// are queued every later message queues behind them (order is kept), and the writer thread drains
// the queue with poll(POLLOUT). The queue is bounded (bytes and messages: beyond, send fails with
// MCPH_ERR_IO naming the bound), and a server that accepts no byte for writeStallTimeoutMs while
// bytes wait is given up on with a terminal error.
void StdioTransport::send(std::string_view message) {
    if (message.find('\n') != std::string_view::npos)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "message contains a newline (stdio frames one message per line)");
    std::lock_guard lock(write_mutex_);
    if (!stdin_ || closing_.load() || ended_.load() || !write_failure_.empty()) refuse_send_locked();
    const size_t size = message.size() + 1;
    if (queue_.bytes() + size > queue_limit_bytes_)
        throw Error(MCPH_ERR_IO, (queue_.empty() ? std::string("a message of ")
                                                 : "the server is not reading its stdin: " + std::to_string(queue_.bytes()) +
                                                       " bytes are already queued and this message of ") +
                                     std::to_string(size) + " bytes would pass the outgoing bound of " +
                                     mib(queue_limit_bytes_) + " (max(2 x maxMessageBytes, 16 MiB))");
    if (queue_.messages() >= kMaxQueuedMessages)
        throw Error(MCPH_ERR_IO, "the server is not reading its stdin: " + std::to_string(kMaxQueuedMessages) +
                                     " messages are already queued (the bound on queued messages)");
    if (t_corking == this && queue_.empty() && size <= kCorkMaxMessageBytes && cork_.size() + size <= kCorkBytes) {
        cork_.append(message).push_back('\n');  // written at the end of this read (flush_cork)
        return;
    }
    if (!cork_.empty()) write_cork_locked();  // what was corked goes first: order is kept
    if (!queue_.empty()) {
        queue_.push(message, "\n");  // behind what is queued: the writer thread owns the pipe now
        return;
    }
    write_locked(message, "\n");
}

// One message (`body` + `tail`) on the caller's thread, nothing queued before it: what the pipe
// does not take is queued for the writer thread. Throws when the pipe is closed or broken.
void StdioTransport::write_locked(std::string_view body, std::string_view tail) {
    const size_t size = body.size() + tail.size();
    stdin_pipe_.ensure(stdin_.get(), size);  // a large message goes in one write, not queued behind a full pipe
    iovec iov[2] = {{const_cast<char*>(body.data()), body.size()}, {const_cast<char*>(tail.data()), tail.size()}};
    size_t written = 0;
    int error_code = 0;
    switch (write_some(stdin_.get(), iov, tail.empty() ? 1 : 2, written, error_code)) {
        case WriteResult::ok:
            return;
        case WriteResult::closed:
            throw Error(MCPH_ERR_CLOSED, "the server closed its stdin");
        case WriteResult::error:
            throw Error(MCPH_ERR_IO, std::string("write to the server's stdin failed: ") + std::strerror(error_code));
        case WriteResult::would_block:
            break;
    }
    // The pipe is full: queue the rest and let the writer thread wait for room.
    if (written < body.size()) queue_.push(body.substr(written), tail);
    else queue_.push({}, tail.substr(written - body.size()));
    last_progress_ = std::chrono::steady_clock::now();  // the stall clock starts when bytes start waiting
    if (!writer_thread_.joinable()) start_writer_locked();
    write_cv_.notify_all();
}

// The corked messages in one write (each already ends in "\n").
void StdioTransport::write_cork_locked() {
    std::string corked = std::move(cork_);
    cork_.clear();
    if (!queue_.empty()) queue_.push(corked, {});
    else write_locked(corked, {});
}

// At the end of a read whose deliveries sent messages. A failed write ends the transport as a
// failed write of the writer thread does: the messages were accepted and cannot arrive now.
void StdioTransport::flush_cork() noexcept {
    std::unique_lock lock(write_mutex_);
    if (cork_.empty()) return;
    if (!stdin_ || !write_failure_.empty()) {
        cork_.clear();
        return;
    }
    try {
        write_cork_locked();
    } catch (const Error& e) {
        fail_writes(lock, failure(MCPH_FAILURE_RESET, e.what(), e.status() == MCPH_ERR_CLOSED ? EPIPE : 0), true);
    } catch (const std::exception& e) {
        fail_writes(lock, failure(MCPH_FAILURE_OTHER, std::string("writing to the server's stdin failed: ") + e.what()), true);
    }
}

// The first time bytes must wait for the pipe. Called with write_mutex_ held: the new thread's first
// step is to take it, so it starts once this send has returned.
void StdioTransport::start_writer_locked() {
    try {
        // Each throws Error naming the limit: no descriptor for the wake-up, or no thread.
        if (!send_wake_) send_wake_.emplace("cannot start the stdin writer thread: eventfd");
        writer_thread_ = io::start_thread("the stdin writer thread", [this] { write_stdin(); }, kServerCost);
        return;
    } catch (const Error& e) {
        // Part of a message may be in the pipe already: the stream is unusable from here on.
        queue_.clear();
        write_failure_ = e.what();
        throw;
    }
}

void StdioTransport::refuse_send_locked() const {
    if (!write_failure_.empty()) throw Error(MCPH_ERR_CLOSED, write_failure_);
    throw Error(MCPH_ERR_CLOSED, "transport is closed");
}

// ---- the stdin writer thread ----------------------------------------------------------------

void StdioTransport::write_stdin() noexcept {
    name_this_thread(kWriterThreadName);
    std::unique_lock lock(write_mutex_);
    try {
        while (write_queued(lock)) {
        }
    } catch (...) {
        // Only allocation can throw here (the failure message); fail the writes without one.
        if (!lock.owns_lock()) lock.lock();
        queue_.clear();
        if (write_failure_.empty()) write_failure_ = "internal error in the stdin writer";
    }
    writer_exited_ = true;
    write_cv_.notify_all();
}

// One round of the writer: waits for bytes, writes what the pipe takes, waits for room up to the
// stall deadline. Returns false when the thread should end. `lock` is held on entry and exit.
bool StdioTransport::write_queued(std::unique_lock<std::mutex>& lock) {
    using Clock = std::chrono::steady_clock;
    write_cv_.wait(lock, [this] { return writer_stop_ || !queue_.empty(); });
    if (queue_.empty()) return false;  // told to stop, and everything was flushed

    iovec iov[kMaxIov];
    size_t written = 0;
    int error_code = 0;
    WriteResult r = write_some(stdin_.get(), iov, queue_.gather(iov, kMaxIov), written, error_code);
    if (written > 0) {
        queue_.consume(written);
        last_progress_ = Clock::now();
        if (queue_.empty()) write_cv_.notify_all();  // close() may be waiting for the flush
    }
    switch (r) {
        case WriteResult::ok:
            return true;
        case WriteResult::closed:
            // The reader reports how the server ended; sends from now on are refused.
            fail_writes(lock, failure(MCPH_FAILURE_RESET, "the server closed its stdin", EPIPE), false);
            return false;
        case WriteResult::error:
            fail_writes(lock,
                        failure(MCPH_FAILURE_RESET,
                                std::string("write to the server's stdin failed: ") + std::strerror(error_code), error_code),
                        true);
            return false;
        case WriteResult::would_block:
            break;
    }
    const auto deadline = last_progress_ + config_.write_stall_timeout;
    const auto now = Clock::now();
    if (now >= deadline) {
        fail_writes(lock,
                    failure(MCPH_FAILURE_TIMEOUT,
                            "the server stopped reading its input: its stdin accepted no byte for " +
                                std::to_string(config_.write_stall_timeout.count()) + " ms (writeStallTimeoutMs) while " +
                                std::to_string(queue_.bytes()) + " bytes were waiting"),
                    true);
        return false;
    }
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    const int fd = stdin_.get();  // stays open: close() resets it only after joining this thread
    const int wake_fd = send_wake_->fd();  // made before this thread was (start_writer_locked)
    lock.unlock();
    WaitResult w = wait_writable(fd, wake_fd, static_cast<int>(std::min<long long>(wait_ms, 1 << 30)));
    const int wait_errno = errno;
    lock.lock();
    if (w == WaitResult::woken) return false;  // close() gave up flushing
    if (w == WaitResult::error) {
        fail_writes(lock,
                    failure(MCPH_FAILURE_OTHER,
                            std::string("waiting to write to the server's stdin failed: ") + std::strerror(wait_errno),
                            wait_errno),
                    true);
        return false;
    }
    return true;  // room, or the deadline: the next round finds out which
}

// Writing ended for good: drop what is queued, refuse later sends with its message, and when
// `report`, close the transport with a terminal error (unless close() is what is happening).
void StdioTransport::fail_writes(std::unique_lock<std::mutex>& lock, mcph::plugin::Failure why, bool report) {
    queue_.clear();
    write_failure_ = why.message;
    write_cv_.notify_all();
    lock.unlock();  // no lock across a callback
    if (report && !closing_.load()) {
        log(MCPH_LOG_WARN, why.message);
        finish(MCPH_CLOSE_ERROR, std::move(why));
    }
    lock.lock();
}

// ---- the stdout reader thread ---------------------------------------------------------------

// One thread reads both of the server's output pipes: stdout lines are delivered, stderr chunks
// go to the capped buffer. Never stop reading stderr before EOF while the server may still write
// to it (a server blocked on a full stderr pipe would hang): poll() watches both, and the waits at
// stdout EOF drain stderr too. While a host thread pumps, that thread reads instead (pump()).
void StdioTransport::read_stdout() noexcept {
    t_reader_thread = true;
    name_this_thread(kReaderThreadName);
    try {
        bool holding = false;  // the role kept after a hand-over nobody waited for any more
        for (;;) {
            if (!holding && !take_read_role()) return;
            holding = false;
            ReadStep step = ReadStep::idle;
            while (step == ReadStep::idle) {
                const std::size_t before = delivered_;
                step = read_round(retire_after_ms_);
                if (step == ReadStep::quiet) step = retire() ? ReadStep::retired : ReadStep::idle;
                else if (step == ReadStep::idle && delivered_ != before && handover_.delivered(delivered_ - before))
                    step = ReadStep::hand_over_delivered;
            }
            if (step == ReadStep::retired) return;  // the role is given up; revive_reader() starts the next thread
            const bool hand_over = step == ReadStep::hand_over || step == ReadStep::hand_over_delivered;
            std::lock_guard lock(role_mutex_);
            if (hand_over && !handover_.hand_over_locked(step == ReadStep::hand_over_delivered)) {
                holding = true;  // the pumper left meanwhile (with a reply delivered before it came)
                continue;
            }
            reader_reading_ = false;
            if (step == ReadStep::ended) read_done_ = true;
            handoff_cv_.notify_all();  // the pumper waiting for the role
            if (!hand_over) return;
        }
    } catch (const std::exception& e) {
        on_internal_error(e.what());
    } catch (...) {
        on_internal_error("unknown exception");
    }
    std::lock_guard lock(role_mutex_);
    reader_reading_ = false;
    read_done_ = true;
    handoff_cv_.notify_all();
}

// The reader thread waits for the read role: while a caller pumps, and for kReaderGrace after one
// gave it back. Timed waits, never a notify from the pumper: waking the reader per call is the
// cost pump() exists to remove. False: stop (close() is done with the child, or stdout is finished).
bool StdioTransport::take_read_role() noexcept {
    std::unique_lock lock(role_mutex_);
    for (;;) {
        // Not on closing_: during close() the reader keeps draining, so a server writing as it
        // exits never blocks on a full pipe; shut_down_threads() says when to stop.
        if (read_done_ || reader_stop_) return false;
        const auto resume_at = released_at_ + kReaderGrace;
        if (pumper_) {
            reader_cv_.wait_for(lock, kReaderGrace);
        } else if (std::chrono::steady_clock::now() < resume_at) {
            reader_cv_.wait_until(lock, resume_at);
        } else {
            reader_reading_ = true;
            return true;
        }
    }
}

// The reader has had nothing to read for readerIdleMs: the idle watch takes over both pipes and
// this thread ends. Armed while the role is still held, so output that comes meanwhile is seen
// either by the watch (which then finds the reader still here: watch_fired_) or by the next poll.
// True: the role was given up and the thread must end now. False: keep reading -- a pumper waits
// for the role, close() began, output came while arming, or the watch could not be set up.
bool StdioTransport::retire() noexcept {
    io::IdleWatch& watch = idle_watch();
    int err_fd = -1;
    {
        std::lock_guard lock(role_mutex_);
        watch_fired_ = false;
        err_fd = stderr_open_ ? stderr_.get() : -1;
    }
    try {
        const int fds[] = {stdout_.get(), err_fd};
        watch.arm(this, fds, [](void* self) { static_cast<StdioTransport*>(self)->revive_reader(); });
    } catch (const std::exception& e) {
        // Out of descriptors or threads: this server keeps its reader, and does not try again
        // every readerIdleMs.
        retire_after_ms_ = -1;
        log(MCPH_LOG_INFO, std::string("the reader thread stays (readerIdleMs is off for this server): ") + e.what());
        return false;
    }
    std::unique_lock lock(role_mutex_);
    if (watch_fired_) return false;  // the watch's entry is spent; what it saw is read next round
    if (pumper_ || reader_stop_ || read_done_ || closing_.load()) {
        lock.unlock();
        watch.disarm(this);  // waits out a revive that saw the reader still here
        lock.lock();
        watch_fired_ = false;
        return false;
    }
    reader_reading_ = false;
    retired_ = true;
    handoff_cv_.notify_all();
    return true;
}

// [idle watch thread] Output or EOF came on a retired server's pipes: a new reader thread takes
// the role (once no caller holds it). The retired thread gave the role up under role_mutex_ and
// touches nothing after that, so joining it here is brief.
void StdioTransport::revive_reader() noexcept {
    std::unique_lock lock(role_mutex_);
    if (!retired_) {
        watch_fired_ = true;  // still retiring (retire() sees it) -- or nothing to do
        return;
    }
    if (reader_stop_ || read_done_) return;  // close() joins the retired thread
    retired_ = false;
    try {
        io::replace_thread(stdout_thread_, "the stdout reader thread again", [this] { read_stdout(); }, kServerCost);
    } catch (const Error& e) {  // EAGAIN at the thread limit
        read_done_ = true;  // nobody reads any more: pumps end with CLOSED
        lock.unlock();
        finish(MCPH_CLOSE_ERROR, failure(MCPH_FAILURE_OTHER, e.what()));
    }
}

// One poll and what it found, for whoever holds the read role. On the reader thread, a poll that
// ends while a pumping caller waits hands the role over before anything is read (the caller reads
// its reply on its own thread). Fatal outcomes are reported (finish) before ReadStep::ended.
StdioTransport::ReadStep StdioTransport::read_round(int timeout_ms) {
    pollfd fds[3] = {{stdout_.get(), POLLIN, 0}, {stderr_open_ ? stderr_.get() : -1, POLLIN, 0},
                     {read_wake_.fd(), POLLIN, 0}};
    const int ready = ::poll(fds, 3, timeout_ms);
    if (ready < 0) {
        if (errno == EINTR) return ReadStep::idle;
        on_read_error("waiting for the server's output failed");
        return ReadStep::ended;
    }
    if (ready == 0) return ReadStep::quiet;
    if (fds[2].revents) return ReadStep::stop;  // close() told us to stop
    if (t_reader_thread && handover_.wanted()) return ReadStep::hand_over;
    if (fds[1].revents) read_stderr_once();
    if (!fds[0].revents) return ReadStep::idle;
    LineReader::Room room{nullptr, 0};
    try {
        room = lines_.room();
    } catch (const std::bad_alloc&) {
        finish(MCPH_CLOSE_ERROR, failure(MCPH_FAILURE_OTHER, "out of memory for the server's output"));
        return ReadStep::ended;
    }
    ssize_t n = ::read(stdout_.get(), room.data, room.size);
    if (n > 0) {
        bool oversized = false;
        {
            struct Cork {
                explicit Cork(const StdioTransport* t) { t_corking = t; }
                ~Cork() { t_corking = nullptr; }
            } cork(this);
            oversized = framing_ && !lines_.commit(static_cast<size_t>(n), [this](std::string_view line) { on_line(line); });
        }
        flush_cork();
        if (oversized) {
            framing_ = false;
            lines_.discard();
            on_oversized_line();
        } else if (lines_.pending_size() >= stdout_pipe_.size()) {
            stdout_pipe_.ensure(stdout_.get(), lines_.pending_size() + 1);  // a line larger than the pipe: fewer, larger reads
        }
        return ReadStep::idle;
    }
    if (n == 0) {
        on_stdout_eof();
        return ReadStep::ended;
    }
    if (errno == EINTR || errno == EAGAIN) return ReadStep::idle;
    on_read_error("read from the server's stdout failed");
    return ReadStep::ended;
}

// ---- pump: a waiting host thread reads its own reply (ABI 1.3) ---------------------------------

mcph_status StdioTransport::pump(std::int32_t timeout_ms) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::max<std::int32_t>(timeout_ms, 0));
    if (!child_) return MCPH_ERR_CLOSED;  // never started
    if (t_reader_thread) return MCPH_BUSY;  // from inside a reader's callback
    std::unique_lock lock(role_mutex_);
    if (closing_.load() || ended_.load() || read_done_) return MCPH_ERR_CLOSED;
    if (pumper_) return MCPH_BUSY;
    pumper_ = true;
    if (reader_reading_) {
        // The first call after a quiet spell: the reader thread holds the role, in its poll. When
        // the poll ends (this caller's reply has come, typically) it hands the role over and we
        // read; if it was delivering as we came, it hands over after that, and a reply it
        // delivered before we came is not waited for (OK: the host looks whether it is its own).
        using Outcome = mcph::plugin::PumpHandover::Outcome;
        const Outcome outcome = handover_.wait(lock, handoff_cv_, deadline, [this] { return reader_reading_; });
        if (outcome == Outcome::delivered || outcome == Outcome::timed_out) {
            lock.unlock();
            release_pump_role(false);
            return outcome == Outcome::timed_out ? MCPH_ERR_TIMEOUT : MCPH_OK;
        }
    }
    if (closing_.load() || read_done_) {
        lock.unlock();
        release_pump_role(false);
        return MCPH_ERR_CLOSED;
    }
    lock.unlock();
    return pump_rounds(deadline);
}

// Reads with the role held until a message was delivered, the deadline, or the end; then gives
// the role back. Never throws: the role must be released whatever happens.
mcph_status StdioTransport::pump_rounds(std::chrono::steady_clock::time_point deadline) noexcept {
    using Clock = std::chrono::steady_clock;
    mcph_status status = MCPH_ERR_TIMEOUT;
    bool finished = false;
    try {
        delivered_ = 0;
        for (;;) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
            const ReadStep step = read_round(static_cast<int>(std::clamp<long long>(left, 0, 1 << 30)));
            if (step == ReadStep::stop) {
                status = MCPH_ERR_CLOSED;
                break;
            }
            if (step == ReadStep::ended) {
                finished = true;
                status = ended_.load() ? MCPH_OK : MCPH_ERR_CLOSED;  // OK: on_closed was delivered
                break;
            }
            if (delivered_ > 0 || ended_.load()) {  // ended_: a framing error was reported
                status = MCPH_OK;
                break;
            }
            if (Clock::now() >= deadline) break;
        }
    } catch (const std::exception& e) {
        on_internal_error(e.what());
        finished = true;
        status = MCPH_OK;
    } catch (...) {
        on_internal_error("unknown exception");
        finished = true;
        status = MCPH_OK;
    }
    release_pump_role(finished);
    return status;
}

// The role goes back; the parked reader resumes by itself after kReaderGrace (no wake-up here),
// unless stdout is finished, when it is told to end now. close() may be waiting for us to leave.
void StdioTransport::release_pump_role(bool read_finished) noexcept {
    std::lock_guard lock(role_mutex_);
    pumper_ = false;
    released_at_ = std::chrono::steady_clock::now();
    if (read_finished) {
        read_done_ = true;
        reader_cv_.notify_all();
    }
    handoff_cv_.notify_all();
}

void StdioTransport::on_read_error(const char* what) {
    const int read_errno = errno;
    finish(MCPH_CLOSE_ERROR, failure(MCPH_FAILURE_RESET, std::string(what) + ": " + std::strerror(read_errno), read_errno));
}

// One read of stderr into the capped buffer; at EOF (or an error) stderr is no longer watched.
void StdioTransport::read_stderr_once() noexcept {
    char chunk[kStderrChunkBytes];
    ssize_t n = ::read(stderr_.get(), chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        stderr_open_ = false;
        return;
    }
    try {
        stderr_buffer_.append(chunk, static_cast<size_t>(n));
    } catch (...) {
        // Out of memory: losing diagnostics is better than blocking the server.
    }
}

// Waits up to `timeout` for stderr to become readable (reading once if it does), for close(), or
// for `exit_fd` (ChildProcess::open_exit_fd) to say the server exited. With stderr at EOF it only
// sleeps, interruptibly.
void StdioTransport::drain_stderr_for(std::chrono::milliseconds timeout, int exit_fd) noexcept {
    pollfd fds[3] = {{stderr_open_ ? stderr_.get() : -1, POLLIN, 0}, {read_wake_.fd(), POLLIN, 0}, {exit_fd, POLLIN, 0}};
    if (::poll(fds, 3, static_cast<int>(timeout.count())) <= 0 || fds[1].revents) return;
    if (fds[0].revents) read_stderr_once();
}

void StdioTransport::on_line(std::string_view line) {
    // Delivered right here on the role holder's thread (the reader, or a pumping caller): no
    // queue, no hand-off. Once close() has begun
    // the host no longer wants messages, and close() joins us before returning.
    // After on_closed (e.g. the writer gave up on the server) nothing more is delivered either.
    if (closing_.load(std::memory_order_acquire) || ended_.load(std::memory_order_acquire)) return;
    host_.deliver(line);
    ++delivered_;
}

void StdioTransport::on_oversized_line() {
    std::string message = "message exceeds " + std::to_string(config_.max_message_bytes) + " bytes";
    if (!closing_.load()) host_.diagnostic(MCPH_LOG_ERROR, message + " (maxMessageBytes); closing the transport");
    finish(MCPH_CLOSE_ERROR, failure(MCPH_FAILURE_PROTOCOL, message));
}

void StdioTransport::on_stdout_eof() {
    if (closing_.load() || ended_.load()) return;
    // The server closed stdout, normally because it exited. Give it a moment to finish exiting
    // (EOF can arrive just before the exit status does), and stderr a moment to flush.
    std::optional<ExitStatus> status = wait_exit_draining(std::max(config_.shutdown_grace, kMinExitWait));
    wait_stderr_eof(kStderrSettle);
    if (!status)
        return finish(MCPH_CLOSE_ERROR,
                      with_stderr_tail(failure(MCPH_FAILURE_RESET, "process closed its stdout but is still running")));
    if (status->clean() || !status->known) return finish(MCPH_CLOSE_CLEAN, exit_failure(*status));
    finish(MCPH_CLOSE_ERROR, with_stderr_tail(exit_failure(*status)));
}

void StdioTransport::on_internal_error(std::string_view what) {
    finish(MCPH_CLOSE_ERROR, failure(MCPH_FAILURE_OTHER, "internal error in the stdio reader: " + std::string(what)));
}

// A host of ABI 1.0 gets the message with "; stderr:\n<tail>" appended (Failure::legacy_text).
void StdioTransport::finish(mcph_close_reason reason, mcph::plugin::Failure why) {
    // Our own close() is not news to the host; and on_closed fires at most once.
    if (closing_.load() || ended_.exchange(true)) return;
    host_.closed(reason, why);
}

// ---- waits at stdout EOF, draining stderr --------------------------------------------------

// Like ChildProcess::wait_exit (woken by the exit where there are pidfds, else the same back-off),
// but stderr keeps being read meanwhile: a server that closed stdout and then writes a long report
// to stderr before exiting must not block on the pipe and be taken for one that will not exit.
std::optional<ExitStatus> StdioTransport::wait_exit_draining(std::chrono::milliseconds timeout) noexcept {
    using Clock = std::chrono::steady_clock;
    const UniqueFd exit_fd = child_->open_exit_fd();
    const auto deadline = Clock::now() + timeout;
    auto step = std::chrono::milliseconds(exit_fd ? 20 : 1);
    for (;;) {
        if (auto s = child_->exit_status()) return s;
        if (closing_.load()) return std::nullopt;
        const auto now = Clock::now();
        if (now >= deadline) return std::nullopt;
        drain_stderr_for(std::min(step, std::chrono::ceil<std::chrono::milliseconds>(deadline - now)), exit_fd.get());
        step = std::min(step * 2, std::chrono::milliseconds(20));
    }
}

bool StdioTransport::wait_stderr_eof(std::chrono::milliseconds timeout) noexcept {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    while (stderr_open_ && !closing_.load()) {
        const auto now = Clock::now();
        if (now >= deadline) return false;
        drain_stderr_for(std::min(std::chrono::milliseconds(20), std::chrono::ceil<std::chrono::milliseconds>(deadline - now)));
    }
    return !stderr_open_;
}

mcph::plugin::Failure StdioTransport::with_stderr_tail(mcph::plugin::Failure why) const {
    why.stderr_tail = stderr_buffer_.tail(kStderrTailBytes);
    return why;
}

// ---- close ----------------------------------------------------------------------------------

void StdioTransport::close() noexcept {
    if (closed_) return;
    closed_ = true;
    closing_.store(true);  // the reader's waits at stdout EOF look at it at least every 20 ms
    if (!child_) return;  // never started
    flush_and_stop_writer();
    {
        std::lock_guard lock(write_mutex_);
        queue_.clear();
        stdin_.reset();  // EOF on stdin: the polite way to ask a server to exit
    }
    stop_child();
    shut_down_threads();
}

// What is queued still goes out before stdin is closed (a last notifications/cancelled, say), for
// at most shutdownGraceMs -- and less if the writer's stall rule gives up first -- so close() keeps
// its bounded duration against a server that stopped reading.
void StdioTransport::flush_and_stop_writer() noexcept {
    flush_cork();  // a role holder's corked messages, should close() come before its flush
    {
        std::unique_lock lock(write_mutex_);
        writer_stop_ = true;
        write_cv_.notify_all();
        write_cv_.wait_for(lock, config_.shutdown_grace, [this] { return queue_.empty() || writer_exited_; });
        if (send_wake_) send_wake_->signal();  // a writer still waiting for room stops now
    }
    if (writer_thread_.joinable()) writer_thread_.join();
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
    std::thread reader;
    {
        // A pumping caller sees read_wake_ too; it must have left the plugin before we return.
        std::unique_lock lock(role_mutex_);
        reader_stop_ = true;  // from here revive_reader() starts no thread
        reader_cv_.notify_all();  // a parked reader ends now
        handoff_cv_.wait(lock, [this] { return !pumper_; });
        reader = std::move(stdout_thread_);
    }
    if (reader.joinable()) reader.join();
    // After the join: the reader may have armed the idle watch on its way out. Once this returns
    // the watch holds neither our descriptors nor a revive of us.
    if (config_.reader_idle.count() > 0) idle_watch().disarm(this);
    stdout_.reset();
    stderr_.reset();
}

void StdioTransport::log(mcph_log_level level, const std::string& message) const {
    host_.log(level, log_source_, message);
}

}  // namespace mcph::stdio
