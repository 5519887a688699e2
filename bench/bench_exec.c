/* Executor benchmark, each subject against an anchor measured in the same run:
 *   latency   `bash -c true` spawn-to-exit through the executor (loop, pidfd, drain rule,
 *             sweep) against a bare forkpty + exec of the same `bash -c true`, read to EIO,
 *             waitpid.  Interleaved runs, medians.  Also reported: forkpty + exec /bin/true.
 *   throughput `cat FILE` (argv[1]) through the executor, display chunks written to /dev/null,
 *             against `script -q -c 'cat FILE' /dev/null >/dev/null`; interleaved, best of 7.
 * Prints key=value lines for bench_exec.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/loop.h"
#include "exec/pty.h"


static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* script -q -c CMD /dev/null with stdout on /dev/null: the throughput anchor. */
static double run_script(const char *cmd)
{
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execlp("script", "script", "-q", "-c", cmd, "/dev/null", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now_ms() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* forkpty + exec argv, read to EIO, waitpid: the floor. */
static double bare_forkpty(char *const argv[])
{
    double t0 = now_ms();
    int m;
    struct winsize ws = {.ws_row = 40, .ws_col = 120};
    pid_t pid = forkpty(&m, NULL, NULL, &ws);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(m, buf, sizeof buf);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    close(m);
    int st;
    waitpid(pid, &st, 0);
    return now_ms() - t0;
}

typedef struct ctx {
    bool done;
    int devnull;
    unsigned long long bytes;
} ctx;

static void on_out(shc_pty *p, const char *d, size_t n, void *payload)
{
    (void)p;
    ctx *c = payload;
    c->bytes += n;
    if (c->devnull >= 0 && write(c->devnull, d, n) < 0)
        c->devnull = -1;
}

static void on_exit_cb(shc_pty *p, const shc_pty_status *st, void *payload)
{
    (void)p;
    (void)st;
    ((ctx *)payload)->done = true;
}

static double through_executor(shc_loop *loop, shc_exec *ex, const char *cmd, ctx *c)
{
    double t0 = now_ms();
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.on_output = on_out;
    o.on_exit = on_exit_cb;
    o.payload = c;
    c->done = false;
    shc_pty *p;
    shc_pty_error err;
    if (shc_pty_spawn(&p, ex, &o, &err) != 0) {
        fprintf(stderr, "bench_exec: %s\n", err.message);
        return -1;
    }
    while (!c->done)
        if (shc_loop_run_once(loop, 5000) != 0)
            break;
    double dt = now_ms() - t0;
    shc_pty_free(p);
    return dt;
}

int main(int argc, char **argv)
{
    enum { N = 200, WARM = 10 };
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    if (!ex)
        return 1;
    ctx c = {false, open("/dev/null", O_WRONLY | O_CLOEXEC), 0};
    char bash[] = "bash", dash_c[] = "-c", tru[] = "true", bintrue[] = "/bin/true";
    char *bash_true[] = {bash, dash_c, tru, NULL};
    char *bin_true[] = {bintrue, NULL};
    static double te[N], tb[N], tt[N];
    for (int i = 0; i < WARM; i++) {
        through_executor(loop, ex, "true", &c);
        bare_forkpty(bash_true);
    }
    for (int i = 0; i < N; i++) { /* interleaved, so load changes hit both alike */
        te[i] = through_executor(loop, ex, "true", &c);
        tb[i] = bare_forkpty(bash_true);
        tt[i] = bare_forkpty(bin_true);
    }
    qsort(te, N, sizeof te[0], cmp_double);
    qsort(tb, N, sizeof tb[0], cmp_double);
    qsort(tt, N, sizeof tt[0], cmp_double);
    printf("latency_exec_median_ms=%.3f\nlatency_exec_p90_ms=%.3f\n", te[N / 2], te[N * 9 / 10]);
    printf("latency_forkpty_median_ms=%.3f\nlatency_forkpty_p90_ms=%.3f\n", tb[N / 2],
           tb[N * 9 / 10]);
    printf("latency_forkpty_bintrue_median_ms=%.3f\n", tt[N / 2]);

    if (argc > 1) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "cat '%s'", argv[1]);
        double best = 1e18, sbest = 1e18;
        for (int i = 0; i < 7; i++) {
            c.bytes = 0;
            double dt = through_executor(loop, ex, cmd, &c);
            if (dt >= 0 && dt < best)
                best = dt;
            dt = run_script(cmd);
            if (dt >= 0 && dt < sbest)
                sbest = dt;
        }
        printf("throughput_exec_best_ms=%.3f\nthroughput_exec_bytes=%llu\n", best, c.bytes);
        printf("throughput_script_best_ms=%.3f\n", sbest);
    }
    if (c.devnull >= 0)
        close(c.devnull);
    shc_exec_free(ex);
    shc_loop_free(loop);
    return 0;
}
