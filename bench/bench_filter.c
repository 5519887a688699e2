/* The seccomp filters' cost per system call: a child installs the filters a command gets (the
 * watch's, the sandbox's read-only and workspace programs, the watch over a workspace sandbox)
 * exactly as the executor's child does (shc_confine_prepare in the parent, shc_confine_apply in
 * the child), then times loops of three calls against the same loops in a child with no filter
 * (the anchor), interleaved:
 *   - getpid: never watched, never refused: the kernel's per-number cache of always-allowed
 *     calls answers it without running the filter, so it must cost what it costs unfiltered;
 *   - read(/dev/null, 1 byte): the watch tells a read of descriptors 1 and 2, so its filter runs
 *     for every read (the sandbox's filters never look at read: cached there);
 *   - close(-1): never watched, never refused: cached.
 * Prints key=value lines (ns per call, medians of R rounds) for bench_filter.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine/confine.h"
#include "shcard.h"

enum { CALLS = 3, ITER = 100000, R = 15, VARIANTS = 5 };
static const char *const call_names[CALLS] = {"getpid", "read", "close"};
static const char *const names[VARIANTS] = {"none", "watch", "read_only", "workspace",
                                            "watch_workspace"};

/* the child's own CPU time: time it spends descheduled on a busy machine is not counted */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One round in a fresh child under variant v: ns per call for each of the three calls. */
static int round_in_child(const shc_confine_spec *spec, double out[CALLS])
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    if (spec)
        shc_confine_prepare(spec);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int lfd = -1;
        if (nul < 0 || (spec && shc_confine_apply(spec, &lfd) != 0))
            _exit(1);
        double r[CALLS];
        char c;
        for (int k = 0; k < CALLS; k++) {
            double t0 = now_ns();
            for (int i = 0; i < ITER; i++) {
                if (k == 0)
                    syscall(SYS_getpid);
                else if (k == 1)
                    (void)!read(nul, &c, 1);
                else
                    syscall(SYS_close, -1);
            }
            r[k] = (now_ns() - t0) / ITER;
        }
        /* write is neither watched nor refused; the exit is told to the watch, which nobody
         * answers here: the parent kills us */
        (void)!write(p[1], r, sizeof r);
        pause();
        _exit(0);
    }
    close(p[1]);
    ssize_t got = read(p[0], out, CALLS * sizeof(double));
    close(p[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return got == (ssize_t)(CALLS * sizeof(double)) ? 0 : -1;
}

int main(void)
{
    const char *why;
    if (!shc_confine_available(&why)) {
        fprintf(stderr, "bench_filter: no watch here: %s\n", why);
        return 1;
    }
    if (!shc_sandbox_abi(&why)) {
        fprintf(stderr, "bench_filter: no sandbox here: %s\n", why);
        return 1;
    }
    char cwd[] = "/tmp/shc-bench-filter-XXXXXX";
    if (!mkdtemp(cwd) || chdir(cwd) != 0)
        return 1;
    const shc_confine_spec specs[VARIANTS] = {
        {0},
        {.flags = SHC_CONFINE_WATCH},
        {.sandbox = SHC_SANDBOX_READ_ONLY},
        {.sandbox = SHC_SANDBOX_WORKSPACE},
        {.flags = SHC_CONFINE_WATCH, .sandbox = SHC_SANDBOX_WORKSPACE},
    };
    static double t[VARIANTS][CALLS][R];
    for (int i = 0; i < R; i++) /* interleaved: load changes hit every variant alike */
        for (int v = 0; v < VARIANTS; v++) {
            double r[CALLS];
            if (round_in_child(v ? &specs[v] : NULL, r) != 0) {
                fprintf(stderr, "bench_filter: the child under %s failed\n", names[v]);
                return 1;
            }
            for (int k = 0; k < CALLS; k++)
                t[v][k][i] = r[k];
        }
    for (int v = 0; v < VARIANTS; v++)
        for (int k = 0; k < CALLS; k++) {
            qsort(t[v][k], R, sizeof(double), cmp_double);
            printf("%s_%s_ns=%.1f\n", names[v], call_names[k], t[v][k][R / 2]);
        }
    if (chdir("/") == 0)
        rmdir(cwd);
    return 0;
}
