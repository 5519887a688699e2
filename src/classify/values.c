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

/* GNU grep, git grep and find's -regex match a backreference (\1 to \9) with a backtracking
 * matcher whose time grows without bound: `grep -E '(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1'` did not
 * finish over 300 lines.  Without one they use automata, linear in the input. */
bool shc__has_backref(const char *pat)
{
    for (const char *p = pat; *p; p++) {
        if (*p != '\\')
            continue;
        if (p[1] >= '1' && p[1] <= '9')
            return true;
        if (p[1])
            p++;
    }
    return false;
}

int shc__check_patterns(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                        size_t operand_argi)
{
    for (size_t i = 0; i < res->nopts; i++)
        if (res->opts[i].opt->role == SHC_ROLE_PATTERN && res->opts[i].value &&
            shc__has_backref(res->opts[i].value))
            return shc__reject(r, res->opts[i].argi,
                               "%s: a backreference makes matching backtrack without bound", cmd);
    if (operand && shc__has_backref(operand))
        return shc__reject(r, operand_argi,
                           "%s: a backreference makes matching backtrack without bound", cmd);
    return 0;
}
