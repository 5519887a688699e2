/* The anchor of bench_bindings.sh: the C library (libshcard.so.0, built with `pkg-config`-style
 * flags by the script) doing what each binding does per command: shc_classify_ex and
 * shc_verdict_to_json.  Reads records "LEN\n" + bytes (tests/library/records.py), runs the set
 * for at least MIN_MS, best of three, and prints "commands_per_s=N". */
#define _POSIX_C_SOURCE 200809L
#include <shcard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double min_s = argc > 1 ? atof(argv[1]) / 1000.0 : 1.0;
    char **cmds = NULL;
    size_t *lens = NULL, n = 0, len;
    while (scanf("%zu", &len) == 1 && getchar() == '\n') {
        cmds = realloc(cmds, (n + 1) * sizeof *cmds);
        lens = realloc(lens, (n + 1) * sizeof *lens);
        if (!cmds || !lens || !(cmds[n] = malloc(len + 1)) || fread(cmds[n], 1, len, stdin) != len)
            return 1;
        lens[n++] = len;
    }
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    double best = 0;
    size_t bytes = 0;
    for (int pass = 0; pass < 3; pass++) {
        size_t done = 0;
        double t0 = now_s(), t;
        do {
            for (size_t i = 0; i < n; i++) {
                shc_verdict *v = NULL;
                if (shc_classify_ex(&v, cmds[i], lens[i], &o) != 0)
                    return 1;
                size_t k = 0;
                char *json = shc_verdict_to_json(v, cmds[i], lens[i], &k);
                if (!json)
                    return 1;
                bytes += k;
                shc_free(json);
                shc_verdict_free(v);
            }
            done += n;
            t = now_s() - t0;
        } while (t < min_s);
        if ((double)done / t > best)
            best = (double)done / t;
    }
    printf("commands_per_s=%.0f (%zu commands, %zu JSON bytes)\n", best, n, bytes);
    return 0;
}
