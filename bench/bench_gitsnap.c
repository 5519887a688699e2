/* The sandbox's workspace git check (src/confine/gitsnap.c, gitcache.c) on a workspace given
 * on the command line: a full snapshot (what every sandboxed command paid twice) against the
 * re-check of the last command's snapshot that lets the next command skip its "before" scan
 * (shc_gitsnap_take_reuse), medians of N (argv[2], default 15), interleaved.  Prints
 * key=value lines for bench_gitsnap.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "confine/confine.h"
#include "confine/gitsnap.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_gitsnap DIR [N]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 15;
    if (n < 1 || n > 1000)
        n = 15;
    double *full = calloc((size_t)n, sizeof *full), *reuse = calloc((size_t)n, sizeof *reuse);
    if (!full || !reuse)
        return 1;
    size_t entries = 0, deps = 0;
    int reused = 0;
    struct timespec settle = {0, 50 * 1000 * 1000};
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        shc_gitsnap *s = shc_gitsnap_take(argv[1]);
        full[i] = now_ms() - t0;
        if (!s)
            return 1;
        entries = s->n;
        deps = s->ndeps;
        nanosleep(&settle, NULL); /* out of the clock's last tick */
        shc_gitsnap *cache = s;
        t0 = now_ms();
        shc_gitsnap *b = shc_gitsnap_take_reuse(argv[1], &cache);
        reuse[i] = now_ms() - t0;
        reused += b == s;
        shc_gitsnap_free(b);
    }
    qsort(full, (size_t)n, sizeof *full, cmp);
    qsort(reuse, (size_t)n, sizeof *reuse, cmp);
    printf("entries=%zu\nnoted=%zu\nruns=%d\nreused=%d\n", entries, deps, n, reused);
    printf("full_median_ms=%.3f\nreuse_median_ms=%.3f\n", full[n / 2], reuse[n / 2]);
    free(full);
    free(reuse);
    return 0;
}
