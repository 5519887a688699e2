/* The rules for pipeline filters: later stages that read only the pipe (head/tail -n N,
 * sed -n range, nl, cat -n, wc, sort, uniq, cut, tr, column, grep), with no file operand and
 * no output option.  The sed grammar is in sed.c, counts in values.c. */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>

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

/* Parses a filter's options; an option that reads a file (grep --exclude-from=F) rejects:
 * a filter reads only the pipe. */
static int filter_parse(
    shc_optres *res, shc_rule *r, const shc_cmdspec *spec, const char *const *argv, size_t argc)
{
    if (shc__opts_parse(res, r, spec, argv, 1, argc, true) < 0)
        return -1;
    if (r->ninputs > 0)
        return shc__reject(r, r->input_argi[0], "%s: '%s' is a file: a filter reads only the pipe",
                           spec->name, r->inputs[0]);
    return 0;
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
        if (filter_parse(&res, r, spec, argv, argc) < 0)
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
        if (filter_parse(&res, r, spec, argv, argc) < 0)
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
        if (filter_parse(&res, r, spec, argv, argc) < 0)
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
        if (shc__check_patterns(r, spec->name, &res, pat ? res.ops[0].value : NULL,
                                pat ? res.ops[0].argi : 0) < 0)
            return false;
        return !filter_reject_operands(r, spec->name, &res, pat);
    }
    case SHC_CMD_tr:
        if (filter_parse(&res, r, spec, argv, argc) < 0)
            return false;
        return !filter_reject_operands(r, spec->name, &res, 2);
    case SHC_CMD_nl:
        if (filter_parse(&res, r, spec, argv, argc) < 0 || shc__check_nl_styles(r, &res) < 0)
            return false;
        return !filter_reject_operands(r, spec->name, &res, 0);
    case SHC_CMD_cat:
    case SHC_CMD_wc:
    case SHC_CMD_sort:
    case SHC_CMD_uniq:
    case SHC_CMD_cut:
    case SHC_CMD_column:
        if (filter_parse(&res, r, spec, argv, argc) < 0)
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
    case SHC_CMD_xargs:
    case SHC_CMD__COUNT: break;
    }
    shc__reject(r, 0, "%s: not a pure filter", argv[0]);
    return false;
}

static long long input_cap(const char *const *argv, size_t argc, const char **why)
{
    const shc_cmdspec *spec = shc__policy_lookup(argv[0], strlen(argv[0]));
    if (spec && spec->id == SHC_CMD_sort) {
        *why = "GNU sort writes temporary files in $TMPDIR once piped input passes its buffer "
               "(256 KiB of 2-byte lines did), and a killed sort leaves them";
        return SHC_SORT_PIPE_MAX;
    }
    if (!spec || spec->id != SHC_CMD_column)
        return -1;
    shc_optres res;
    shc_rule tmp;
    shc__rule_init(&tmp);
    if (shc__opts_parse(&res, &tmp, spec, argv, 1, argc, true) < 0)
        return 0; /* the filter rule rejects it first */
    for (size_t i = 0; i < res.nopts; i++)
        if (res.opts[i].opt->short_name == 't' || res.opts[i].opt->short_name == 'J') {
            *why = "column -t pads every cell to the widest cell of its column (one wide cell "
                   "and many short rows: the output grows with input times input)";
            return SHC_TABLE_MAX;
        }
    return -1;
}

bool shc__stage_no_growth(const char *const *argv, size_t argc)
{
    const shc_cmdspec *spec = shc__policy_lookup(argv[0], strlen(argv[0]));
    if (!spec)
        return false;
    switch (spec->id) {
    case SHC_CMD_head:
    case SHC_CMD_tail:
    case SHC_CMD_sort:
    case SHC_CMD_tr:
    case SHC_CMD_wc: return true; /* at most the bytes they read, whatever the options */
    case SHC_CMD_cat:
    case SHC_CMD_grep:
    case SHC_CMD_uniq: /* without options: -n, -A, -H, -c add to every line */
        for (size_t i = 1; i < argc; i++)
            if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--") != 0)
                return false;
        return true;
    case SHC_CMD_sed:
    case SHC_CMD_nl:
    case SHC_CMD_cut:
    case SHC_CMD_column:
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
    case SHC_CMD_xargs:
    case SHC_CMD__COUNT: break;
    }
    return false;
}

bool shc__filter_bytes(long long *piped, const char *const *argv, size_t argc, char *msg,
                       size_t cap)
{
    const char *why = NULL;
    long long max = input_cap(argv, argc, &why);
    if (max >= 0 && (*piped < 0 || *piped > max)) {
        snprintf(msg, cap, "%s: %s; what reaches it here is %s %lld KiB", argv[0], why,
                 *piped < 0 ? "not known to be at most" : "over", max >> 10);
        return true;
    }
    bool counts = !strcmp(argv[0], "uniq"); /* uniq -c: "%7d " before a line of 2 bytes or more */
    for (size_t i = 1; counts && i < argc; i++)
        counts = argv[i][0] == '-' && argv[i][1] != '-' &&
                 strspn(argv[i] + 1, "cdui") == strlen(argv[i] + 1);
    if (counts && *piped >= 0)
        *piped *= 5;
    else if (!shc__stage_no_growth(argv, argc))
        *piped = -1;
    return false;
}

long long shc__pipe_input_max(const shc_node *const *stages, size_t n)
{
    for (size_t s = 0; s < n; s++) {
        const shc_call *c = &stages[s]->u.call;
        const char *w = stages[s]->kind == SHC_NODE_CALL && c->nwords ? c->words[0].value : NULL;
        const shc_cmdspec *spec = w ? shc__policy_lookup(w, strlen(w)) : NULL;
        if (spec && spec->id == SHC_CMD_column) /* by its table, as every rule names a tool */
            return SHC_COLUMN_INPUT_MAX;
    }
    return SHC_INPUT_MAX;
}
