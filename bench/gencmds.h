/* A fixed-seed generator of realistic agent commands for the benchmarks, and timing helpers (header-only, shared by
 * bench_parse.c and bench_classify.c).  Templates follow executor-and-performance.md §2.1. */
#ifndef SHC_BENCH_GENCMDS_H
#define SHC_BENCH_GENCMDS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t gen_state = 42;

static inline uint32_t gen_rand(void)
{
    gen_state ^= gen_state << 13;
    gen_state ^= gen_state >> 7;
    gen_state ^= gen_state << 17;
    return (uint32_t)(gen_state >> 16);
}

static inline const char *gen_pick(const char *const *v, size_t n)
{
    return v[gen_rand() % n];
}

#define GEN_PICK(v) gen_pick(v, sizeof v / sizeof v[0])

/* Writes one command into buf (NUL-terminated); returns its length.  *tmpl (when not NULL) is
 * the template it came from, 0 to 19 (the tail analysis of bench_classify groups by it). */
static inline size_t gen_command_t(char *buf, size_t cap, int *tmpl)
{
    static const char *const files[] = {"src/main.c", "src/parse.c", "README.md", "package.json",
                                        "src/components/App.tsx", "lib/util.py", "Cargo.toml",
                                        "docs/guide.md", "tests/test_api.py", "go.mod"};
    static const char *const dirs[] = {"src", ".", "lib", "tests", "src/components", "docs"};
    static const char *const pats[] = {"TODO", "fn main", "import React", "def test_", "useState",
                                       "shc_parse", "error", "FIXME"};
    unsigned a = 1 + gen_rand() % 400, b = a + 20 + gen_rand() % 200;
    const char *f = GEN_PICK(files), *d = GEN_PICK(dirs), *p = GEN_PICK(pats);
    int n = 0, k = (int)(gen_rand() % 20);
    if (tmpl)
        *tmpl = k;
    switch (k) {
    case 0: n = snprintf(buf, cap, "sed -n %u,%up %s", a, b, f); break;
    case 1: n = snprintf(buf, cap, "rg -n '%s' %s | head -n %u", p, d, 20 + a % 80); break;
    case 2: n = snprintf(buf, cap, "ls -la %s", d); break;
    case 3: n = snprintf(buf, cap, "cat %s | head -n %u", f, 10 + a % 90); break;
    case 4: n = snprintf(buf, cap, "git log --oneline -n %u -- %s", 5 + a % 20, f); break;
    case 5: n = snprintf(buf, cap, "grep -rn \"%s\" %s | head -%u", p, d, 10 + a % 40); break;
    case 6: n = snprintf(buf, cap, "find %s -name '*.c' | wc -l", d); break;
    case 7: n = snprintf(buf, cap, "cd %s && make -j%u 2>&1 | tail -n 30", d, 1 + a % 8); break;
    case 8: n = snprintf(buf, cap, "python3 -c 'import sys; print(sys.version)'"); break;
    case 9: n = snprintf(buf, cap, "nl -ba %s | sed -n '%u,%up'", f, a, b); break;
    case 10: n = snprintf(buf, cap, "awk '{print $1}' %s | sort | uniq -c | sort -rn | head", f); break;
    case 11: n = snprintf(buf, cap, "mkdir -p build && cmake -S . -B build && make -C build 2>&1 | grep -E 'error|warning'"); break;
    case 12: n = snprintf(buf, cap, "bash -lc \"sed -n '%u,%up' %s\"", a, b, f); break;
    case 13: n = snprintf(buf, cap, "rg --files %s | head -50", d); break;
    case 14: n = snprintf(buf, cap, "git status --short && git diff --stat"); break;
    case 15: n = snprintf(buf, cap, "tail -n +%u %s", a, f); break;
    case 16: n = snprintf(buf, cap, "npm test -- --runInBand 2>&1 | tail -n 40"); break;
    case 17: n = snprintf(buf, cap, "FOO=1 cargo build --release 2>/dev/null || true"); break;
    case 18: n = snprintf(buf, cap, "echo \"checking %s\"; cat %s", f, f); break;
    default: n = snprintf(buf, cap, "find %s -maxdepth 2 -type f -name '*.md' -not -path './node_modules/*'", d); break;
    }
    return n > 0 ? (size_t)n : 0;
}

static inline size_t gen_command(char *buf, size_t cap)
{
    return gen_command_t(buf, cap, NULL);
}

/* Monotonic nanoseconds, and a qsort comparator for timings (shared by the benchmarks). */
static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
