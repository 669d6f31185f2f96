#include "child_process.hpp"

#include "resource_limits.hpp"

#include <mcph/plugin_helper.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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
// ever seeing EOF). The child gets its ends through the dup2 file actions, which clear the flag.
struct Pipe {
    UniqueFd read_end, write_end;
};

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_system_error(errno, "pipe2");
    Pipe p{UniqueFd(above_stdio(fds[0])), UniqueFd(above_stdio(fds[1]))};
    if (!p.read_end || !p.write_end) throw_system_error(errno, "fcntl(F_DUPFD_CLOEXEC)");
    return p;
}

// posix_spawn's attributes and file actions, destroyed on every path.
struct SpawnAttributes {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    SpawnAttributes() {
        if (int e = ::posix_spawnattr_init(&attr)) throw_system_error(e, "posix_spawnattr_init");
        if (int e = ::posix_spawn_file_actions_init(&actions)) {
            ::posix_spawnattr_destroy(&attr);
            throw_system_error(e, "posix_spawn_file_actions_init");
        }
    }
    ~SpawnAttributes() {
        ::posix_spawn_file_actions_destroy(&actions);
        ::posix_spawnattr_destroy(&attr);
    }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

void check(int error_number, const char* what) {
    if (error_number != 0) throw_system_error(error_number, what);
}

// The child's set-up, all done by posix_spawn between its clone and the execve:
//  - its own process group, so shutdown can signal the server and its children;
//  - every signal at its default disposition and none blocked: ignored dispositions and the mask
//    survive execve, the host ignores SIGPIPE (signals.hpp) and its threads may block signals, and
//    the server must start with the defaults, or SIGTERM/SIGPIPE would not work on it;
//  - stdin/stdout/stderr on our pipes, and every other descriptor closed (closefrom): our pipes
//    are O_CLOEXEC, but the host may hold descriptors that are not (inherited from its parent, or
//    opened by a careless library), and none of them is the server's business;
//  - the working directory.
void describe_child(SpawnAttributes& s, const SpawnSpec& spec, const int child_ends[3]) {
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    check(::posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK),
          "posix_spawnattr_setflags");
    check(::posix_spawnattr_setpgroup(&s.attr, 0), "posix_spawnattr_setpgroup");
    check(::posix_spawnattr_setsigdefault(&s.attr, &all), "posix_spawnattr_setsigdefault");
    check(::posix_spawnattr_setsigmask(&s.attr, &none), "posix_spawnattr_setsigmask");
    for (int target = 0; target < 3; ++target)
        check(::posix_spawn_file_actions_adddup2(&s.actions, child_ends[target], target), "posix_spawn_file_actions_adddup2");
    check(::posix_spawn_file_actions_addclosefrom_np(&s.actions, STDERR_FILENO + 1), "posix_spawn_file_actions_addclosefrom_np");
    if (!spec.cwd.empty())
        check(::posix_spawn_file_actions_addchdir_np(&s.actions, spec.cwd.c_str()), "posix_spawn_file_actions_addchdir_np");
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

// The CLI raised its own soft limit for its many pipes; the server gets the limit the user gave
// mcph (see resource_limits.hpp). posix_spawn has no attribute for rlimits, so it is set on the
// child right after it started: a program that reads its limit in its first microseconds sees the
// host's, which matters little, since what the restored limit protects (select() on descriptors
// above 1023) needs a thousand descriptors opened first. Failure is harmless: the server just
// keeps more.
void restore_nofile_soft(pid_t pid, rlim_t soft) {
    rlimit lim{};
    if (soft == 0 || ::prlimit(pid, RLIMIT_NOFILE, nullptr, &lim) != 0 || soft >= lim.rlim_cur) return;
    lim.rlim_cur = soft;
    ::prlimit(pid, RLIMIT_NOFILE, &lim, nullptr);
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

// Why posix_spawn rather than fork (Boost.Process did fork + exec): glibc spawns with
// clone(CLONE_VM | CLONE_VFORK), so the cost does not grow with the host's size. fork copied the
// page tables of a host that, with hundreds of servers, holds a thousand threads and tens of MB,
// once per server. It also reports a failed execve (or chdir) as its return value and reaps that
// child itself, so no exec-error pipe and no zombie to collect.
std::unique_ptr<ChildProcess> ChildProcess::spawn(const SpawnSpec& spec) {
    check_directory(spec);
    Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
    const int child_ends[3] = {in.read_end.get(), out.write_end.get(), err.write_end.get()};
    SpawnAttributes attributes;
    describe_child(attributes, spec, child_ends);
    std::vector<std::string> argv_storage = spec.argv, env_storage = environment_entries(spec.env);
    std::vector<char*> argv = c_strings(argv_storage), envp = c_strings(env_storage);

    pid_t pid = -1;
    const int e = ::posix_spawn(&pid, spec.program.c_str(), &attributes.actions, &attributes.attr, argv.data(), envp.data());
    // EAGAIN: the process limit (clone failed).
    if (e != 0) cannot_start(spec, std::strerror(e) + limit_hint(e));
    if (pid <= 1) cannot_start(spec, "no process was started");  // never signal -pid for such a pid

    std::unique_ptr<ChildProcess> self;
    try {
        self.reset(new ChildProcess(pid));
    } catch (...) {  // out of memory: do not leave an unowned process behind
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        throw;
    }
    restore_nofile_soft(pid, static_cast<rlim_t>(child_nofile_soft_limit()));
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
