/* Option values the rules judge: bounded decimal numbers, head/tail line and byte counts
 * (`-n 5`, `-n +10`, `-c 100`), and regular expressions (glibc's, and the safe subset of a
 * backtracking engine). */
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

/* `[ab]*a[ab][ab]...c` says "the Nth character before c is an a": a DFA needs 2^N states, so
 * GNU grep -i (which cannot use its fast matcher) and git grep (glibc's regexec, no DFA cache)
 * take time exponential in N -- over 200 KB, N=8 0.2 s, N=10 1.1 s, N=12 5.3 s, N=25 38 s
 * with grep -i; git grep 1.2, 1.8, 2.6 s, over 60 s at N=25.  grep searches unanchored (an
 * implicit `.*` before the pattern), so `a[ab][ab]...c` with no repetition at all is the same
 * automaton (N=10 0.4 s, N=16 killed at 5 s).  Counts the atoms that match more than one
 * character (a bracket expression, `.`, `\w \W \s \S`) and the alternatives (`|`, `\|`)
 * inside a group (a top-level one is another pattern, counted the same way), from the start of
 * the pattern -- or, when the pattern is anchored (`^` first, no alternative; or grep -x), from
 * its first repetition (`*`, `+`, `?`, `\+`, `\?`). */
static unsigned shc__wide_atoms(const char *pat, bool from_start)
{
    unsigned wide = 0, depth = 0;
    bool seen = from_start;
    for (const char *p = pat; *p; p++) {
        char c = *p, e = 0;
        if (c == '\\' && p[1]) {
            e = *++p;
            c = 0;
        }
        if (c == '*' || c == '+' || c == '?' || e == '+' || e == '?') {
            seen = true;
            continue;
        }
        if (c == '(' || e == '(')
            depth++;
        else if ((c == ')' || e == ')') && depth > 0)
            depth--;
        else if (c == '\n')
            seen = from_start; /* a newline starts another pattern */
        bool is_wide = c == '.' || ((c == '|' || e == '|') && depth > 0) ||
                       (e && strchr("wWsS", e));
        if (c == '[') {
            /* skip the bracket expression: `]` first is a member, `[:name:]` inside */
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    const char *end = strchr(q + 2, ']');
                    q = end ? end : q + 1;
                }
                q++;
            }
            p = *q ? q : q - 1;
            is_wide = true;
        }
        if (is_wide && seen)
            wide++;
    }
    return wide;
}

/* Whether grep runs pat anchored at the line's start: `^` first and no alternative or second
 * pattern (a newline) that would start unanchored. */
static bool shc__anchored(const char *pat)
{
    return pat[0] == '^' && !strchr(pat, '|') && !strchr(pat, '\n');
}

/* glibc's regcomp (GNU grep, git grep, find -regex, nl -b pRE) copies the repeated expression
 * once per count of an interval, so nested intervals multiply: `grep -E
 * '(((a{1,1000}){1,1000}){1,1000})' f` did not finish in 60 s, whatever f holds.  Any `{` (or
 * `\{`) followed by a digit or a comma may be an interval -- in ERE, in BRE, and in a pattern
 * that a repository's `grep.patternType` turns into ERE -- so it is terminal. */
static const char *shc__regex_kind(const char *pat)
{
    if (shc__has_backref(pat))
        return "a backreference makes matching backtrack without bound";
    for (const char *p = strchr(pat, '{'); p; p = strchr(p + 1, '{'))
        if ((p[1] >= '0' && p[1] <= '9') || p[1] == ',')
            return "a counted repetition ({n,m}) makes the regular expression compile without "
                   "bound when nested";
    return NULL;
}

static const char *const shc__wide_why =
    "more than 8 classes, '.' or alternatives (counted from the start of an unanchored pattern, "
    "all patterns together) make GNU grep's automaton and glibc's matcher (git grep) take time "
    "exponential in their number";

/* find -regex matches the whole name (anchored); nl -b pRE through glibc's regexec. */
const char *shc__regex_bomb(const char *pat)
{
    const char *why = shc__regex_kind(pat);
    if (why)
        return why;
    return shc__wide_atoms(pat, false) > SHC_MAX_WIDE_ATOMS ? shc__wide_why : NULL;
}

/* Whether pat may match runs of different lengths: a repetition (`*`, `+`, `?`, `\+`, `\?`,
 * an interval) or alternatives (`|`, `\|`, a newline: literals of different lengths). */
static bool shc__variable_length(const char *pat)
{
    for (const char *p = pat; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            if (*p == '+' || *p == '?' || *p == '{' || *p == '|')
                return true;
            continue;
        }
        if (*p == '*' || *p == '+' || *p == '?' || *p == '{' || *p == '|' || *p == '\n')
            return true;
    }
    return false;
}

static bool shc__has_long(const shc_optres *res, const char *name)
{
    for (size_t i = 0; i < res->nopts; i++)
        if (res->opts[i].opt->long_name && !strcmp(res->opts[i].opt->long_name, name))
            return true;
    return false;
}

/* Every pattern of one grep or git grep: each -e value and the operand form one automaton, so
 * their wide atoms are counted together.  GNU grep -w retries every shorter match and every
 * later start of a match that is not a whole word: `grep -c -w 'a*'` over one line of 2,000
 * `a` then `_b` took 0.4 s of CPU (1,000 bytes: 0.1 s; 20 KB did not finish), so -w with a
 * pattern that may match runs of different lengths is terminal unless -F (git grep -w and
 * grep -x are fast). */
int shc__check_patterns(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                        size_t operand_argi)
{
    const char *why;
    bool fixed = shc__has_long(res, "fixed-strings");
    bool line = shc__has_long(res, "line-regexp");
    bool word = !strcmp(cmd, "grep") && shc__has_long(res, "word-regexp") && !fixed;
    unsigned wide = 0, nword = 0;
    for (size_t i = 0; i <= res->nopts; i++) {
        const char *v = i < res->nopts ? (res->opts[i].opt->role == SHC_ROLE_PATTERN
                                              ? res->opts[i].value
                                              : NULL)
                                       : operand;
        size_t argi = i < res->nopts ? res->opts[i].argi : operand_argi;
        if (!v)
            continue;
        if ((why = shc__regex_kind(v)))
            return shc__reject(r, argi, "%s: %s", cmd, why);
        if (word && (shc__variable_length(v) || ++nword > 1))
            return shc__reject(r, argi, "%s: -w with a repetition or alternatives ('*', '+', '?', "
                                        "'|', several patterns) retries every start and length of "
                                        "a match: time superlinear in the line", cmd);
        if (fixed)
            continue;
        wide += shc__wide_atoms(v, !line && !shc__anchored(v));
        if (wide > SHC_MAX_WIDE_ATOMS)
            return shc__reject(r, argi, "%s: %s", cmd, shc__wide_why);
    }
    return shc__check_engine(r, cmd, res, operand, operand_argi, false);
}

/* nl -b/-h/-f pREGEX numbers the lines that match a glibc regex: the same judgement. */
int shc__check_nl_styles(shc_rule *r, const shc_optres *res)
{
    const char *why;
    for (size_t i = 0; i < res->nopts; i++) {
        char c = res->opts[i].opt->short_name;
        const char *v = res->opts[i].value;
        if ((c == 'b' || c == 'h' || c == 'f') && v && v[0] == 'p' &&
            ((why = shc__regex_bomb(v + 1)) || (why = shc__glibc_repeat_why(v + 1))))
            return shc__reject(r, res->opts[i].argi, "nl: %s", why);
    }
    return 0;
}

size_t shc__count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

long shc__fmt_widths(const char *f, unsigned *directives)
{
    long sum = 0;
    unsigned n = 0;
    for (const char *p = strchr(f, '%'); p; p = strchr(p, '%')) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        n++;
        while (*p && strchr("-+ #0_^", *p))
            p++;
        for (int part = 0; part < 2; part++) {
            const char *d = p;
            while (*p >= '0' && *p <= '9')
                p++;
            long w;
            if (p > d && (shc__parse_num(d, (size_t)(p - d), &w) < 0 || w > SHC_MAX_WIDTH))
                sum = SHC_MAX_WIDTH + 1L;
            else if (p > d && sum <= SHC_MAX_WIDTH)
                sum += w;
            if (part == 0 && *p == '.')
                p++;
            else
                break;
        }
    }
    if (directives)
        *directives = n;
    return sum;
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

/* A backtracking engine (PCRE2: grep -P, git grep -P, rg -P, rg --engine=auto/pcre2,
 * --auto-hybrid-regex, ag; Perl: ack) may take time exponential or polynomial in the line for a
 * pattern with a backreference (`\k<c>`, `\g3`, `(?P=c)`), recursion (`(?R)`, `(?1)`, `(?&n)`),
 * lookaround or repeated quantifiers: `git grep -P` with a backreference ran 65 s over 1.3 MB,
 * and even one `.*` costs the square of a long line's length per line (PCRE2's match limit
 * caps a line, not a file).  The safe subset, the only patterns such an engine is given a card
 * for:
 *   - literal characters; `\` before a punctuation character (`\.`, `\(`);
 *   - `.`, the classes `\d \D \w \W \s \S`, bracket classes `[...]` (`[:alpha:]` inside);
 *   - the anchors `^ $ \b \B`;
 *   - groups `(...)` and `(?:...)`, never quantified, and `|`;
 *   - the quantifier `?` on a single character, class or `.`;
 *   - choices that multiply: each `?` and each `|` inside a group (a `|` at the top level adds
 *     a branch, it does not multiply); 2^choices x bytes at most SHC_MAX_BT_WORK (1024: three
 *     `?` in 128 bytes), the paths tried from each starting position times their length;
 *   - at most 16 alternatives counting every `|`, and at most 256 bytes: each branch is tried
 *     at every position (3,000 branches `.x0y|.x1y|...` took 12 s over 1.3 MB).
 * Everything else -- `*`, `+`, `{n,m}`, other escapes (digits, \g \k \p \x \Q ...), every other
 * `(?` construct -- is terminal. */
const char *shc__backtrack_unsafe(const char *pat)
{
    static const char *const outside = "a pattern outside the safe subset of a backtracking "
                                       "engine (literals, classes, anchors, groups, '?')";
    static const char *const many = "a pattern longer than the backtracking-engine bound ("
                                    "256 bytes, 16 alternatives): every branch is tried at "
                                    "every position";
    static const char *const paths = "a pattern whose optional parts ('?', '|' in a group) "
                                     "multiply past the backtracking-engine bound (2^choices x "
                                     "bytes over 1024): each is tried at every position";
    unsigned optional = 0, depth = 0, branches = 1;
    bool atom = false; /* the last thing read may take a `?` */
    if (strlen(pat) > SHC_MAX_BT_BYTES)
        return many;
    for (const char *p = pat; *p; p++) {
        char ch = *p;
        if (ch == '\\') {
            char e = p[1];
            if (!e)
                return outside;
            p++;
            if ((e >= '0' && e <= '9') || e == 'g' || e == 'k')
                return "a backreference makes a backtracking engine take time without bound";
            if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z'))
                if (!strchr("dDwWsSbB", e))
                    return outside;
            atom = !(e == 'b' || e == 'B');
        } else if (ch == '[') {
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                /* `[:name:]` only when lowercase letters run straight to `:]` (PCRE2 and Perl
                 * stop looking at the first `]`: `[[:x]` is a class of `[`, `:` and `x`) */
                if (q[0] == '[' && q[1] == ':') {
                    const char *e = q + 2;
                    while (*e >= 'a' && *e <= 'z')
                        e++;
                    if (e > q + 2 && e[0] == ':' && e[1] == ']') {
                        q = e + 2;
                        continue;
                    }
                }
                if (*q == '\\' && q[1])
                    q++;
                q++;
            }
            if (!*q)
                return outside;
            p = q;
            atom = true;
        } else if (ch == '(') {
            if (p[1] == '?') {
                if (p[2] != ':')
                    return p[2] == 'R' || p[2] == '&' || p[2] == 'P' ||
                                   (p[2] >= '0' && p[2] <= '9') || p[2] == '+' || p[2] == '-'
                               ? "a backreference or recursion makes a backtracking engine take "
                                 "time without bound"
                               : outside;
                p += 2;
            }
            if (++depth > 16)
                return outside;
            atom = false;
        } else if (ch == ')') {
            if (depth == 0)
                return outside;
            depth--;
            if (p[1] == '?' || p[1] == '*' || p[1] == '+' || p[1] == '{')
                return "a quantified group makes a backtracking engine take time without bound";
            atom = false;
        } else if (ch == '?') {
            if (!atom || ++optional > 10)
                return outside;
            atom = false;
        } else if (ch == '|' && depth > 0) {
            if (++optional > 10 || ++branches > SHC_MAX_BT_BRANCHES)
                return outside;
            atom = false;
        } else if (ch == '|') {
            if (++branches > SHC_MAX_BT_BRANCHES)
                return many;
            atom = false;
        } else if (ch == '*' || ch == '+' || ch == '{') {
            /* `{` is a literal brace unless a digit or ',' follows, after blanks: Perl 5.34
             * and PCRE2 10.43 read `x{ 0,2000}` as a count */
            const char *d = p + 1;
            while (*d == ' ' || *d == '\t')
                d++;
            if (ch == '{' && !(*d >= '0' && *d <= '9') && *d != ',') {
                atom = true;
                continue;
            }
            return "a repetition (*, + or {n,m}) costs a backtracking engine time polynomial or "
                   "exponential in the line";
        } else {
            atom = ch != '^' && ch != '$' && ch != '|';
        }
    }
    return depth ? outside : (1UL << optional) * strlen(pat) > SHC_MAX_BT_WORK ? paths : NULL;
}

/* rg's default engine is linear in the input, but every copy of a Unicode class (`\w`, `\d`,
 * `\s`, `\pL`, `.`, a class holding one, `[:name:]`, a non-ASCII byte) is thousands of byte
 * ranges in the NFA: with many the lazy DFA gives up and the PikeVM runs at microseconds per
 * byte (200 KB: `\w*a\w{8}Q` 0.08 s, `\w{16}` 0.11 s, `\w{40}` 0.46 s, `\w{300}` and `\w`
 * written 300 times over 1.4 s; `[a-z]{300}` 0.03 s).  Counts the copies: each class once, n
 * times under {n} (a group: its copies times n; `*`, `+`, `?` add none); over
 * SHC_MAX_RG_CLASS_COUNT in a command's patterns is terminal, unless `(?-u)` starts it. */
static unsigned long shc__rg_class_counts(const char *pat)
{
    unsigned long inner[17] = {0}, total = 0, lastw = 0;
    unsigned depth = 0;
    if (!strncmp(pat, "(?-u)", 5) && !strstr(pat + 5, "(?"))
        return 0;
    for (const char *p = pat; *p; p++) {
        unsigned long w = 0;
        if (*p == '\\' && p[1]) {
            char e = *++p;
            w = strchr("wWdDsSpP", e) ? 1 : 0;
            if ((e == 'p' || e == 'P') && p[1] == '{') {
                const char *end = strchr(p + 1, '}');
                p = end ? end : p + strlen(p) - 1;
            } else if ((e == 'p' || e == 'P') && p[1]) {
                p++;
            }
        } else if (*p == '[') {
            /* up to the matching `]` (rg nests classes); `]` first is a member */
            const char *q = p + 1;
            unsigned nest = 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            for (; *q && nest; q++) {
                if (*q == '\\' && q[1]) {
                    if (strchr("wWdDsSpP", q[1]))
                        w = 1;
                    q++;
                } else if (*q == '[') {
                    nest++;
                    w |= q[1] == ':';
                } else if (*q == ']') {
                    nest--;
                } else if ((unsigned char)*q >= 0x80) {
                    w = 1;
                }
            }
            p = q - 1;
        } else if (*p == '.') {
            w = 1;
        } else if (*p == '(') {
            if (p[1] == '?') {
                const char *q = p + 2;
                while (*q && *q != ')' && *q != ':')
                    q++;
                if (*q == ')') { /* a flag group `(?i)` */
                    p = q;
                    lastw = 0;
                    continue;
                }
                p = *q ? q : q - 1;
            }
            if (depth < 16)
                inner[++depth] = 0;
            lastw = 0;
            continue;
        } else if (*p == ')' && depth) { /* the group's copies are in total already */
            lastw = inner[depth--];
            inner[depth] += lastw;
            continue;
        } else if (*p == '{' && p[1] >= '0' && p[1] <= '9') {
            unsigned long n = 0;
            for (p++; *p >= '0' && *p <= '9'; p++)
                n = n < 1000000 ? n * 10 + (unsigned long)(*p - '0') : n;
            if (*p == ',')
                for (unsigned long m = 0; *++p >= '0' && *p <= '9';)
                    if ((m = m < 1000000 ? m * 10 + (unsigned long)(*p - '0') : m) > n)
                        n = m;
            if (!*p)
                p--;
            if (lastw && n > 1) { /* the atom's copies are counted once already */
                unsigned long add = lastw * (n - 1);
                total += add;
                inner[depth] += add;
            }
            lastw = 0;
            continue;
        } else if (*p == '*' || *p == '+' || *p == '?' || *p == '|') {
            lastw = 0;
            continue;
        }
        inner[depth] += w;
        total += w;
        lastw = w;
        if (total > 1000000)
            break;
    }
    return total;
}

int shc__check_engine(shc_rule *r, const char *cmd, const shc_optres *res, const char *operand,
                      size_t operand_argi, bool always)
{
    bool bt = always, literal = false;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *o = &res->opts[i];
        if (o->opt->role == SHC_ROLE_PCRE && !(o->value && !strcmp(o->value, "default")))
            bt = true;
        literal |= o->opt->role == SHC_ROLE_LITERAL;
    }
    const char *why;
    if (!bt && !always && shc__rust_regex(cmd) && !shc__has_long(res, "fixed-strings")) {
        unsigned long n = 0;
        for (size_t i = 0; i <= res->nopts; i++) {
            const char *v = i < res->nopts ? (res->opts[i].opt->role == SHC_ROLE_PATTERN
                                                  ? res->opts[i].value
                                                  : NULL)
                                           : operand;
            if (v && (n += shc__rg_class_counts(v)) > SHC_MAX_RG_CLASS_COUNT)
                return shc__reject(r, i < res->nopts ? res->opts[i].argi : operand_argi,
                                   "%s: over %d copies of Unicode classes ('\\w{n}', "
                                   "'\\w\\w...', '.{n}') make the regex crate run at "
                                   "microseconds per byte", cmd, SHC_MAX_RG_CLASS_COUNT);
        }
    }
    if (!bt)
        return 0;
    for (size_t i = 0; i < res->nopts; i++) {
        const shc_optval *o = &res->opts[i];
        if (o->value && ((o->opt->role == SHC_ROLE_PATTERN && !literal) ||
                         o->opt->role == SHC_ROLE_REGEX) &&
            (why = shc__backtrack_unsafe(o->value)))
            return shc__reject(r, o->argi, "%s: %s", cmd, why);
    }
    if (operand && !literal && (why = shc__backtrack_unsafe(operand)))
        return shc__reject(r, operand_argi, "%s: %s", cmd, why);
    return 0;
}
