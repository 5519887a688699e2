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

/* glibc's regcomp (GNU grep, git grep, find -regex, nl -b pRE) copies the repeated expression
 * once per count of an interval, so nested intervals multiply: `grep -E
 * '(((a{1,1000}){1,1000}){1,1000})' f` did not finish in 60 s, whatever f holds.  Any `{` (or
 * `\{`) followed by a digit or a comma may be an interval -- in ERE, in BRE, and in a pattern
 * that a repository's `grep.patternType` turns into ERE -- so it is terminal. */
const char *shc__regex_bomb(const char *pat)
{
    if (shc__has_backref(pat))
        return "a backreference makes matching backtrack without bound";
    for (const char *p = strchr(pat, '{'); p; p = strchr(p + 1, '{'))
        if ((p[1] >= '0' && p[1] <= '9') || p[1] == ',')
            return "a counted repetition ({n,m}) makes the regular expression compile without "
                   "bound when nested";
    return NULL;
}

int shc__check_patterns(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                        size_t operand_argi)
{
    const char *why;
    for (size_t i = 0; i < res->nopts; i++)
        if (res->opts[i].opt->role == SHC_ROLE_PATTERN && res->opts[i].value &&
            (why = shc__regex_bomb(res->opts[i].value)))
            return shc__reject(r, res->opts[i].argi, "%s: %s", cmd, why);
    if (operand && (why = shc__regex_bomb(operand)))
        return shc__reject(r, operand_argi, "%s: %s", cmd, why);
    return 0;
}

/* nl -b/-h/-f pREGEX numbers the lines that match a glibc regex: the same judgement. */
int shc__check_nl_styles(shc_rule *r, const shc_optres *res)
{
    const char *why;
    for (size_t i = 0; i < res->nopts; i++) {
        char c = res->opts[i].opt->short_name;
        const char *v = res->opts[i].value;
        if ((c == 'b' || c == 'h' || c == 'f') && v && v[0] == 'p' && (why = shc__regex_bomb(v + 1)))
            return shc__reject(r, res->opts[i].argi, "nl: %s", why);
    }
    return 0;
}

/* tree -P/-I match with tree's own recursive wildcard matcher, exponential in the number of
 * `*`: `tree -I '*a*a*a*b'` took 3.5 s for one 250-byte name, '*a*a*a*a*b' over 20 s.  Each
 * `|`-separated alternative may hold one `*` at most. */
int shc__check_tree_patterns(shc_rule *r, const shc_optres *res)
{
    for (size_t i = 0; i < res->nopts; i++) {
        char c = res->opts[i].opt->short_name;
        const char *v = res->opts[i].value;
        if ((c != 'P' && c != 'I') || !v)
            continue;
        unsigned stars = 0;
        for (const char *p = v; *p; p++) {
            if (*p == '|')
                stars = 0;
            else if (*p == '*' && ++stars > 1)
                return shc__reject(r, res->opts[i].argi, "tree: a pattern with several '*' "
                                   "makes tree's matcher take exponential time");
        }
    }
    return 0;
}

int shc__check_text_mode(shc_rule *r, const char *cmd, const shc_optres *res)
{
    size_t nu = 0;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *o = &res->opts[i];
        if (o->opt->long_name && !strcmp(o->opt->long_name, "unrestricted") && ++nu >= 3)
            return shc__reject(r, o->argi, "%s: -uuu searches binary files whole (a huge sparse "
                                            "file in the tree is read to its end)",
                               cmd);
        if (o->opt->role != SHC_ROLE_TEXT)
            continue;
        if (o->value && (!strcmp(o->value, "binary") || !strcmp(o->value, "without-match")))
            continue;
        return shc__reject(r, o->argi, "%s: text mode reads files with NUL bytes whole (a huge "
                                        "sparse file among the files searched never ends)",
                           cmd);
    }
    return 0;
}
