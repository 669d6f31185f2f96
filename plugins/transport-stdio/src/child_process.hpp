// One server process: spawned with clone + execve (spawn_child.hpp) in its own process group, stdio piped.
//
// Reaping is deliberately separated from noticing the exit: exit_status()/wait_exit() look with
// waitid(WNOWAIT) and leave the zombie in place; only reap() collects it. While the zombie
// exists its pid, and therefore the process-group id, cannot be reused, so signal_group() can
// never hit an unrelated group. close() signals the group first, reaps last.
#pragma once

#include "environment.hpp"
#include "unique_fd.hpp"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mcph::stdio {

using UniqueFd = io::UniqueFd;  // plugins/io-common

struct ExitStatus {
    bool known = true;     // false when someone else reaped the child (e.g. SIGCHLD set to SIG_IGN)
    bool signaled = false;
    int value = 0;         // exit code, or signal number when `signaled`

    bool clean() const noexcept { return known && !signaled && value == 0; }
    std::string describe() const;  // "process exited with code 3", "process killed by signal 9 (SIGKILL)"
};

struct SpawnSpec {
    std::string program;            // path for execve (already resolved)
    std::vector<std::string> argv;  // argv[0] names the program in messages
    EnvMap env;                     // the complete environment
    std::string cwd;                // empty: inherit
};

class ChildProcess {
public:
    // Throws mcph::plugin::Error(MCPH_ERR_IO, "cannot start '<argv[0]>': <reason>").
    static std::unique_ptr<ChildProcess> spawn(const SpawnSpec& spec);

    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    ~ChildProcess();  // a last resort: SIGKILLs the group and reaps if close() did not

    pid_t pid() const noexcept { return pid_; }

    // Our ends of the pipes, to be moved out once. stdin is non-blocking (see pipe_io.hpp);
    // stdout and stderr are blocking. All are O_CLOEXEC.
    UniqueFd stdin_fd, stdout_fd, stderr_fd;

    // [thread-safe] The exit status if the process has exited; does not reap.
    std::optional<ExitStatus> exit_status();

    // [thread-safe] Waits until exit_status() is known, `timeout` passes or `*cancel` is set
    // (looked at least every 20 ms). Wakes at the exit itself where the kernel has pidfds.
    std::optional<ExitStatus> wait_exit(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel = nullptr);

    // [thread-safe] A descriptor that becomes readable when the process exits (pidfd_open), for a
    // waiter's poll: it then wakes at the exit, not at the next tick of a back-off. Empty when the
    // kernel has no pidfds (before 5.3), descriptors ran out, or the process was already reaped;
    // the caller then waits in steps. Opened per wait, so a server holds no descriptor for it.
    UniqueFd open_exit_fd();

    // [thread-safe] kill(-pgid, sig); a no-op once reaped (the id may belong to someone else).
    void signal_group(int sig) noexcept;

    // [thread-safe] Collects the zombie; blocks until the process has exited. Idempotent.
    ExitStatus reap() noexcept;

private:
    explicit ChildProcess(pid_t pid) : pid_(pid) {}

    const pid_t pid_;
    std::mutex mutex_;
    bool reaped_ = false;
    bool lost_ = false;  // ECHILD: reaped behind our back, so the group id is no longer ours
    std::optional<ExitStatus> status_;
};

}  // namespace mcph::stdio
