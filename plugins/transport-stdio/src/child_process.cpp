#include "child_process.hpp"

#include "resource_limits.hpp"

#include <mcph/plugin_helper.hpp>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/pipe.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

namespace bp = boost::process;

namespace mcph::stdio {
namespace {

[[noreturn]] void cannot_start(const SpawnSpec& spec, const std::string& reason) {
    throw mcph::plugin::Error(MCPH_ERR_IO, "cannot start '" + spec.argv.front() + "': " + reason);
}

// Moves a descriptor above 0..2: if the host runs with a closed stdin/stdout/stderr, pipe2() can
// return 0..2, and the child's dup2() onto its standard descriptors would clobber another pipe.
int above_stdio(int fd) {
    if (fd > STDERR_FILENO) return fd;
    int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int saved = errno;
    ::close(fd);
    errno = saved;
    return moved;
}

// A pipe whose both ends are O_CLOEXEC from birth: another thread of the host spawning its own
// process at the same moment must not inherit our ends (an inherited stdin write end would keep
// our child from ever seeing EOF). The child gets its ends through dup2(), which clears the flag.
bp::pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_system_error(errno, "pipe2");
    int read_end = above_stdio(fds[0]);
    int write_end = above_stdio(fds[1]);
    if (read_end < 0 || write_end < 0) {
        int saved = errno;
        if (read_end >= 0) ::close(read_end);
        if (write_end >= 0) ::close(write_end);
        throw_system_error(saved, "fcntl(F_DUPFD_CLOEXEC)");
    }
    return bp::pipe(read_end, write_end);
}

// Upper bound for the fallback of mark_inherited_cloexec(), computed before fork.
int descriptor_limit() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > 65536) return 65536;
    return static_cast<int>(lim.rlim_cur);
}

// Runs in the forked child before execve, so only async-signal-safe calls are allowed here.
struct ChildSetup : bp::extend::handler {
    const char* cwd;  // nullptr: inherit
    int fd_limit;
    rlim_t nofile_soft;  // 0: keep the host's; else the soft RLIMIT_NOFILE the mcph CLI started with

    template <class Executor>
    void on_exec_setup(Executor& exec) const {
        ::setpgid(0, 0);  // own process group, so shutdown can signal the server and its children
        reset_signals();
        mark_inherited_cloexec(fd_limit);
        restore_nofile_soft(nofile_soft);
        if (cwd && ::chdir(cwd) != 0) {
            // Boost 1.74's start_dir ignores chdir failures; report it through Boost's error pipe
            // and stop here instead of running the server in the wrong directory.
            exec.set_error(std::error_code(errno, std::system_category()), "chdir");
            ::_exit(127);
        }
    }

    // The exec failed after fork: Boost returns without reaping, which would leave a zombie.
    template <class Executor>
    void on_error(Executor& exec, const std::error_code&) const {
        if (exec.pid <= 0) return;
        ::kill(exec.pid, SIGKILL);  // in case it got past the failure (Boost keeps going on some)
        while (::waitpid(exec.pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }

    // Our pipes are O_CLOEXEC, but the host process may hold descriptors that are not (inherited
    // from its own parent, or opened by a careless library). None of them is the server's
    // business, so mark everything above stderr close-on-exec. Marking instead of closing keeps
    // Boost's exec-error pipe working until the execve itself.
    static void mark_inherited_cloexec(int fd_limit) {
#ifdef SYS_close_range
        constexpr unsigned kCloseRangeCloexec = 1u << 2;  // CLOSE_RANGE_CLOEXEC, Linux 5.11
        if (::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec) == 0) return;
#endif
        for (int fd = STDERR_FILENO + 1; fd < fd_limit; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }

    // The CLI raised its own soft limit for its many pipes; the server gets the limit the user
    // gave mcph (see resource_limits.hpp). Failure is harmless: the server just keeps more.
    static void restore_nofile_soft(rlim_t soft) {
        rlimit lim{};
        if (soft == 0 || ::getrlimit(RLIMIT_NOFILE, &lim) != 0 || soft >= lim.rlim_cur) return;
        lim.rlim_cur = soft;
        ::setrlimit(RLIMIT_NOFILE, &lim);
    }

    // Ignored dispositions and the signal mask survive execve. The host ignores SIGPIPE (see
    // signals.hpp) and its threads may block signals; the server must start with the defaults,
    // or SIGTERM/SIGPIPE would not work on it.
    static void reset_signals() {
        struct sigaction dfl;
        std::memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; ++sig) {
            if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
        }
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
    }
};

bp::environment to_boost_environment(const EnvMap& env) {
    bp::environment out;
    // set(), not operator[]: Boost.Process 1.x's find() (behind operator[]) compares "KEY=" with
    // each entry over the key's length and reads past an entry that is shorter (ASan: heap-buffer-
    // overflow once inheritEnv passes many variables); set() checks the length first. The map's keys
    // are unique, so nothing needs finding.
    for (const auto& [key, value] : env) out.set(key, value);
    return out;
}

void check_directory(const SpawnSpec& spec) {
    if (spec.cwd.empty()) return;
    struct stat st {};
    if (::stat(spec.cwd.c_str(), &st) != 0)
        cannot_start(spec, "working directory '" + spec.cwd + "': " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) cannot_start(spec, "working directory '" + spec.cwd + "' is not a directory");
}

void set_nonblocking(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
}

const char* signal_name(int sig) {
    switch (sig) {
        case SIGHUP: return "SIGHUP";
        case SIGINT: return "SIGINT";
        case SIGQUIT: return "SIGQUIT";
        case SIGILL: return "SIGILL";
        case SIGTRAP: return "SIGTRAP";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGKILL: return "SIGKILL";
        case SIGSEGV: return "SIGSEGV";
        case SIGPIPE: return "SIGPIPE";
        case SIGALRM: return "SIGALRM";
        case SIGTERM: return "SIGTERM";
        case SIGXCPU: return "SIGXCPU";
        case SIGXFSZ: return "SIGXFSZ";
        default: return nullptr;
    }
}

ExitStatus from_wait_status(int status) {
    ExitStatus s;
    if (WIFSIGNALED(status)) {
        s.signaled = true;
        s.value = WTERMSIG(status);
    } else {
        s.value = WEXITSTATUS(status);
    }
    return s;
}

}  // namespace

std::string ExitStatus::describe() const {
    if (!known) return "process exited (status unavailable: reaped elsewhere)";
    if (!signaled) return "process exited with code " + std::to_string(value);
    std::string out = "process killed by signal " + std::to_string(value);
    if (const char* name = signal_name(value)) out.append(" (").append(name).append(")");
    return out;
}

std::unique_ptr<ChildProcess> ChildProcess::spawn(const SpawnSpec& spec) {
    check_directory(spec);
    bp::pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
    ChildSetup setup;
    setup.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
    setup.fd_limit = descriptor_limit();
    setup.nofile_soft = static_cast<rlim_t>(child_nofile_soft_limit());
    std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());

    // The child's ends, which Boost's redirections take over from the bp::pipe objects below.
    const int child_ends[] = {in.native_source(), out.native_sink(), err.native_sink()};
    std::error_code ec;
    bp::child child(bp::exe = spec.program, bp::args = args, to_boost_environment(spec.env), bp::std_in < in,
                    bp::std_out > out, bp::std_err > err, setup, ec);
    const int spawn_errno = errno;
    // fork() fails with EAGAIN at the process limit.
    if (ec) cannot_start(spec, ec.message() + limit_hint(ec.value()));
    if (!child.valid() || child.id() <= 0) {
        // Boost.Process 1.74 returns an empty child *without* setting `ec` when it cannot create
        // its own exec-error pipe (EMFILE at the descriptor limit): nothing was forked and no
        // handler ran, so the child's pipe ends are still open and ours to close. Taken for a
        // started server, this hung the handshake forever and later signalled pid -(-1).
        for (int fd : child_ends) ::close(fd);
        cannot_start(spec, std::string("no process was started: ") + std::strerror(spawn_errno) + limit_hint(spawn_errno));
    }
    // From here on we own the pid: bp::child would otherwise SIGKILL it in its destructor, and its
    // running()/wait() would reap behind our back.
    child.detach();

    std::unique_ptr<ChildProcess> self;
    try {
        self.reset(new ChildProcess(child.id()));
    } catch (...) {  // out of memory: do not leave an unowned process behind
        ::kill(-child.id(), SIGKILL);
        ::waitpid(child.id(), nullptr, 0);
        throw;
    }
    self->stdin_fd.reset(in.native_sink());
    in.assign_sink(-1);
    self->stdout_fd.reset(out.native_source());
    out.assign_source(-1);
    self->stderr_fd.reset(err.native_source());
    err.assign_source(-1);
    set_nonblocking(self->stdin_fd.get());  // on failure the destructor kills and reaps
    return self;
}

ChildProcess::~ChildProcess() {
    signal_group(SIGKILL);
    reap();
}

std::optional<ExitStatus> ChildProcess::exit_status() {
    std::lock_guard lock(mutex_);
    if (status_) return status_;
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno != ECHILD) return std::nullopt;  // EINTR: look again next time
        lost_ = true;
        status_ = ExitStatus{false, false, 0};
        return status_;
    }
    if (info.si_pid == 0) return std::nullopt;  // still running
    ExitStatus s;
    s.signaled = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED;
    s.value = info.si_status;
    return s;  // not cached: reap() records the final word
}

std::optional<ExitStatus> ChildProcess::wait_exit(std::chrono::milliseconds timeout,
                                                  const std::atomic<bool>* cancel) {
    // Polling keeps this free of SIGCHLD handlers (which belong to the application) and works
    // on kernels without pidfd. The back-off keeps the first checks fast: most servers exit
    // within a few milliseconds of stdin EOF.
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto step = std::chrono::milliseconds(1);
    for (;;) {
        if (auto s = exit_status()) return s;
        if (cancel && cancel->load()) return std::nullopt;
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(step, deadline - now));
        step = std::min(step * 2, std::chrono::milliseconds(20));
    }
}

void ChildProcess::signal_group(int sig) noexcept {
    std::lock_guard lock(mutex_);
    // spawn() never builds one with pid_ <= 1, but kill(-pid_) with such a pid would signal far
    // more than a server (a process group of the host's, or every process): never let it through.
    if (reaped_ || lost_ || pid_ <= 1) return;
    ::kill(-pid_, sig);  // ESRCH (group already gone) is fine
}

ExitStatus ChildProcess::reap() noexcept {
    std::lock_guard lock(mutex_);
    if (reaped_) return *status_;
    if (!lost_) {
        int status = 0;
        pid_t r;
        while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
        }
        status_ = r == pid_ ? from_wait_status(status) : ExitStatus{false, false, 0};
    }
    reaped_ = true;
    return *status_;
}

}  // namespace mcph::stdio
