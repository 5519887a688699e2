/* Option parsing over decoded argv words: one parser per family of real option parsers
 * (shc_family in policy.h), each written after the real one and checked against the installed
 * tool (the evidence is in each tools/NAME.def).  Where a family is irregular the doubtful shape
 * rejects: a smaller accepted language that is exactly right.
 *
 *   GNU, PERL, GIT, CLAP, BASH  parse_words(): clusters, values, --, permutation, with the
 *                               family's differences at the points marked below
 *   TREE                        parse_tree(): values come from the next words, even in a cluster
 *   GITMAIN                     parse_gitmain(): whole words, up to the subcommand */
#include "classify/policy.h"

#include <string.h>

typedef struct pstate {
    shc_optres *res;
    shc_rule *r;
    const shc_cmdspec *spec;
    const char *const *argv;
    size_t argc;
} pstate;

/* -NUM: a count. */
static const shc_opt digits_opt = {0, NULL, SHC_ARG_REQ, SHC_ROLE_LINES, 0, NULL};
/* -NUM of grep and git grep: a context count */
static const shc_opt digits_ctx = {0, NULL, SHC_ARG_REQ, SHC_ROLE_NUMBER, 0, NULL};

/* ------------------------------------------------------------------ results */

static const shc_opt *find_short(const shc_cmdspec *spec, char c)
{
    for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++)
        if (o->short_name == c)
            return o;
    return NULL;
}

static int add_opt(pstate *p, const shc_opt *o, const char *value, size_t argi)
{
    shc_optres *res = p->res;
    shc_rule *r = p->r;
    long width;
    if (o->role == SHC_ROLE_NUMBER && value && !shc__all_digits(value))
        return shc__reject(r, argi,
                           "%s: '%s' is not a decimal number (ag -A x never ends; ack reads -m1x "
                           "as -m 1 -x)",
                           p->spec->name, value);
    if (o->role == SHC_ROLE_NUMBER && value &&
        (shc__parse_num(value, strlen(value), &width) < 0 || width > SHC_MAX_NUMBER))
        return shc__reject(r, argi, "%s: '%s' is over %d (a count, depth or limit without a "
                                    "bound: ag -B 2147483647 ran for 75 s)",
                           p->spec->name, value, SHC_MAX_NUMBER);
    if (o->role == SHC_ROLE_PROCS && value &&
        (!shc__all_digits(value) || shc__parse_num(value, strlen(value), &width) < 0 ||
         width < 1 || width > SHC_MAX_PROCS))
        return shc__reject(r, argi,
                           "%s: '%s' is not a thread or process count from 1 to %d (xargs -P 0 "
                           "starts one process per name)",
                           p->spec->name, value, SHC_MAX_PROCS);
    if (o->role == SHC_ROLE_WIDTH && value &&
        (shc__parse_num(value, strlen(value), &width) < 0 || width > SHC_MAX_WIDTH))
        return shc__reject(r, argi,
                           "%s: width '%s' is not a number up to %d (nl -w pads every line)",
                           p->spec->name, value, SHC_MAX_WIDTH);
    if (o->role == SHC_ROLE_WILDMATCH && value && shc__doublestars(value) > SHC_MAX_DOUBLESTARS)
        return shc__reject(r, argi, "%s: a pattern with more than %d '**' makes git's wildmatch "
                                    "backtrack exponentially over a deep path",
                           p->spec->name, SHC_MAX_DOUBLESTARS);
    if (o->role == SHC_ROLE_ECHO && value && strlen(value) > SHC_MAX_ECHO)
        return shc__reject(r, argi,
                           "%s: a string of over %d bytes that the tool prints again for every "
                           "match, line or entry (nl -s of 60 KB wrote 1.5 GB in 5 s)",
                           p->spec->name, SHC_MAX_ECHO);
    if (o->role == SHC_ROLE_ECHO && value && shc__count_char(value, '$') > SHC_MAX_ECHO_REFS)
        return shc__reject(r, argi,
                           "%s: more than %d '$' in a string printed for every match (rg -r "
                           "'$0$0...' repeats each match that many times)",
                           p->spec->name, SHC_MAX_ECHO_REFS);
    if (o->role == SHC_ROLE_ECHO && value && shc__fmt_widths(value, NULL) > SHC_MAX_WIDTH)
        return shc__reject(r, argi,
                           "%s: '%s' asks for fields over %d columns together, printed for every "
                           "entry",
                           p->spec->name, value, SHC_MAX_WIDTH);
    if (o->role == SHC_ROLE_TABS && value &&
        (!shc__all_digits(value) || shc__parse_num(value, strlen(value), &width) < 0 ||
         width > SHC_MAX_TABS))
        return shc__reject(r, argi, "%s: tab width '%s' is not a number up to %d (each tab "
                                    "becomes that many spaces)",
                           p->spec->name, value, SHC_MAX_TABS);
    if (p->spec->family == SHC_FAM_CLAP && o->arg != SHC_ARG_NONE && !(o->flags & SHC_MULTI))
        for (size_t i = 0; i < res->nopts; i++)
            if (res->opts[i].opt == o)
                return shc__reject(r, argi,
                                   "%s: --%s given twice (clap 2 makes the repeat swallow the "
                                   "next words; clap 3/4 keep the last)",
                                   p->spec->name, o->long_name ? o->long_name : "?");
    if (o->role == SHC_ROLE_FILE || o->role == SHC_ROLE_DIRFILE) {
        if (!strcmp(value, "-"))
            return shc__reject(r, argi, "%s: the file '-' (standard input to most tools)",
                               p->spec->name);
        if (value[0] == '\0')
            return shc__reject(r, argi, "%s: empty file name", p->spec->name);
        /* a name read in every directory walked, subdirectories included, where nothing
         * judges it (`--exclude-per-directory=fifo`): only the name whose every copy in the
         * parents is judged as an ignore file (repo.c) */
        if (o->role == SHC_ROLE_DIRFILE && strcmp(value, ".gitignore") != 0)
            return shc__reject(r, argi, "%s: '%s' is read in every directory walked, where it is "
                               "not judged (only .gitignore is)", p->spec->name, value);
        if (o->role == SHC_ROLE_FILE) {
            if (r->ninputs >= SHC_MAX_ARGS)
                return shc__reject(r, argi, "too many input files");
            r->inputs[r->ninputs] = value;
            r->input_argi[r->ninputs++] = argi;
        }
    }
    if (res->nopts >= SHC_MAX_ARGS)
        return shc__reject(r, argi, "too many options");
    res->opts[res->nopts++] = (shc_optval){o, value, argi};
    return 0;
}

static int add_operand(pstate *p, const char *value, size_t argi, bool dd)
{
    if (p->res->nops >= SHC_MAX_ARGS)
        return shc__reject(p->r, argi, "too many operands");
    p->res->ops[p->res->nops++] = (shc_operand){value, argi, dd};
    return 0;
}

/* ------------------------------------------------------------------ long names */

/* Resolves --name (name[0..n)) to an option, or rejects.  Exact names always; unique prefixes
 * only for SHC_ABBREV commands, whose tables hold every real long name that is a prefix of
 * one of theirs (so a prefix resolves as the tool resolves it, or the tool reports an error);
 * a prefix that could name a dangerous option rejects. */
static const shc_opt *find_long(pstate *p, const char *name, size_t n, size_t argi)
{
    const shc_cmdspec *spec = p->spec;
    const shc_opt *hit = NULL;
    size_t nhit = 0;
    for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++)
        if (o->long_name && strlen(o->long_name) == n && !strncmp(o->long_name, name, n))
            return o; /* exact */
    if (!(spec->flags & SHC_ABBREV)) {
        shc__reject(p->r, argi, "%s: unknown option --%.*s (%s takes whole option names only)",
                    spec->name, (int)n, name, spec->name);
        return NULL;
    }
    for (const shc_opt *o = spec->opts; n > 0 && (o->short_name || o->long_name); o++) {
        if (!o->long_name || strncmp(o->long_name, name, n) != 0)
            continue;
        if (o->danger) {
            shc__reject(p->r, argi, "%s: --%.*s could abbreviate --%s (%s)", spec->name, (int)n,
                        name, o->long_name, o->danger);
            return NULL;
        }
        hit = o;
        nhit++;
    }
    if (nhit == 1)
        return hit;
    if (nhit > 1)
        shc__reject(p->r, argi, "%s: --%.*s is ambiguous", spec->name, (int)n, name);
    else
        shc__reject(p->r, argi, "%s: unknown option --%.*s", spec->name, (int)n, name);
    return NULL;
}

/* The value of an option from the next word, with the family's rules for which words may be
 * values.  shown names the option in messages. */
static int next_value(pstate *p, const shc_opt *o, size_t *i, const char *shown, const char **value)
{
    const char *name = p->spec->name;
    if (*i + 1 >= p->argc)
        return shc__reject(p->r, *i, "%s: %s needs a value", name, shown);
    const char *v = p->argv[*i + 1];
    switch (p->spec->family) {
    case SHC_FAM_CLAP:
        /* clap 3/4 and clap 2 without allow_hyphen_values read the word as an option (and
         * report a missing value); lexopt takes it: only HYPHEN options agree everywhere */
        if (!strcmp(v, "--") || (v[0] == '-' && v[1] && !(o->flags & SHC_HYPHEN)))
            return shc__reject(p->r, *i + 1,
                               "%s: '%s' after %s is an option to clap, a value to lexopt", name, v,
                               shown);
        break;
    case SHC_FAM_PERL:
        /* ack's early Getopt::Long passes (--noenv, --ackrc=F, --type-add=..., --help) do not
         * know which options take values and read such a word as an option wherever it is */
        if (v[0] == '-' && v[1] == '-')
            return shc__reject(p->r, *i + 1,
                               "%s: '%s' after %s: ack's early option passes read it as an option",
                               name, v, shown);
        break;
    case SHC_FAM_GNU:
    case SHC_FAM_GIT:
    case SHC_FAM_GITMAIN:
    case SHC_FAM_TREE:
    case SHC_FAM_BASH: break;
    }
    *value = v;
    ++*i;
    return 0;
}

static int parse_long(pstate *p, size_t *i)
{
    const char *a = p->argv[*i];
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    size_t argi = *i;
    const char *cmd = p->spec->name;
    switch (p->spec->family) {
    case SHC_FAM_BASH: return shc__reject(p->r, argi, "%s: %s is not an option of %s", cmd, a, cmd);
    case SHC_FAM_PERL:
        if (n == 1) /* Getopt::Long with bundling reads --h as the letter -h */
            return shc__reject(p->r, argi, "%s: %s names the one-letter option -%c", cmd, a,
                               name[0]);
        break;
    case SHC_FAM_GIT:
        if (!strcmp(name, "end-of-options"))
            return shc__reject(p->r, argi,
                               "%s: --end-of-options stays in git grep's words (it becomes the "
                               "pattern)",
                               cmd);
        break;
    case SHC_FAM_GNU:
    case SHC_FAM_CLAP:
    case SHC_FAM_GITMAIN:
    case SHC_FAM_TREE: break;
    }
    const shc_opt *o = find_long(p, name, n, argi);
    if (!o)
        return -1;
    if (o->danger)
        return shc__reject(p->r, argi, "%s", o->danger);
    const char *value = NULL;
    switch (o->arg) {
    case SHC_ARG_NONE:
        if (eq)
            return shc__reject(p->r, argi, "%s: --%s takes no value", cmd, o->long_name);
        break;
    case SHC_ARG_REQ:
        if (eq)
            value = eq + 1;
        else if (next_value(p, o, i, a, &value) < 0)
            return -1;
        break;
    case SHC_ARG_OPT: value = eq ? eq + 1 : NULL; break;
    }
    return add_opt(p, o, value, argi);
}

/* ------------------------------------------------------------------ letters */

/* -NUM as a count: where each tool's parser accepts it. */
static bool digits_here(const pstate *p, size_t i, size_t start)
{
    const char *a = p->argv[i];
    unsigned f = p->spec->flags;
    if (!(f & (SHC_DIGITS_HEAD | SHC_DIGITS_TAIL | SHC_DIGITS_ANY)) || !shc__all_digits(a + 1))
        return false;
    if (f & SHC_DIGITS_ANY)
        return true;
    if (i != start || start != 1)
        return false;
    if (f & SHC_DIGITS_HEAD)
        return true;
    /* coreutils tail: the obsolete form needs one option and at most one file */
    const char *const *v = p->argv;
    return p->argc == 2 || (p->argc == 3 && !(v[2][0] == '-' && v[2][1])) ||
           ((p->argc == 3 || p->argc == 4) && !strcmp(v[2], "--"));
}

static int parse_short(pstate *p, size_t *i, size_t start)
{
    const char *a = p->argv[*i];
    size_t argi = *i;
    const char *cmd = p->spec->name;
    if (digits_here(p, *i, start))
        return add_opt(p, p->spec->flags & SHC_DIGITS_ANY ? &digits_ctx : &digits_opt, a + 1,
                       argi);
    for (size_t j = 1; a[j]; j++) {
        const shc_opt *o = find_short(p->spec, a[j]);
        if (!o) {
            if ((unsigned char)a[j] < 0x20 || (unsigned char)a[j] >= 0x7f)
                return shc__reject(p->r, argi, "%s: unknown option byte 0x%02x", cmd,
                                   (unsigned char)a[j]);
            if (a[j] >= '0' && a[j] <= '9' &&
                (p->spec->flags & (SHC_DIGITS_HEAD | SHC_DIGITS_TAIL)))
                return shc__reject(p->r, argi,
                                   "%s: -NUM is a count only as the first argument (elsewhere "
                                   "coreutils reports an invalid option)",
                                   cmd);
            return shc__reject(p->r, argi, "%s: unknown option -%c", cmd, a[j]);
        }
        if (o->danger)
            return shc__reject(p->r, argi, "%s", o->danger);
        switch (o->arg) {
        case SHC_ARG_NONE:
            if (add_opt(p, o, NULL, argi) < 0)
                return -1;
            continue;
        case SHC_ARG_REQ: {
            char shown[3] = {'-', a[j], '\0'};
            const char *value;
            if (a[j + 1]) {
                value = a + j + 1;
                /* clap drops the '=' of -n=5, lexopt may not */
                if (p->spec->family == SHC_FAM_CLAP && value[0] == '=')
                    return shc__reject(p->r, argi, "%s: %s: clap and lexopt read '%s' differently",
                                       cmd, a, value);
            } else if (next_value(p, o, i, shown, &value) < 0) {
                return -1;
            }
            return add_opt(p, o, value, argi);
        }
        case SHC_ARG_OPT: return add_opt(p, o, a[j + 1] ? a + j + 1 : NULL, argi);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the getopt-like families */

static int parse_words(pstate *p, size_t start, bool permute)
{
    const shc_cmdspec *spec = p->spec;
    bool dashdash = false, stopped = false;
    bool keep_dashdash = spec->family == SHC_FAM_GIT && (spec->flags & SHC_STOP);
    for (size_t i = start; i < p->argc; i++) {
        const char *a = p->argv[i];
        if (dashdash || stopped) {
            if (add_operand(p, a, i, dashdash) < 0)
                return -1;
            continue;
        }
        if (!strcmp(a, "--")) {
            if (keep_dashdash) { /* git grep reads `--` itself (PARSE_OPT_KEEP_DASHDASH) */
                stopped = true;
                if (add_operand(p, a, i, false) < 0)
                    return -1;
            } else {
                dashdash = true;
            }
            continue;
        }
        int rc;
        if (a[0] == '-' && a[1] == '-')
            rc = parse_long(p, &i);
        else if (a[0] == '-' && a[1] != '\0')
            rc = parse_short(p, &i, start);
        else {
            if (spec->family == SHC_FAM_GIT && (!strcmp(a, "(") || !strcmp(a, ")")))
                return shc__reject(p->r, i, "%s: a bare '%s' is an option of git grep", spec->name,
                                   a);
            if (spec->family == SHC_FAM_PERL && a[0] == '+' && a[1])
                return shc__reject(p->r, i,
                                   "%s: Getopt::Long's default prefixes include '+': %s is the "
                                   "option -%s",
                                   spec->name, a, a + 1);
            rc = add_operand(p, a, i, false);
            if (!permute || (spec->flags & SHC_STOP))
                stopped = true;
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ tree */

/* tree 2.1: `-PoL a b 2` gives -P a, -o b, -L 2: every value letter of a cluster takes the next
 * unused word; `-L3` is a level only from tree 2.1.1 on (2.1.0 reads -3 as an option);
 * long options are compared whole (--charset X or --charset=X). */
static int parse_tree(pstate *p, size_t start)
{
    const char *cmd = p->spec->name;
    bool optf = true;
    for (size_t i = start, n; i < p->argc; i = n) {
        const char *a = p->argv[i];
        n = i + 1;
        if (!optf || a[0] != '-' || a[1] == '\0') {
            if (add_operand(p, a, i, !optf) < 0)
                return -1;
            continue;
        }
        if (a[1] == '-') {
            if (a[2] == '\0') {
                optf = false;
                continue;
            }
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            const shc_opt *o = find_long(p, a + 2, len, i);
            if (!o)
                return -1;
            if (o->danger)
                return shc__reject(p->r, i, "%s", o->danger);
            const char *value = NULL;
            if (o->arg == SHC_ARG_NONE && eq)
                return shc__reject(p->r, i, "%s: %s: tree compares the whole word", cmd, a);
            if (o->arg != SHC_ARG_NONE) {
                if (eq && eq[1])
                    value = eq + 1;
                else if (eq || n >= p->argc)
                    return shc__reject(p->r, i, "%s: %.*s needs a value", cmd, (int)len + 2, a);
                else
                    value = p->argv[n++];
            }
            if (add_opt(p, o, value, i) < 0)
                return -1;
            continue;
        }
        for (size_t j = 1; a[j]; j++) {
            const shc_opt *o = find_short(p->spec, a[j]);
            if (!o)
                return shc__reject(
                    p->r, i, "%s: unknown option -%c", cmd,
                    (unsigned char)a[j] < 0x20 || (unsigned char)a[j] >= 0x7f ? '?' : a[j]);
            if (o->danger)
                return shc__reject(p->r, i, "%s", o->danger);
            const char *value = NULL;
            if (o->arg != SHC_ARG_NONE) {
                if (a[j] == 'L' && a[j + 1] >= '0' && a[j + 1] <= '9')
                    return shc__reject(p->r, i,
                                       "%s: %s: tree 2.1.0 reads the digits as options, later "
                                       "versions as the level",
                                       cmd, a);
                if (n >= p->argc)
                    return shc__reject(p->r, i, "%s: -%c needs a value", cmd, a[j]);
                value = p->argv[n++];
            }
            if (add_opt(p, o, value, i) < 0)
                return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ git's own options */

/* git.c handle_options(): each word before the subcommand is compared whole ("-P",
 * "--no-pager"); no clusters, no prefixes, no `--`. */
static int parse_gitmain(pstate *p, size_t start)
{
    for (size_t i = start; i < p->argc; i++) {
        const char *a = p->argv[i];
        if (a[0] != '-') {
            for (; i < p->argc; i++)
                if (add_operand(p, p->argv[i], i, false) < 0)
                    return -1;
            return 0;
        }
        const shc_opt *o = NULL;
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        for (const shc_opt *q = p->spec->opts; q->short_name || q->long_name; q++) {
            if ((a[1] != '-' && len == 2 && q->short_name == a[1]) ||
                (a[1] == '-' && q->long_name && strlen(q->long_name) == len - 2 &&
                 !strncmp(q->long_name, a + 2, len - 2)))
                o = q;
        }
        if (!o)
            return shc__reject(p->r, i, "git: unknown option %s (git compares whole words)", a);
        if (o->danger)
            return shc__reject(p->r, i, "%s", o->danger);
        if (eq)
            return shc__reject(p->r, i, "git: %s takes no value", a);
        if (add_opt(p, o, NULL, i) < 0)
            return -1;
    }
    return 0;
}

int shc__opts_parse(shc_optres *res,
                    shc_rule *r,
                    const shc_cmdspec *spec,
                    const char *const *argv,
                    size_t start,
                    size_t argc,
                    bool permute)
{
    res->nopts = 0;
    res->nops = 0;
    pstate p = {res, r, spec, argv, argc};
    switch (spec->family) {
    case SHC_FAM_TREE: return parse_tree(&p, start);
    case SHC_FAM_GITMAIN: return parse_gitmain(&p, start);
    case SHC_FAM_GNU:
    case SHC_FAM_CLAP:
    case SHC_FAM_PERL:
    case SHC_FAM_GIT:
    case SHC_FAM_BASH: break;
    }
    return parse_words(&p, start, permute);
}
