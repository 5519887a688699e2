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

/* head/tail -n VALUE: [-+]digits.  tail +N / -n +N starts at line N. */
static int check_count(shc_rule *r, const char *cmd, const shc_optval *ov, bool tail)
{
    const char *v = ov->value;
    bool plus = v[0] == '+';
    if (v[0] == '+' || v[0] == '-')
        v++;
    long n;
    if (shc__parse_num(v, strlen(v), &n) < 0)
        return shc__reject(r, ov->argi, "%s: '%s' is not a line count", cmd, ov->value);
    if (plus && tail) {
        r->line = n == 0 ? 1 : n;
        r->line_end = 0;
    } else if (plus) {
        return shc__reject(r, ov->argi, "%s: '%s' is not a line count", cmd, ov->value);
    }
    return 0;
}

int shc__check_counts(shc_rule *r, const char *cmd, const shc_optres *res, bool tail)
{
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *ov = &res->opts[i];
        if (ov->opt->role == SHC_ROLE_LINES && check_count(r, cmd, ov, tail) < 0)
            return -1;
        if (ov->opt->short_name == 'c' && ov->value) {
            long n;
            const char *v = ov->value + (ov->value[0] == '+' || ov->value[0] == '-');
            if (shc__parse_num(v, strlen(v), &n) < 0)
                return shc__reject(r, ov->argi, "%s: '%s' is not a byte count", cmd, ov->value);
        }
    }
    return 0;
}
