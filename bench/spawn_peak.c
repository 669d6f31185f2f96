/* bench-spawn-peak: runs CMD K times and prints {"oneshot_ms": median wall, "oneshot_rss_mb":
 * median peak RSS} — the CLI one-shot figures of bench/run.sh.
 *
 * usage: bench-spawn-peak K CMD [ARG...]
 *
 * Why a program of its own (in C, linked to libc only): the peak RSS wait4() reports for a process
 * includes the high-water mark of the memory it was forked with (exec keeps it in the signal
 * struct), so a client forked from Python (~14 MB) always reads >= 14 MB, whatever it uses. Forked
 * from this ~1 MB process, the figure is the client's own (and the children it waited for: every
 * client here waits for hello-server, ~4 MB, smaller than each of them). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char** argv) {
    const int k = argc > 2 ? atoi(argv[1]) : 0;
    if (k < 1 || k > 1000) {
        fprintf(stderr, "usage: bench-spawn-peak K(1..1000) CMD [ARG...]\n");
        return 2;
    }
    double wall_ms[1000], rss_mb[1000];
    for (int i = 0; i < k; ++i) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        const pid_t pid = fork();
        if (pid < 0) {
            perror("bench-spawn-peak: fork");
            return 1;
        }
        if (pid == 0) {
            /* the client's stdout is not what is measured; its stderr stays for a failure's why */
            if (!freopen("/dev/null", "w", stdout)) _exit(126);
            execvp(argv[2], argv + 2);
            fprintf(stderr, "bench-spawn-peak: cannot run %s: %s\n", argv[2], strerror(errno));
            _exit(127);
        }
        int status = 0;
        struct rusage usage;
        if (wait4(pid, &status, 0, &usage) != pid) {
            perror("bench-spawn-peak: wait4");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "bench-spawn-peak: %s ended with %s %d\n", argv[2], WIFEXITED(status) ? "exit" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            return 1;
        }
        wall_ms[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        rss_mb[i] = (double)usage.ru_maxrss / 1024;
    }
    printf("{\"oneshot_ms\": %.2f, \"oneshot_rss_mb\": %.1f}\n", median(wall_ms, k), median(rss_mb, k));
    return 0;
}
