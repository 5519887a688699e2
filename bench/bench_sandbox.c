/* Sandbox overhead: spawn-to-exit of `true` through the executor without a sandbox (the anchor)
 * and with `workspace` (Landlock ruleset with its rules, the network filter), interleaved in the
 * same run, medians and p90 of N runs.  Also `read-only` and `workspace` with the network on
 * (no seccomp filter).  The spawn is tens of milliseconds on a loaded machine, so the sandbox's
 * own cost is also measured apart: fork + shc_confine_apply(workspace) + _exit against fork +
 * _exit, interleaved, medians.  Prints key=value lines for bench_sandbox.sh. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void on_exit_cb(shc_pty *p, const shc_pty_status *st, void *payload)
{
    (void)p;
    *(int *)payload = st->exit_code == 0 ? 1 : 2;
}

static double run_cmd(shc_loop *loop, shc_exec *ex, const shc_confine_spec *spec,
                      const char *cwd, const char *cmd)
{
    double t0 = now_ms();
    int done = 0;
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.cwd = cwd;
    o.confine = spec;
    o.on_exit = on_exit_cb;
    o.payload = &done;
    shc_pty *p;
    shc_pty_error err;
    if (shc_pty_spawn(&p, ex, &o, &err) != 0) {
        fprintf(stderr, "bench_sandbox: %s\n", err.message);
        exit(1);
    }
    while (!done)
        if (shc_loop_run_once(loop, 5000) != 0)
            break;
    double dt = now_ms() - t0;
    shc_pty_free(p);
    if (done != 1) {
        fprintf(stderr, "bench_sandbox: `%.40s` failed in the sandbox\n", cmd);
        exit(1);
    }
    return dt;
}

static double once(shc_loop *loop, shc_exec *ex, const shc_confine_spec *spec, const char *cwd)
{
    return run_cmd(loop, ex, spec, cwd, "true");
}

/* fork, (apply spec), _exit, waitpid: ms.  The filters are built before the fork, as the
 * executor does (shc_confine_prepare): the child only installs them. */
static double fork_apply(const shc_confine_spec *spec, const char *cwd)
{
    double t0 = now_ms();
    if (spec)
        shc_confine_prepare(spec);
    pid_t pid = fork();
    if (pid == 0) {
        int lfd;
        if (chdir(cwd) != 0 || (spec && shc_confine_apply(spec, &lfd) != 0))
            _exit(1);
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_sandbox: the child could not apply the sandbox\n");
        exit(1);
    }
    return now_ms() - t0;
}

int main(void)
{
    enum { N = 200, WARM = 10, MODES = 4 };
    const char *why;
    int abi = shc_sandbox_abi(&why);
    if (!abi) {
        fprintf(stderr, "bench_sandbox: no sandbox here: %s\n", why);
        return 1;
    }
    char cwd[] = "/tmp/shc-bench-sandbox-XXXXXX";
    if (!mkdtemp(cwd))
        return 1;
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = loop ? shc_exec_new(loop) : NULL;
    if (!ex)
        return 1;
    static const char *const names[MODES] = {"off", "workspace", "read_only", "workspace_net"};
    const shc_confine_spec specs[MODES] = {
        {.sandbox = SHC_SANDBOX_OFF},
        {.sandbox = SHC_SANDBOX_WORKSPACE},
        {.sandbox = SHC_SANDBOX_READ_ONLY},
        {.sandbox = SHC_SANDBOX_WORKSPACE, .flags = SHC_CONFINE_NETWORK},
    };
    static double t[MODES][N];
    for (int i = 0; i < WARM; i++)
        for (int m = 0; m < MODES; m++)
            once(loop, ex, m ? &specs[m] : NULL, cwd);
    for (int i = 0; i < N; i++) /* interleaved, so load changes hit every mode alike */
        for (int m = 0; m < MODES; m++)
            t[m][i] = once(loop, ex, m ? &specs[m] : NULL, cwd);
    printf("landlock_abi=%d\n", abi);
    for (int m = 0; m < MODES; m++) {
        qsort(t[m], N, sizeof t[m][0], cmp_double);
        printf("latency_%s_median_ms=%.3f\nlatency_%s_p90_ms=%.3f\n", names[m], t[m][N / 2],
               names[m], t[m][N * 9 / 10]);
    }
    enum { F = 1000 };
    static double fa[F], fb[F];
    for (int i = 0; i < F; i++) {
        fa[i] = fork_apply(&specs[1], cwd);
        fb[i] = fork_apply(NULL, cwd);
    }
    qsort(fa, F, sizeof fa[0], cmp_double);
    qsort(fb, F, sizeof fb[0], cmp_double);
    printf("fork_apply_workspace_median_ms=%.4f\nfork_plain_median_ms=%.4f\n", fa[F / 2],
           fb[F / 2]);
    /* The workspace's metadata supervisor: `touch -c` of META files is META utimensat calls,
     * each answered by the agent's loop in workspace mode (a plain filter refuses them in
     * read-only, which costs nothing). */
    enum { META = 200, NM = 60 };
    char cmd[META * 6 + 16] = "touch -c";
    for (int i = 0; i < META; i++) {
        char f[PATH_MAX];
        snprintf(f, sizeof f, "%s/f%03d", cwd, i);
        FILE *fp = fopen(f, "w");
        if (fp)
            fclose(fp);
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " f%03d", i);
    }
    static double mo[NM], mw[NM];
    for (int i = 0; i < NM; i++) {
        mo[i] = run_cmd(loop, ex, NULL, cwd, cmd);
        mw[i] = run_cmd(loop, ex, &specs[1], cwd, cmd);
    }
    qsort(mo, NM, sizeof mo[0], cmp_double);
    qsort(mw, NM, sizeof mw[0], cmp_double);
    printf("meta_calls=%d\nmeta_off_median_ms=%.3f\nmeta_workspace_median_ms=%.3f\n", META,
           mo[NM / 2], mw[NM / 2]);
    for (int i = 0; i < META; i++) {
        char f[PATH_MAX];
        snprintf(f, sizeof f, "%s/f%03d", cwd, i);
        unlink(f);
    }
    shc_exec_free(ex);
    shc_loop_free(loop);
    rmdir(cwd);
    return 0;
}
