/* The lines of a file a tool reads as patterns (.gitignore, .gitattributes, info/exclude,
 * info/attributes, info/sparse-checkout, the global excludes and attributes files, ls-files
 * -X, rg's and fd's ignore files), judged the way the tool reads them before it matches:
 * - git's attr.c takes a pattern that opens with '"' through unquote_c_style() first, so
 *   `"\052\052/a"` is the pattern `**` `/a`: each line is counted both as written and decoded
 *   (the larger count wins, which also covers a quoted line git refuses and reads raw);
 * - git's wildmatch backtracks over every `**` of a line against every directory of a path
 *   (repo.c states the measurements): no line may hold more than SHC_MAX_DOUBLESTARS;
 * - git, rg and fd match every line against every path they visit, so the cost is lines x
 *   paths x depth^k, not a per-line one: the wildcard lines of all the pattern files a
 *   command reads share one weight budget (SHC_PATTERN_WEIGHT, docs/classifier-repositories.md
 *   gives the arithmetic). */
#include "classify/policy.h"

#include <string.h>

/* The most `**` on one line of s (`***` counts once): git's wildmatch backtracks over each
 * against every directory of a path (repo.c states the measurements). */
unsigned shc__doublestars(const char *s)
{
    unsigned most = 0, n = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n')
            n = 0;
        else if (p[0] == '*' && p[1] == '*') {
            if (++n > most)
                most = n;
            while (p[1] == '*')
                p++;
        }
    }
    return most;
}

/* git's unquote_c_style() of the quoted string at s (s[0] == '"'), up to end: the decoded
 * bytes in out (at most cap - 1, NUL-terminated; a decoded NUL becomes a blank, it hides
 * nothing).  False when git would refuse it (it then reads the line raw). */
static bool unquote(const char *s, const char *end, char *out, size_t cap)
{
    static const char from[] = "abfnrtv\\\"", to[] = "\a\b\f\n\r\t\v\\\"";
    size_t n = 0;
    for (s++; s < end && n + 1 < cap; s++) {
        char c = *s;
        if (c == '"') {
            out[n] = '\0';
            return true;
        }
        if (c == '\\') {
            if (++s >= end)
                return false;
            const char *k = strchr(from, *s);
            if (*s && k) {
                c = to[k - from];
            } else if (*s >= '0' && *s <= '3' && s + 2 < end && s[1] >= '0' && s[1] <= '7' &&
                       s[2] >= '0' && s[2] <= '7') {
                c = (char)(((s[0] - '0') << 6) | ((s[1] - '0') << 3) | (s[2] - '0'));
                s += 2;
            } else {
                return false;
            }
        }
        out[n++] = c && c != '\n' ? c : ' ';
    }
    return false;
}

/* The `**` count and whether line [s, end) is a wildcard line, as written and as git's
 * attributes reader decodes it (the larger of the two). */
static unsigned line_stars(const char *s, const char *end, bool *wild)
{
    char raw[SHC_PATTERN_LINE + 1], dec[SHC_PATTERN_LINE + 1];
    size_t n = (size_t)(end - s) < SHC_PATTERN_LINE ? (size_t)(end - s) : SHC_PATTERN_LINE;
    memcpy(raw, s, n);
    raw[n] = '\0';
    unsigned k = shc__doublestars(raw);
    *wild = strpbrk(raw, "*?[") != NULL;
    const char *q = s + strspn(raw, " \t");
    if (q < end && *q == '"' && unquote(q, end, dec, sizeof dec)) {
        unsigned d = shc__doublestars(dec);
        k = d > k ? d : k;
        *wild = *wild || strpbrk(dec, "*?[") != NULL;
    }
    return k;
}

const char *shc__pattern_lines(const char *buf, size_t n, bool git, long long *weight)
{
    static const char *const stars = "a file with a pattern line of more than 2 '**' (git's "
                                     "wildmatch backtracks exponentially over a deep path; a "
                                     "quoted pattern counts as git decodes it)";
    for (const char *s = buf, *end = buf + n; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        if (e - s > SHC_PATTERN_LINE && memchr(s, '*', (size_t)(e - s)))
            return "a pattern line too long to judge (over 4 KiB, with a '*')";
        bool wild = false;
        unsigned k = *s == '#' ? 0 : line_stars(s, e, &wild);
        if (git && k > SHC_MAX_DOUBLESTARS)
            return stars;
        if (weight && wild && *s != '#') {
            long long w = 1;
            for (unsigned i = 0; i < k && i < 8; i++)
                w *= 8;
            if ((*weight -= w) < 0)
                return "too many wildcard lines in the pattern files the tool reads together "
                       "(over 256 units: a line with '*', '?' or '[' counts 1, each '**' in it "
                       "x8): git, rg and fd match every line against every path they visit";
        }
        s = e + 1;
    }
    return NULL;
}
