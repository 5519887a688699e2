/* The watch's cost (verified cards, src/confine/): each command through the executor with the
 * watch against the same command through the executor without it, measured in the same run,
 * interleaved:
 *   latency     `true` spawn-to-exit (the filter installed, the listener taken and passed, the
 *               shell's exec let through): medians of N runs.
 *   throughput  argv[2..]: each a search over a large tree (rg, grep -r): best and median of
 *               N_TP, interleaved.
 * argv[1] is the directory the searches run in.  Prints key=value lines for bench_verify.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/loop.h"
#include "exec/pty.h"

enum { N_LAT = 150, N_TP = 7 };

typedef struct ctx {
    int done, code;
    unsigned long long events;
} ctx;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_exit_cb(shc_pty *p, const shc_pty_status *st, void *payload)
{
    (void)p;
    ctx *c = payload;
    c->done = 1;
    c->code = shc_pty_status_code(st);
}

static void on_ev(shc_pty *p, const shc_confine_event *ev, void *payload)
{
    (void)p;
    (void)ev;
    ((ctx *)payload)->events++;
}

/* One command; returns its wall time in ms, or -1. */
static double run(shc_loop *loop, shc_exec *ex, const char *cmd, const char *cwd, bool watch,
                  const shc_confine_spec *spec, ctx *c)
{
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.cwd = cwd;
    o.on_exit = on_exit_cb;
    o.payload = c;
    o.has_tail_limit = true;
    if (watch) {
        o.confine = spec;
        o.on_confine = on_ev;
    }
    c->done = 0;
    shc_pty *p = NULL;
    shc_pty_error err;
    double t0 = now_ms();
    if (shc_pty_spawn(&p, ex, &o, &err) != 0) {
        fprintf(stderr, "bench_verify: %s\n", err.message);
        return -1;
    }
    if (watch && !shc_pty_watched(p)) {
        fprintf(stderr, "bench_verify: this kernel cannot watch\n");
        shc_pty_free(p);
        return -1;
    }
    while (!c->done)
        if (shc_loop_run_once(loop, 5000) != 0)
            break;
    double t = now_ms() - t0;
    shc_pty_free(p);
    return c->done && c->code == 0 ? t : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_verify DIR [SEARCH...]\n");
        return 2;
    }
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    if (!ex)
        return 1;
    static const char progs[] = "true\0rg\0grep\0";
    shc_confine_spec spec = {.flags = SHC_CONFINE_WATCH, .programs = progs,
                             .programs_len = sizeof progs - 1};
    ctx c = {0, 0, 0};
    static double on[N_LAT], off[N_LAT];
    for (int i = 0; i < N_LAT; i++) {
        off[i] = run(loop, ex, "true", NULL, false, &spec, &c);
        on[i] = run(loop, ex, "true", NULL, true, &spec, &c);
        if (off[i] < 0 || on[i] < 0)
            return 1;
    }
    qsort(on, N_LAT, sizeof on[0], cmp_double);
    qsort(off, N_LAT, sizeof off[0], cmp_double);
    printf("latency_plain_median_ms=%.3f\nlatency_watched_median_ms=%.3f\n", off[N_LAT / 2],
           on[N_LAT / 2]);
    for (int a = 2; a < argc; a++) {
        double t_on[N_TP], t_off[N_TP];
        for (int i = 0; i < N_TP; i++) {
            t_off[i] = run(loop, ex, argv[a], argv[1], false, &spec, &c);
            t_on[i] = run(loop, ex, argv[a], argv[1], true, &spec, &c);
            if (t_off[i] < 0 || t_on[i] < 0)
                return 1;
        }
        qsort(t_on, N_TP, sizeof t_on[0], cmp_double);
        qsort(t_off, N_TP, sizeof t_off[0], cmp_double);
        printf("search_%d_cmd=%s\nsearch_%d_plain_best_ms=%.3f\nsearch_%d_watched_best_ms=%.3f\n"
               "search_%d_plain_median_ms=%.3f\nsearch_%d_watched_median_ms=%.3f\n",
               a - 1, argv[a], a - 1, t_off[0], a - 1, t_on[0], a - 1, t_off[N_TP / 2], a - 1,
               t_on[N_TP / 2]);
    }
    printf("events=%llu\n", c.events);
    shc_exec_free(ex);
    shc_loop_free(loop);
    return 0;
}
