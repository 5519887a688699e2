/* The subcommands' option parser: getopt_long driven by a table (see argv.h). */
#define _GNU_SOURCE /* getopt_long's permutation */
#include "cli/argv.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

enum { ID_HELP = -1, ID_VERSION = -2, LONG_BASE = 256 };

int shc__cli_usage_error(const shc_cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "shcard %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'shcard %s --help' for more information.\n", cmd->name);
    return 2;
}

/* The number of choices in "a|b|c", and the index of word (or -1). */
static int choice_index(const char *choices, const char *word)
{
    size_t wl = strlen(word);
    int k = 0;
    for (const char *p = choices;; k++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == wl && !memcmp(p, word, n))
            return k;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

static bool all_digits(const char *s, bool one_dot)
{
    int dots = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s == '.' && one_dot && dots++ == 0)
            continue;
        if (*s < '0' || *s > '9')
            return false;
    }
    return true;
}

/* The value of o from text s: 0, or a message in err. */
static int convert(const shc_cli_opt *o, const char *s, shc_cli_val *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->str = s;
    switch (o->arg) {
    case SHC_ARG_NONE: return 0;
    case SHC_ARG_STR:
        if (!*s) {
            snprintf(err, errlen, "--%s needs a value (%s), got ''", o->name, o->meta);
            return -1;
        }
        return 0;
    case SHC_ARG_UINT: {
        errno = 0;
        char *end = NULL;
        unsigned long long n = all_digits(s, false) ? strtoull(s, &end, 10) : 0;
        if (!end || *end || errno || (double)n < o->min || (double)n > o->max) {
            snprintf(err, errlen, "--%s: expected a whole number from %.0f to %.0f, got '%s'",
                     o->name, o->min, o->max, s);
            return -1;
        }
        v->u = n;
        v->num = (double)n;
        return 0;
    }
    case SHC_ARG_NUM: {
        char *end = NULL;
        double d = all_digits(s, true) && strcmp(s, ".") ? strtod(s, &end) : -1;
        if (!end || *end || !isfinite(d) || d < o->min || d > o->max) {
            snprintf(err, errlen, "--%s: expected a number from %g to %g (e.g. 2.5), got '%s'",
                     o->name, o->min, o->max, s);
            return -1;
        }
        v->num = d;
        return 0;
    }
    case SHC_ARG_CHOICE:
        v->choice = choice_index(o->meta, s);
        if (v->choice < 0) {
            char words[256];
            snprintf(words, sizeof words, "%s", o->meta);
            for (char *p = words; (p = strchr(p, '|'));)
                *p = '/';
            snprintf(err, errlen, "--%s: expected one of %s, got '%s'", o->name, words, s);
            return -1;
        }
        return 0;
    }
    return -1;
}

/* The row a getopt return value names (a short option's letter or LONG_BASE + index). */
static const shc_cli_opt *row_of(const shc_cli_cmd *cmd, int c)
{
    if (c >= LONG_BASE && (size_t)(c - LONG_BASE) < cmd->nopts)
        return &cmd->opts[c - LONG_BASE];
    for (size_t i = 0; i < cmd->nopts; i++)
        if (cmd->opts[i].short_name && cmd->opts[i].short_name == c)
            return &cmd->opts[i];
    return NULL;
}

/* The long options a prefix (up to '=') names: the count, and the last one in *name. */
static int prefix_matches(const shc_cli_cmd *cmd, const char *word, const char **name)
{
    size_t n = strcspn(word, "=");
    int k = 0;
    const char *fixed[] = {"help", "version"};
    for (size_t i = 0; i < cmd->nopts + 2; i++) {
        const char *nm = i < cmd->nopts ? cmd->opts[i].name : fixed[i - cmd->nopts];
        if (!strncmp(nm, word, n)) {
            if (strlen(nm) == n) { /* exact */
                *name = nm;
                return 1;
            }
            k++;
            *name = nm;
        }
    }
    return k;
}

/* The message for getopt's '?': an unknown or ambiguous option, or a value given to a flag. */
static int bad_option(const shc_cli_cmd *cmd, char **argv, int c_optopt)
{
    const char *hint = cmd->hint ? cmd->hint : "";
    const char *sep = cmd->hint ? " (" : "", *end = cmd->hint ? ")" : "";
    if (c_optopt > 0 && c_optopt < LONG_BASE && !row_of(cmd, c_optopt) && c_optopt != 'h' &&
        c_optopt != 'V')
        return shc__cli_usage_error(cmd, "unknown option '-%c'%s%s%s", c_optopt, sep, hint, end);
    const char *word = argv[optind - 1];
    if (strncmp(word, "--", 2)) /* a short option whose letter getopt did not report */
        return shc__cli_usage_error(cmd, "unknown option in '%s'%s%s%s", word, sep, hint, end);
    const char *name = NULL;
    int n = prefix_matches(cmd, word + 2, &name);
    size_t wl = strcspn(word + 2, "=");
    if (n == 1 && word[2 + wl] == '=')
        return shc__cli_usage_error(cmd, "option '--%s' takes no value (got '%s')", name, word);
    if (n > 1)
        return shc__cli_usage_error(cmd, "option '%.*s' is ambiguous", (int)(wl + 2), word);
    return shc__cli_usage_error(cmd, "unknown option '%.*s'%s%s%s", (int)(wl + 2), word, sep,
                                hint, end);
}

int shc__cli_parse(const shc_cli_cmd *cmd, int argc, char **argv, void *ctx, int *first,
                   bool *dashdash)
{
    struct option lo[SHC_CLI_MAX_OPTS + 3];
    char so[3 * SHC_CLI_MAX_OPTS + 8];
    size_t s = 0;
    if (cmd->nopts > SHC_CLI_MAX_OPTS)
        return shc__cli_usage_error(cmd, "too many options in the table");
    if (cmd->stop_at_operand)
        so[s++] = '+';
    so[s++] = ':'; /* a missing value is ':' apart from an unknown option '?' */
    for (size_t i = 0; i < cmd->nopts; i++) {
        const shc_cli_opt *o = &cmd->opts[i];
        lo[i] = (struct option){o->name, o->arg == SHC_ARG_NONE ? no_argument : required_argument,
                                NULL, LONG_BASE + (int)i};
        if (o->short_name) {
            so[s++] = o->short_name;
            if (o->arg != SHC_ARG_NONE)
                so[s++] = ':';
        }
    }
    lo[cmd->nopts] = (struct option){"help", no_argument, NULL, 'h'};
    lo[cmd->nopts + 1] = (struct option){"version", no_argument, NULL, 'V'};
    lo[cmd->nopts + 2] = (struct option){NULL, 0, NULL, 0};
    memcpy(so + s, "hV", 3);

    const char *dash_values[8]; /* values that were "--" (`--cwd --`): not the end of options */
    size_t ndash = 0;
    optind = 0; /* glibc: start over, even after an earlier parse */
    opterr = 0;
    int c;
    char err[512];
    while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (c == 'h') {
            shc__cli_help(cmd, stdout);
            return SHC_CLI_DONE;
        }
        if (c == 'V') {
            printf("shcard %s\n", SHC_VERSION);
            return SHC_CLI_DONE;
        }
        if (c == '?')
            return bad_option(cmd, argv, optopt);
        if (c == ':') {
            const shc_cli_opt *o = row_of(cmd, optopt);
            return shc__cli_usage_error(cmd, "option '--%s' needs a value (%s)",
                                        o ? o->name : "?", o ? o->meta : "?");
        }
        const shc_cli_opt *o = row_of(cmd, c);
        if (!o)
            return shc__cli_usage_error(cmd, "internal: option %d has no row", c);
        if (optarg && !strcmp(optarg, "--") && ndash < sizeof dash_values / sizeof *dash_values)
            dash_values[ndash++] = optarg;
        shc_cli_val v;
        err[0] = '\0';
        if (convert(o, o->arg == SHC_ARG_NONE ? NULL : optarg, &v, err, sizeof err) ||
            cmd->set(ctx, o, &v, err, sizeof err))
            return shc__cli_usage_error(cmd, "%s", err[0] ? err : "bad option");
    }
    *first = optind;
    bool dd = optind > 1 && !strcmp(argv[optind - 1], "--");
    for (size_t i = 0; dd && i < ndash; i++)
        if (dash_values[i] == argv[optind - 1])
            dd = false;
    if (dashdash)
        *dashdash = dd;
    return 0;
}

/* One option's line(s): "  -v, --verbose          text (default: X)". */
static void help_row(FILE *f, char sh, const char *name, const shc_cli_opt *o, const char *help,
                     const char *dflt)
{
    char spec[80];
    if (sh)
        snprintf(spec, sizeof spec, "-%c, --%s", sh, name);
    else
        snprintf(spec, sizeof spec, "    --%s", name);
    if (o && o->arg != SHC_ARG_NONE) {
        size_t n = strlen(spec);
        snprintf(spec + n, sizeof spec - n, "=%s", o->meta);
    }
    fprintf(f, "  %-28s", spec);
    if (strlen(spec) > 28)
        fprintf(f, "\n  %-28s", "");
    size_t last = 0; /* the length of the last line written */
    for (const char *p = help; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "%.*s", (int)n, p);
        last = n;
        if (!nl)
            break;
        fprintf(f, "\n  %-28s", "");
        p = nl + 1;
    }
    if (dflt) {
        if (last + strlen(dflt) + 12 > 70) /* on a line of its own */
            fprintf(f, "\n  %-28s(default: ", "");
        else
            fprintf(f, " (default: ");
        for (const char *p = dflt; *p; p++) /* a default of several lines stays in the column */
            if (*p == '\n')
                fprintf(f, "\n  %-28s          ", "");
            else
                fputc(*p, f);
        fputc(')', f);
    }
    fputc('\n', f);
}

void shc__cli_help(const shc_cli_cmd *cmd, FILE *f)
{
    const char *p = cmd->synopsis;
    const char *lead = "usage:";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "%s shcard %s %.*s\n", lead, cmd->name, (int)n, p);
        lead = "   or:";
        p += n + (nl ? 1 : 0);
    }
    fprintf(f, "%s\n\nOptions:\n", cmd->about);
    for (size_t i = 0; i < cmd->nopts; i++) {
        const shc_cli_opt *o = &cmd->opts[i];
        help_row(f, o->short_name, o->name, o, o->help, o->dflt);
    }
    help_row(f, 'h', "help", NULL, "print this help and exit", NULL);
    help_row(f, 'V', "version", NULL, "print the version and exit", NULL);
    if (cmd->epilog)
        fprintf(f, "\n%s", cmd->epilog);
}
