/* Option values the rules judge: bounded decimal numbers, and head/tail line and byte counts
 * (`-n 5`, `-n +10`, `-c 100`). */
#include "classify/policy.h"

#include <string.h>

/* Parses a non-negative decimal number s[0..n) into *out (bounded).  Returns 0 or -1. */
int shc__parse_num(const char *s, size_t n, long *out)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* head/tail -n/-c VALUE: [-+]digits (only tail reads +N for -n).  Returns 0 or -1. */
static int check_count(shc_rule *r, const char *cmd, const shc_optval *ov, bool tail)
{
    const char *v = ov->value;
    bool plus = v[0] == '+';
    if (v[0] == '+' || v[0] == '-')
        v++;
    long n;
    bool lines = ov->opt->role == SHC_ROLE_LINES;
    if (shc__parse_num(v, strlen(v), &n) < 0 || (plus && lines && !tail))
        return shc__reject(r, ov->argi, "%s: '%s' is not a %s count", cmd, ov->value,
                           lines ? "line" : "byte");
    return 0;
}

int shc__check_counts(shc_rule *r, const char *cmd, const shc_optres *res, bool tail)
{
    /* coreutils: -n, -c and -NUM set one count; the last one wins */
    const shc_optval *last = NULL;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *ov = &res->opts[i];
        if (ov->opt->role != SHC_ROLE_LINES && ov->opt->role != SHC_ROLE_BYTES)
            continue;
        if (check_count(r, cmd, ov, tail) < 0)
            return -1;
        last = ov;
    }
    r->line = 0;
    r->line_end = 0;
    if (tail && last && last->opt->role == SHC_ROLE_LINES && last->value[0] == '+') {
        long n = 0;
        shc__parse_num(last->value + 1, strlen(last->value + 1), &n);
        r->line = n == 0 ? 1 : n;
    }
    return 0;
}
