// The raw start of a server process: clone(CLONE_VM | CLONE_VFORK) and a child set-up made of bare
// system calls, ending in execve.
//
// Why not posix_spawn: the mcph CLI raises its own soft RLIMIT_NOFILE for its many pipes, and a
// server must start with the limit the user gave mcph (programs that select() break on descriptors
// above 1023). posix_spawn has no rlimit attribute, and prlimit() on the child after the spawn races
// the child's own start: a server that reads its limit first thing saw the raised one (issue #16's
// first attempt, reverted). Why not fork: it copies the page tables of a host that holds a thousand
// threads and tens of MB, once per server. So this does what glibc's posix_spawn does internally
// (clone sharing the memory, the parent suspended until execve) with setrlimit added before the
// execve.
#pragma once

#include <sys/types.h>

namespace mcph::stdio {

// Everything the child needs, prepared by the parent; the child only reads it (it runs in the
// parent's memory until execve, with the parent thread suspended).
struct ChildPlan {
    const char* program = nullptr;      // resolved path for execve (no PATH lookup in the child)
    char* const* argv = nullptr;        // NULL-terminated
    char* const* envp = nullptr;        // NULL-terminated
    const char* cwd = nullptr;          // nullptr: inherit
    int stdio[3] = {-1, -1, -1};        // the child's ends of the three pipes, each above fd 2
    int report_fd = -1;                 // write end of the exec-error pipe (O_CLOEXEC, O_NONBLOCK)
    int close_limit = 0;                // descriptors to close one by one where close_range is missing
    unsigned long long nofile_soft = 0; // soft RLIMIT_NOFILE for the child; 0: keep the host's
};

// Which step of the child's set-up failed.
enum class ChildStep : int { process_group = 1, standard_streams, working_directory, exec };

// What a child whose set-up failed writes to the exec-error pipe before _exit(127). Nothing is
// written when execve succeeds: the pipe's write end closes with it (O_CLOEXEC).
struct ChildFailure {
    ChildStep step;
    int error;  // errno
};

// Starts the child. Returns its pid, or -errno when clone failed (nothing was started). When it
// returns, the child has either replaced itself with the program or written a ChildFailure and
// exited (CLONE_VFORK), so the pipe can be read without waiting. Blocks every signal of the calling
// thread for the duration, so that no handler of the application runs in the child.
pid_t clone_child(const ChildPlan& plan) noexcept;

}  // namespace mcph::stdio
