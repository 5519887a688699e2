/* The option tables of tools.def expanded into data, the command lookup, and the small
 * helpers every rule shares (rule results, option queries).  The parsers that read argv with
 * these tables are in opts.c. */
#include "base/fmt.h"
#include "classify/policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ the tables */

#define SHC_CMD(id, name, fam, flags) static const shc_opt opts_##id[] = {
#define SHC_OPT(s, l, a, r, d)        {s, l, SHC_ARG_##a, SHC_ROLE_##r, 0, d},
#define SHC_OPTX(s, l, a, r, f, d)    {s, l, SHC_ARG_##a, SHC_ROLE_##r, f, d},
#define SHC_END(id)                                   \
    {                                                 \
        0, NULL, SHC_ARG_NONE, SHC_ROLE_NONE, 0, NULL \
    }                                                 \
    }                                                 \
    ;
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_OPTX
#undef SHC_END

static const shc_cmdspec specs[] = {
#define SHC_CMD(id, name, fam, flags) {name, sizeof name - 1, SHC_CMD_##id, opts_##id, SHC_FAM_##fam, flags},
#define SHC_OPT(s, l, a, r, d)
#define SHC_OPTX(s, l, a, r, f, d)
#define SHC_END(id)
#include "classify/tools.def"
#undef SHC_CMD
#undef SHC_OPT
#undef SHC_OPTX
#undef SHC_END
};

/* Other names for the same tool (Debian installs bat as batcat and fd as fdfind). */
static const struct {
    const char *name;
    size_t len;
    shc_cmd_id id;
} aliases[] = {
    {"egrep", sizeof "egrep" - 1, SHC_CMD_grep},
    {"fgrep", sizeof "fgrep" - 1, SHC_CMD_grep},
    {"batcat", sizeof "batcat" - 1, SHC_CMD_bat},
    {"fdfind", sizeof "fdfind" - 1, SHC_CMD_fd},
};

const shc_cmdspec *shc__policy_lookup(const char *name, size_t len)
{
    if (len == 0)
        return NULL;
    /* the length and first byte first (this runs for every command; internal tables ("git
     * grep") contain a space and never match a word) */
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        if (specs[i].len == len && specs[i].name[0] == name[0] &&
            !memcmp(specs[i].name, name, len))
            return &specs[i];
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].len == len && aliases[i].name[0] == name[0] &&
            !memcmp(aliases[i].name, name, len))
            return &specs[aliases[i].id];
    return NULL;
}

const shc_cmdspec *shc__policy_spec(shc_cmd_id id)
{
    return &specs[id];
}

/* ------------------------------------------------------------------ rule results */

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
    r->shallow = false;
    r->nul_files = false;
    r->rc_files = false;
    r->pathspecs = false;
    r->whole_files = false;
    r->input_max = SHC_INPUT_MAX;
    r->tracked_reads = false;
    r->blobs = false;
    r->more[0] = '\0';
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

bool shc__all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* ------------------------------------------------------------------ option queries */

const shc_optval *shc__opt_first(const shc_optres *res, shc_role role)
{
    for (size_t i = 0; i < res->nopts; i++)
        if (res->opts[i].opt->role == role)
            return &res->opts[i];
    return NULL;
}

const shc_optval *shc__opt_last(const shc_optres *res, shc_role role)
{
    for (size_t i = res->nopts; i-- > 0;)
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

/* glibc's regexec/re_search (git grep without -F/-P, nl -b pRE) has no DFA: it tries every
 * start position, and from each a repetition may run to the end of the line, so `foo.*bar`
 * over one 210 KB line of `foo` took over 5 s (21 KB 0.8 s) and `x*a*b` over 40 KB 2.5 s.
 * Without repetition it still runs the pattern from every start: a 2,000-byte pattern over a
 * 210 KB line of its first letter took 1.6 s (about 4 ns per byte of pattern and of line).
 * The stated subset: no repetition at all (`*`, `+`, `{`, escaped or not; `?` is at most
 * one more character), and at most SHC_MAX_GLIBC_BYTES of pattern.  Why not, or NULL. */
const char *shc__glibc_repeat_why(const char *v)
{
    if (strlen(v) > SHC_MAX_GLIBC_BYTES)
        return shc__glibc_long_why;
    return strpbrk(v, "*+{") ? "glibc's matcher (no DFA) tries every start of a line, and from "
                               "each a repetition ('*', '+', '{') may run to its end: time "
                               "quadratic in a long line (use -F, or -P)"
                             : NULL;
}

const char *const shc__glibc_long_why =
    "a pattern over 64 bytes (all patterns together) for glibc's matcher (no DFA), which runs "
    "it from every start of a line: time pattern x line (use -F)";

bool shc__regex_special(const char *v)
{
    for (const char *p = v; *p; p++) /* non-ASCII: with -i git hands it to glibc too */
        if ((unsigned char)*p >= 0x80)
            return true;
    return strpbrk(v, "$()*+.?[\\^{|") != NULL;
}

/* The tools whose patterns go to the Rust regex crate (rg's default engine, fd): the rules of
 * that engine (shc__check_engine's Unicode class counts) attach here, not to a tool's name. */
bool shc__rust_regex(const char *cmd)
{
    return !strcmp(cmd, "rg") || !strcmp(cmd, "fd");
}
