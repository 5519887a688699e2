/* The sed script grammar (exactly N, N,M, $, N,$ with p, under -n) and the rules for
 * pipeline filters: later stages that read only the pipe (head/tail -n N, sed -n range, nl,
 * cat -n, wc, sort, uniq, cut, tr, column, grep), with no file operand and no output option. */
#include "classify/policy.h"

#include <string.h>

/* ------------------------------------------------------------------ sed */

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

/* addr := N | $ ; returns index after it, or 0 */
static size_t sed_addr(const char *s, size_t i, long *n, bool *dollar)
{
    *dollar = false;
    if (s[i] == '$') {
        *dollar = true;
        return i + 1;
    }
    size_t j = i;
    while (s[j] >= '0' && s[j] <= '9')
        j++;
    if (j == i || shc__parse_num(s + i, j - i, n) < 0 || *n == 0)
        return 0;
    return j;
}

int shc__sed_range(const char *s, long *first, long *end, bool *last)
{
    long a = 0, b = 0;
    bool da, db = false, range = false;
    size_t i = skip_ws(s, 0);
    i = sed_addr(s, i, &a, &da);
    if (!i)
        return -1;
    i = skip_ws(s, i);
    if (s[i] == ',') {
        range = true;
        i = sed_addr(s, skip_ws(s, i + 1), &b, &db);
        if (!i)
            return -1;
        i = skip_ws(s, i);
    }
    if (s[i] != 'p')
        return -1;
    i = skip_ws(s, i + 1);
    if (s[i] == ';')
        i = skip_ws(s, i + 1);
    if (s[i] != '\0')
        return -1;
    if (da && range)
        return -1; /* `$,N p` */
    if (range && !db && b < a)
        return -1; /* `5,3p` prints one line; refuse the odd shape */
    *last = da;
    *first = da ? 0 : a;
    *end = da ? 0 : range ? (db ? 0 : b) : a;
    return 0;
}

/* sed under -n with one N[,M]p script; file operands from index *files on. */
int shc__sed_script(
    shc_rule *r, const shc_optres *res, size_t *files, long *line, long *end, bool *last)
{
    if (!shc__opt_first(res, SHC_ROLE_QUIET))
        return shc__reject(r, 0, "sed: without -n it prints every line");
    size_t ne = shc__opt_count(res, SHC_ROLE_SCRIPT);
    const char *script;
    size_t argi;
    if (ne > 1)
        return shc__reject(r, shc__opt_first(res, SHC_ROLE_SCRIPT)->argi,
                           "sed: several scripts are outside the N[,M]p subset");
    if (ne == 1) {
        const shc_optval *ov = shc__opt_first(res, SHC_ROLE_SCRIPT);
        script = ov->value;
        argi = ov->argi;
        *files = 0;
    } else {
        if (res->nops == 0)
            return shc__reject(r, 0, "sed: no script");
        script = res->ops[0].value;
        argi = res->ops[0].argi;
        *files = 1;
    }
    if (shc__sed_range(script, line, end, last) < 0)
        return shc__reject(r, argi, "sed: script '%s' is not exactly N, N,M or $ with p", script);
    return 0;
}

/* ------------------------------------------------------------------ filters */

static bool
filter_reject_operands(shc_rule *r, const char *cmd, const shc_optres *res, size_t allowed)
{
    if (res->nops > allowed) {
        shc__reject(r, res->ops[allowed].argi,
                    "%s: a filter with a file operand does not read the pipe", cmd);
        return true;
    }
    return false;
}

bool shc__policy_filter(
    shc_rule *r, const char *const *argv, size_t argc, long *line, long *line_end)
{
    *line = 0;
    *line_end = 0;
    if (argc > SHC_MAX_ARGS) {
        shc__reject(r, 0, "%s: too many words", argv[0]);
        return false;
    }
    const shc_cmdspec *spec = shc__policy_lookup(argv[0], strlen(argv[0]));
    if (!spec || strchr(argv[0], ' ')) {
        shc__reject(r, 0, "%s: not a pure filter", argv[0]);
        return false;
    }
    shc_optres res;
    shc_rule tmp;
    shc__rule_init(&tmp);
    switch (spec->id) {
    case SHC_CMD_head:
    case SHC_CMD_tail:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) < 0)
            return false;
        if (shc__check_counts(&tmp, spec->name, &res, spec->id == SHC_CMD_tail) < 0) {
            shc__reject(r, tmp.argi, "%s", tmp.reason);
            return false;
        }
        if (filter_reject_operands(r, spec->name, &res, 0))
            return false;
        *line = tmp.line;
        return true;
    case SHC_CMD_sed: {
        size_t files;
        long a, b;
        bool last;
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) < 0)
            return false;
        if (shc__sed_script(r, &res, &files, &a, &b, &last) < 0)
            return false;
        if (filter_reject_operands(r, spec->name, &res, files))
            return false;
        *line = a;
        *line_end = b;
        return true;
    }
    case SHC_CMD_grep: {
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) < 0)
            return false;
        if (shc__opt_first(&res, SHC_ROLE_RECURSIVE) || shc__opt_first(&res, SHC_ROLE_DIRACTION)) {
            shc__reject(r, 0, "%s: -r searches files, not the pipe", spec->name);
            return false;
        }
        size_t pat = shc__opt_first(&res, SHC_ROLE_PATTERN) ? 0 : 1;
        if (pat && res.nops == 0) {
            shc__reject(r, 0, "%s: no pattern", spec->name);
            return false;
        }
        return !filter_reject_operands(r, spec->name, &res, pat);
    }
    case SHC_CMD_tr:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) < 0)
            return false;
        return !filter_reject_operands(r, spec->name, &res, 2);
    case SHC_CMD_cat:
    case SHC_CMD_nl:
    case SHC_CMD_wc:
    case SHC_CMD_sort:
    case SHC_CMD_uniq:
    case SHC_CMD_cut:
    case SHC_CMD_column:
        if (shc__opts_parse(&res, r, spec, argv, 1, argc, true) < 0)
            return false;
        return !filter_reject_operands(r, spec->name, &res, 0);
    case SHC_CMD_bat:
    case SHC_CMD_rg:
    case SHC_CMD_ag:
    case SHC_CMD_ack:
    case SHC_CMD_git:
    case SHC_CMD_git_grep:
    case SHC_CMD_git_ls_files:
    case SHC_CMD_fd:
    case SHC_CMD_ls:
    case SHC_CMD_tree:
    case SHC_CMD_cd:
    case SHC_CMD__COUNT: break;
    }
    shc__reject(r, 0, "%s: not a pure filter", argv[0]);
    return false;
}
