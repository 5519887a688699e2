/* Option parsing over decoded argv words, driven by the tables in tools.def.  The parser
 * follows GNU getopt_long closely enough to see every option the real tool would see:
 * clusters (-nS), attached values (-n5, --lines=5), `--`, permutation (options after
 * operands), and unique prefixes of long options.  Anything it does not recognise rejects. */
#include "base/fmt.h"
#include "classify/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ the tables */

#define SHC_CMD(id, name, abbrev, digits) static const shc_opt opts_##id[] = {
#define SHC_OPT(s, l, a, r, d)            {s, l, SHC_ARG_##a, SHC_ROLE_##r, d},
#define SHC_END(id)                                \
    {                                              \
        0, NULL, SHC_ARG_NONE, SHC_ROLE_NONE, NULL \
    }                                              \
    }                                              \
    ;
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_END

static const shc_cmdspec specs[] = {
#define SHC_CMD(id, name, abbrev, digits) {name, SHC_CMD_##id, opts_##id, abbrev, digits},
#define SHC_OPT(s, l, a, r, d)
#define SHC_END(id)
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_END
};

/* Other names for the same tool (Debian installs bat as batcat and fd as fdfind). */
static const struct {
    const char *name;
    shc_cmd_id id;
} aliases[] = {
    {"egrep", SHC_CMD_grep},
    {"fgrep", SHC_CMD_grep},
    {"batcat", SHC_CMD_bat},
    {"fdfind", SHC_CMD_fd},
};

/* -NUM for head/tail/grep: a count. */
static const shc_opt digits_opt = {0, NULL, SHC_ARG_REQ, SHC_ROLE_LINES, NULL};

const shc_cmdspec *shc__policy_lookup(const char *name, size_t len)
{
    if (len == 0)
        return NULL;
    /* the first byte first: most names are ruled out without strlen (this runs for every
     * command; internal tables ("git grep") contain a space and never match a word) */
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        if (specs[i].name[0] == name[0] && strlen(specs[i].name) == len &&
            !memcmp(specs[i].name, name, len))
            return &specs[i];
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].name[0] == name[0] && strlen(aliases[i].name) == len &&
            !memcmp(aliases[i].name, name, len))
            return &specs[aliases[i].id];
    return NULL;
}

const shc_cmdspec *shc__policy_spec(shc_cmd_id id)
{
    return &specs[id];
}

void shc__rule_init(shc_rule *r)
{
    r->kind = SHC_KIND_TERMINAL;
    r->path = NULL;
    r->query = NULL;
    r->line = 0;
    r->line_end = 0;
    r->last_line = false;
    r->wants_stdin = false;
    r->whole_output = false;
    r->pages = false;
    r->npaths = 0;
    r->ninputs = 0;
    r->reason[0] = '\0';
    r->argi = 0;
}

int shc__reject(shc_rule *r, size_t argi, const char *fmt, ...)
{
    r->kind = SHC_KIND_TERMINAL;
    r->argi = argi;
    va_list ap;
    va_start(ap, fmt);
    shc_vformat(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------ results */

const shc_optval *shc__opt_first(const shc_optres *res, shc_role role)
{
    for (size_t i = 0; i < res->nopts; i++)
        if (res->opts[i].opt->role == role)
            return &res->opts[i];
    return NULL;
}

size_t shc__opt_count(const shc_optres *res, shc_role role)
{
    size_t n = 0;
    for (size_t i = 0; i < res->nopts; i++)
        n += res->opts[i].opt->role == role;
    return n;
}

/* ------------------------------------------------------------------ parsing */

static const shc_opt *find_short(const shc_cmdspec *spec, char c)
{
    for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++)
        if (o->short_name == c)
            return o;
    return NULL;
}


static int add_opt(shc_optres *res, shc_rule *r, const shc_opt *o, const char *value, size_t argi)
{
    if (o->role == SHC_ROLE_NUMBER && value && !shc__all_digits(value))
        return shc__reject(
            r, argi, "'%s' is not a number (found by fuzz-safety: ag -A x never ends)", value);
    if (res->nopts >= SHC_MAX_ARGS)
        return shc__reject(r, argi, "too many options");
    res->opts[res->nopts++] = (shc_optval){o, value, argi};
    return 0;
}

static int add_operand(shc_optres *res, shc_rule *r, const char *value, size_t argi, bool dd)
{
    if (res->nops >= SHC_MAX_ARGS)
        return shc__reject(r, argi, "too many operands");
    res->ops[res->nops++] = (shc_operand){value, argi, dd};
    return 0;
}

/* Resolves --name (name[0..n)) to an option, or rejects. */
static const shc_opt *
find_long(shc_rule *r, const shc_cmdspec *spec, const char *name, size_t n, size_t argi)
{
    const shc_opt *hit = NULL;
    size_t nhit = 0;
    for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++)
        if (o->long_name && strlen(o->long_name) == n && !strncmp(o->long_name, name, n))
            return o; /* exact */
    for (const shc_opt *o = spec->opts; o->short_name || o->long_name; o++) {
        if (!o->long_name || strncmp(o->long_name, name, n) != 0)
            continue;
        if (o->danger) {
            shc__reject(r, argi, "%s: --%.*s could abbreviate --%s (%s)", spec->name, (int)n, name,
                        o->long_name, o->danger);
            return NULL;
        }
        hit = o;
        nhit++;
    }
    if (nhit == 1 && spec->abbrev)
        return hit;
    if (nhit > 1 && spec->abbrev) {
        shc__reject(r, argi, "%s: --%.*s is ambiguous", spec->name, (int)n, name);
        return NULL;
    }
    shc__reject(r, argi, "%s: unknown option --%.*s", spec->name, (int)n, name);
    return NULL;
}

static int take_value(shc_rule *r,
                      const shc_cmdspec *spec,
                      const char *const *argv,
                      size_t *i,
                      size_t argc,
                      const char *shown,
                      const char **value)
{
    if (*i + 1 >= argc)
        return shc__reject(r, *i, "%s: %s needs a value", spec->name, shown);
    *value = argv[++*i];
    return 0;
}

static int parse_long(shc_optres *res,
                      shc_rule *r,
                      const shc_cmdspec *spec,
                      const char *const *argv,
                      size_t *i,
                      size_t argc)
{
    const char *a = argv[*i];
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    size_t argi = *i;
    const shc_opt *o = find_long(r, spec, name, n, argi);
    if (!o)
        return -1;
    if (o->danger)
        return shc__reject(r, argi, "%s", o->danger);
    const char *value = NULL;
    switch (o->arg) {
    case SHC_ARG_NONE:
        if (eq)
            return shc__reject(r, argi, "%s: --%s takes no value", spec->name, o->long_name);
        break;
    case SHC_ARG_REQ:
        if (eq)
            value = eq + 1;
        else if (take_value(r, spec, argv, i, argc, a, &value) < 0)
            return -1;
        break;
    case SHC_ARG_OPT: value = eq ? eq + 1 : NULL; break;
    }
    return add_opt(res, r, o, value, argi);
}

bool shc__all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static int parse_short(shc_optres *res,
                       shc_rule *r,
                       const shc_cmdspec *spec,
                       const char *const *argv,
                       size_t *i,
                       size_t argc)
{
    const char *a = argv[*i];
    size_t argi = *i;
    if (spec->digits && shc__all_digits(a + 1))
        return add_opt(res, r, &digits_opt, a + 1, argi);
    for (size_t j = 1; a[j]; j++) {
        const shc_opt *o = find_short(spec, a[j]);
        if (!o) {
            if ((unsigned char)a[j] < 0x20 || (unsigned char)a[j] >= 0x7f)
                return shc__reject(r, argi, "%s: unknown option byte 0x%02x", spec->name,
                                   (unsigned char)a[j]);
            return shc__reject(r, argi, "%s: unknown option -%c", spec->name, a[j]);
        }
        if (o->danger)
            return shc__reject(r, argi, "%s", o->danger);
        const char *value = NULL;
        switch (o->arg) {
        case SHC_ARG_NONE:
            if (add_opt(res, r, o, NULL, argi) < 0)
                return -1;
            continue;
        case SHC_ARG_REQ: {
            char shown[3] = {'-', a[j], '\0'};
            if (a[j + 1])
                value = a + j + 1;
            else if (take_value(r, spec, argv, i, argc, shown, &value) < 0)
                return -1;
            return add_opt(res, r, o, value, argi);
        }
        case SHC_ARG_OPT:
            value = a[j + 1] ? a + j + 1 : NULL;
            return add_opt(res, r, o, value, argi);
        }
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
    bool dashdash = false, stopped = false;
    for (size_t i = start; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || stopped) {
            if (add_operand(res, r, a, i, dashdash) < 0)
                return -1;
            continue;
        }
        if (!strcmp(a, "--")) {
            dashdash = true;
            continue;
        }
        int rc = 0;
        if (a[0] == '-' && a[1] == '-')
            rc = parse_long(res, r, spec, argv, &i, argc);
        else if (a[0] == '-' && a[1] != '\0')
            rc = parse_short(res, r, spec, argv, &i, argc);
        else {
            rc = add_operand(res, r, a, i, false);
            if (!permute)
                stopped = true;
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}
