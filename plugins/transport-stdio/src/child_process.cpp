#include "child_process.hpp"

#include "resource_limits.hpp"
#include "spawn_child.hpp"

#include <mcph/plugin_helper.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

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

// One pipe, both ends O_CLOEXEC from birth: another thread of the host spawning its own process at
// the same moment must not inherit our ends (an inherited stdin write end would keep our child from
// ever seeing EOF). The child gets its ends through dup3, which clears the flag on the copy.
struct Pipe {
    UniqueFd read_end, write_end;
};

Pipe make_pipe(int extra_flags = 0, const char* what = "pipe2") {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | extra_flags) != 0) throw_system_error(errno, what);
    Pipe p{UniqueFd(above_stdio(fds[0])), UniqueFd(above_stdio(fds[1]))};
    if (!p.read_end || !p.write_end) throw_system_error(errno, "fcntl(F_DUPFD_CLOEXEC)");
    return p;
}

// Upper bound for the child's descriptor sweep on kernels without close_range (before 5.9).
int descriptor_limit() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > 65536) return 65536;
    return static_cast<int>(lim.rlim_cur);
}

// execve's NULL-terminated arrays, pointing into `storage` (which must outlive them).
std::vector<char*> c_strings(std::vector<std::string>& storage) {
    std::vector<char*> out;
    out.reserve(storage.size() + 1);
    for (auto& s : storage) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

std::vector<std::string> environment_entries(const EnvMap& env) {
    std::vector<std::string> out;
    out.reserve(env.size());
    for (const auto& [key, value] : env) out.push_back(key + "=" + value);
    return out;
}

// What the child wrote before _exit(127), if its set-up failed. The pipe is non-blocking and the
// child has exec'd or exited when clone_child returns, so an empty pipe means the exec succeeded
// (0: EOF; EAGAIN: a concurrent spawn's child still holds a copy of the write end for a moment).
std::optional<ChildFailure> read_failure(int fd) {
    ChildFailure failure{};
    ssize_t n;
    while ((n = ::read(fd, &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof failure)) return std::nullopt;  // pipe writes this small are atomic
    return failure;
}

std::string describe(const ChildFailure& failure, const SpawnSpec& spec) {
    const std::string reason = std::strerror(failure.error);
    switch (failure.step) {
        case ChildStep::process_group: return "setpgid: " + reason;
        case ChildStep::standard_streams: return "dup2 of the pipes onto 0-2: " + reason;
        case ChildStep::working_directory: return "working directory '" + spec.cwd + "': " + reason;
        case ChildStep::exec: break;
    }
    return reason + limit_hint(failure.error);  // as execve says it: "No such file or directory"
}

void reap_failed(pid_t pid) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
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

// Why clone rather than fork (Boost.Process did fork + exec) or posix_spawn: see spawn_child.hpp.
// A failed set-up step or execve comes back through the exec-error pipe; that child has exited and
// is reaped here, so the caller sees a typed error and no zombie.
std::unique_ptr<ChildProcess> ChildProcess::spawn(const SpawnSpec& spec) {
    check_directory(spec);
    Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
    Pipe report = make_pipe(O_NONBLOCK, "pipe2 (the exec-error pipe)");
    std::vector<std::string> argv_storage = spec.argv, env_storage = environment_entries(spec.env);
    std::vector<char*> argv = c_strings(argv_storage), envp = c_strings(env_storage);

    ChildPlan plan;
    plan.program = spec.program.c_str();
    plan.argv = argv.data();
    plan.envp = envp.data();
    plan.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
    plan.stdio[0] = in.read_end.get();
    plan.stdio[1] = out.write_end.get();
    plan.stdio[2] = err.write_end.get();
    plan.report_fd = report.write_end.get();
    plan.close_limit = descriptor_limit();
    plan.nofile_soft = child_nofile_soft_limit();
    const pid_t pid = clone_child(plan);
    report.write_end.reset();
    // EAGAIN: the process limit.
    if (pid < 0) cannot_start(spec, std::strerror(-pid) + limit_hint(-pid));
    if (pid <= 1) cannot_start(spec, "no process was started");  // never signal -pid for such a pid
    if (std::optional<ChildFailure> failure = read_failure(report.read_end.get())) {
        reap_failed(pid);
        cannot_start(spec, describe(*failure, spec));
    }

    std::unique_ptr<ChildProcess> self;
    try {
        self.reset(new ChildProcess(pid));
    } catch (...) {  // out of memory: do not leave an unowned process behind
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        throw;
    }
    self->stdin_fd = std::move(in.write_end);
    self->stdout_fd = std::move(out.read_end);
    self->stderr_fd = std::move(err.read_end);
    set_nonblocking(self->stdin_fd.get());  // on failure the destructor kills and reaps
    return self;  // the child's ends close here, with `in`, `out` and `err`
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

UniqueFd ChildProcess::open_exit_fd() {
#ifdef SYS_pidfd_open
    std::lock_guard lock(mutex_);
    // Once reaped, the pid may be someone else's: no pidfd for it. Until then the zombie holds it.
    if (reaped_ || lost_) return UniqueFd();
    return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));  // -1: ENOSYS, EMFILE...
#else
    return UniqueFd();
#endif
}

std::optional<ExitStatus> ChildProcess::wait_exit(std::chrono::milliseconds timeout,
                                                  const std::atomic<bool>* cancel) {
    // No SIGCHLD handler (it belongs to the application): a pidfd wakes the wait at the exit.
    // Without one, a back-off that keeps the first checks fast (most servers exit within a few
    // milliseconds of stdin EOF); either way `cancel` is looked at every step.
    const UniqueFd exit_fd = open_exit_fd();
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto step = std::chrono::milliseconds(1);
    for (;;) {
        if (auto s = exit_status()) return s;
        if (cancel && cancel->load()) return std::nullopt;
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        if (exit_fd) {
            pollfd exited{exit_fd.get(), POLLIN, 0};
            const auto slice = std::min(std::chrono::milliseconds(20), std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
            ::poll(&exited, 1, static_cast<int>(slice.count()));  // EINTR: look again
        } else {
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(step, deadline - now));
            step = std::min(step * 2, std::chrono::milliseconds(20));
        }
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
