/* Commands that run an allowlisted command on file names they supply: `find ... -exec grep ...
 * {} +` (find.c calls shc__exec_grep) and `find ... -print0 | xargs -0 -r grep ...`.
 *
 * What makes them safe, and what the rules check:
 *  - the names: find prints every name starting with one of its roots, and a root cannot start
 *    with '-' (find would read it as the expression), so a name is never an option; with xargs
 *    only -0 keeps a name whole (without it xargs splits at blanks and reads quotes and
 *    backslashes: a file named `x /dev/zero y.py` would give grep the operand /dev/zero);
 *  - the files: grep follows a link named on its command line and reads a FIFO named there, so
 *    find must pass only regular files: `-type f` in the and-chain of the action (find.c);
 *  - the command: grep with allowlisted options, no recursion (a link named on the command line
 *    is followed by -r), no backreference, its own pattern, the names only as file operands;
 *    its standard input is find's or /dev/null (xargs), and it never reads it with a file
 *    operand present;
 *  - xargs: -0 and -r (without -r an empty input still runs grep once, with no file: it reads
 *    standard input), or -I R with R a file operand; no -a/-o/-p (the terminal), -d, -E, -L;
 *    find's stderr stays out of the pipe (no `|&`, no `2>&1`). */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>

int shc__exec_grep(shc_rule *r, const char *const *argv, size_t cmd, size_t end, const char *ph)
{
    const char *name = argv[cmd];
    const shc_cmdspec *spec = shc__policy_lookup(name, strlen(name));
    if (!spec || spec->id != SHC_CMD_grep)
        return shc__reject(r, cmd, "%s: only grep may be run on the names (not %s)",
                           ph && !strcmp(ph, "{}") ? "find -exec" : "xargs", name);
    if (ph) {
        for (size_t i = cmd + 1; i < end; i++)
            if (strcmp(argv[i], ph) != 0 && strstr(argv[i], ph))
                return shc__reject(r, i, "%s: '%s' holds '%s', which would be replaced by a name",
                                   name, argv[i], ph);
    }
    shc_optres res;
    if (shc__opts_parse(&res, r, spec, argv, cmd + 1, end, true) < 0)
        return -1;
    for (size_t i = 0; i < res.nopts; i++)
        if (res.opts[i].opt->role == SHC_ROLE_RECURSIVE ||
            res.opts[i].opt->role == SHC_ROLE_DIRACTION)
            return shc__reject(r, res.opts[i].argi,
                               "%s: -r/-d on names from find: a link named on the command line "
                               "is followed",
                               name);
    /* every rule keyed to the program judges grep itself: egrep and fgrep (scripts that exec
     * grep -E / grep -F) get grep's rules, not a name no rule knows */
    if (shc__check_text_mode(r, spec->name, &res) < 0)
        return -1; /* find supplies the names: a huge sparse one is never seen */
    const shc_optval *e = shc__opt_first(&res, SHC_ROLE_PATTERN);
    size_t first = e ? 0 : 1;
    if (!e && (res.nops == 0 || (ph && !strcmp(res.ops[0].value, ph))))
        return shc__reject(r, cmd, "%s: no pattern of its own (a file name would be the pattern)",
                           name);
    r->query = e ? e->value : res.ops[0].value;
    if (shc__check_patterns(r, spec->name, &res, e ? NULL : res.ops[0].value,
                            e ? 0 : res.ops[0].argi) < 0)
        return -1;
    size_t nph = 0;
    for (size_t i = first; i < res.nops; i++) {
        const shc_operand *op = &res.ops[i];
        if (ph && !strcmp(op->value, ph)) {
            nph++;
            continue;
        }
        if (!strcmp(op->value, "-") || op->value[0] == '\0')
            return shc__reject(r, op->argi, "%s: '%s' is not a file that can be shown", name,
                               op->value);
        if (r->ninputs >= SHC_MAX_ARGS)
            return shc__reject(r, op->argi, "too many input files");
        r->inputs[r->ninputs] = op->value;
        r->input_argi[r->ninputs++] = op->argi;
    }
    size_t words = 0;
    for (size_t i = cmd + 1; ph && i < end; i++)
        words += !strcmp(argv[i], ph);
    if (ph && (nph != 1 || words != 1))
        return shc__reject(r, cmd, "%s: '%s' must be one file operand of its own", name, ph);
    return 0;
}

/* Whether the first stage's stderr may reach the pipe: `|&`, or a `N>&M` duplication (`2>&1`
 * puts find's messages, which quote names, between the NUL-terminated ones). */
static bool stderr_in_pipe(const shc_node *pipe)
{
    if (pipe->kind != SHC_NODE_PIPE || pipe->u.pipe.n < 2)
        return true;
    if (pipe->u.pipe.stderr_too && pipe->u.pipe.stderr_too[0])
        return true;
    const shc_call *call = &pipe->u.pipe.cmds[0]->u.call;
    for (size_t i = 0; i < call->nredirs; i++)
        if (call->redirs[i].op == SHC_REDIR_DUP_OUT)
            return true;
    return false;
}

bool shc__policy_xargs(shc_rule *r, shc_rule *p, const shc_node *pipe, const char *const *argv,
                       size_t argc)
{
    if (argc > SHC_MAX_ARGS) {
        shc__reject(r, 0, "xargs: too many words");
        return false;
    }
    if (stderr_in_pipe(pipe)) {
        shc__reject(r, 0, "xargs: find's error messages (2>&1, |&) would reach it as names");
        return false;
    }
    if (!p->nul_files) {
        shc__reject(r, 0,
                    "xargs: only names from `find ... -type f ... -print0` reach it whole (other "
                    "producers' names may hold blanks, quotes or newlines)");
        return false;
    }
    shc_optres res;
    if (shc__opts_parse(&res, r, shc__policy_spec(SHC_CMD_xargs), argv, 1, argc, true) < 0)
        return false;
    if (!shc__opt_first(&res, SHC_ROLE_NUL)) {
        shc__reject(r, 0, "xargs: without -0 it splits names at blanks and reads quotes");
        return false;
    }
    const shc_optval *rep = shc__opt_last(&res, SHC_ROLE_REPLACE);
    if (shc__opt_count(&res, SHC_ROLE_REPLACE) > 1 || (rep && rep->value[0] == '\0')) {
        shc__reject(r, rep->argi, "xargs: one non-empty -I string");
        return false;
    }
    if (!rep && !shc__opt_first(&res, SHC_ROLE_NOEMPTY)) {
        shc__reject(r, 0, "xargs: without -r an empty input still runs the command with no "
                          "file (grep then reads standard input)");
        return false;
    }
    if (res.nops == 0) {
        shc__reject(r, 0, "xargs: no command (it would echo the names)");
        return false;
    }
    size_t cmd = res.ops[0].argi;
    shc_rule g;
    shc__rule_init(&g);
    if (shc__exec_grep(&g, argv, cmd, argc, rep ? rep->value : NULL) < 0) {
        shc__reject(r, g.argi, "%s", g.reason);
        return false;
    }
    if (g.ninputs) {
        shc__reject(r, g.input_argi[0], "xargs: grep reads '%s' too: only the names are shown",
                    g.inputs[0]);
        return false;
    }
    p->kind = SHC_KIND_SEARCH;
    p->query = g.query;
    p->whole_output = false;
    snprintf(p->reason, sizeof p->reason, "find | xargs grep: search");
    return true;
}
