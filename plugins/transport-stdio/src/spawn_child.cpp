#include "spawn_child.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

// Code that runs in the child between clone and execve. It shares the parent's memory, so it must
// not be instrumented (the sanitizers' per-thread state belongs to the suspended parent thread) and
// must not call into libc (errno is the parent thread's; a first call through the PLT would run the
// dynamic linker's resolver). Hence bare system calls, on the stack clone gave it.
#define MCPH_STDIO_CHILD_CODE __attribute__((no_sanitize("address", "thread", "undefined")))

namespace mcph::stdio {
namespace {

// The kernel's sigset_t: 64 signals on x86_64 and aarch64 (glibc's sigset_t is 1024 bits).
constexpr long kKernelSigsetBytes = (_NSIG - 1) / 8;
// Size of the child's stack. It needs a few hundred bytes (no libc, no signal handler can run).
constexpr size_t kChildStackBytes = 16384;

// All zero: the kernel's struct sigaction with SIG_DFL (0), no flags, an empty mask (sized for the
// largest layout); and an empty signal set.
constexpr unsigned long kDefaultAction[8] = {};
constexpr unsigned long kNoSignals[4] = {};

// A system call without libc: returns the result, or -errno.
MCPH_STDIO_CHILD_CODE __attribute__((always_inline)) inline long child_syscall(long number, long a = 0, long b = 0,
                                                                              long c = 0, long d = 0) {
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d;
    long result;
    __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return result;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
    // Other architectures go through libc's syscall(), which also sets the parent thread's errno
    // on failure (the parent reads errno only after its own calls).
    long result = ::syscall(number, a, b, c, d);
    return result == -1 ? -errno : result;
#endif
}

template <class T>
MCPH_STDIO_CHILD_CODE __attribute__((always_inline)) inline long as_arg(T* pointer) {
    return reinterpret_cast<long>(pointer);
}

[[noreturn]] MCPH_STDIO_CHILD_CODE __attribute__((always_inline)) inline void child_fails(const ChildPlan& plan,
                                                                                          ChildStep step, long result) {
    const ChildFailure failure{step, static_cast<int>(-result)};
    child_syscall(SYS_write, plan.report_fd, as_arg(&failure), sizeof failure);
    for (;;) child_syscall(SYS_exit_group, 127);
}

// Every descriptor above stderr except the exec-error pipe (which closes at execve): our pipes are
// O_CLOEXEC, but the host may hold descriptors that are not (inherited from its own parent, or
// opened by a careless library), and none of them is the server's business.
MCPH_STDIO_CHILD_CODE __attribute__((always_inline)) inline void close_inherited(const ChildPlan& plan) {
    const long keep = plan.report_fd;
#ifdef SYS_close_range
    long r = keep > STDERR_FILENO + 1 ? child_syscall(SYS_close_range, STDERR_FILENO + 1, keep - 1, 0) : 0;
    if (r == 0) r = child_syscall(SYS_close_range, keep + 1, ~0u, 0);
    if (r == 0) return;
#endif
    for (long fd = STDERR_FILENO + 1; fd < plan.close_limit; ++fd)  // kernels before 5.9
        if (fd != keep) child_syscall(SYS_close, fd);
}

// The soft limit the user gave mcph, not the one the CLI raised for itself. A failure is harmless:
// the server just may open more.
MCPH_STDIO_CHILD_CODE __attribute__((always_inline)) inline void lower_nofile(unsigned long long soft) {
    struct {
        unsigned long long soft, hard;  // the kernel's struct rlimit64
    } limit{0, 0};
    if (child_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, as_arg(&limit)) != 0 || soft >= limit.soft) return;
    limit.soft = soft;
    child_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, as_arg(&limit), 0);
}

// The child: what posix_spawn's attributes did (process group, default signals, empty mask, the
// pipes on 0-2, closefrom, chdir), plus the rlimit posix_spawn has no attribute for, then execve.
MCPH_STDIO_CHILD_CODE __attribute__((noinline)) int run_child(void* argument) {
    const ChildPlan& plan = *static_cast<const ChildPlan*>(argument);
    // Its own process group, so shutdown can signal the server and its children.
    long r = child_syscall(SYS_setpgid, 0, 0);
    if (r < 0) child_fails(plan, ChildStep::process_group, r);
    // Ignored dispositions survive execve, and the host ignores SIGPIPE (signals.hpp): the server
    // must start with the defaults, or SIGPIPE/SIGTERM would not work on it. (Handlers are reset
    // by execve anyway; setting them to default here also means no handler of the host can run in
    // this child once the mask below is cleared.)
    for (long sig = 1; sig < _NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP)
            child_syscall(SYS_rt_sigaction, sig, as_arg(kDefaultAction), 0, kKernelSigsetBytes);
    for (long target = 0; target < 3; ++target) {  // each end is above fd 2, so none is clobbered
        r = child_syscall(SYS_dup3, plan.stdio[target], target, 0);  // clears O_CLOEXEC on the copy
        if (r < 0) child_fails(plan, ChildStep::standard_streams, r);
    }
    close_inherited(plan);
    if (plan.cwd && (r = child_syscall(SYS_chdir, as_arg(plan.cwd))) < 0)
        child_fails(plan, ChildStep::working_directory, r);
    if (plan.nofile_soft != 0) lower_nofile(plan.nofile_soft);
    // The mask survives execve too; the host's threads may block signals. (The parent blocked all of
    // them around clone; this is the child's own copy of the mask.)
    child_syscall(SYS_rt_sigprocmask, SIG_SETMASK, as_arg(kNoSignals), 0, kKernelSigsetBytes);
    r = child_syscall(SYS_execve, as_arg(plan.program), as_arg(plan.argv), as_arg(plan.envp));
    child_fails(plan, ChildStep::exec, r);
}

using CloneFunction = int (*)(int (*)(void*), void*, int, void*, ...);

// libc's own clone(), not whatever the process interposes: ThreadSanitizer's clone() interceptor
// runs its fork bookkeeping in the child, which with CLONE_VM would rewrite the parent's sanitizer
// state (GCC 12's libtsan does not look at the flags). A lookup through libc's handle finds libc's
// definition only.
CloneFunction libc_clone() {
    static const CloneFunction function = [] {
        void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        void* symbol = libc ? ::dlsym(libc, "clone") : nullptr;
        if (libc) ::dlclose(libc);  // NOLOAD took a reference; libc itself stays
        return symbol ? reinterpret_cast<CloneFunction>(symbol) : static_cast<CloneFunction>(&::clone);
    }();
    return function;
}

}  // namespace

pid_t clone_child(const ChildPlan& plan) noexcept {
    // The child's stack: a buffer in this frame, which this thread does not touch while clone
    // keeps it suspended (musl's posix_spawn does the same).
    alignas(64) unsigned char stack[kChildStackBytes];
    // Every signal blocked, glibc's internal two included (hence the raw call; pthread_sigmask
    // leaves those open): a handler of the application running in the child would run on the
    // parent's memory. The child unblocks once its dispositions are back at default.
    unsigned long all[4], saved[4] = {};
    static_assert(sizeof all >= kKernelSigsetBytes && sizeof kNoSignals >= kKernelSigsetBytes);
    for (auto& word : all) word = ~0ul;
    ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, all, saved, kKernelSigsetBytes);
    const int pid = libc_clone()(&run_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                                 const_cast<ChildPlan*>(&plan));
    const int clone_error = errno;
    ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, nullptr, kKernelSigsetBytes);
    return pid < 0 ? -clone_error : pid;
}

}  // namespace mcph::stdio

#undef MCPH_STDIO_CHILD_CODE
