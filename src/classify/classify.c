/* src/classify/ owns the classifier: the AST walk (this file), the per-tool option tables
 * (tools.def and tools/NAME.def), option parsing (opts.c), the per-command rules (policy.c),
 * find's predicates (find.c), pipeline filters (filter.c), the sed grammar (sed.c), option
 * values (values.c), paths (paths.c; resolve.c as the kernel resolves them), the repository's
 * own files (repo.c, rundir.c) and verdicts (verdict_build.c, verdict.c: names, free, JSON).  Entry
 * point: shc_classify() (include/shcard.h).  May use: shell/ and base/.
 * Display-only and fail-closed: whatever is not positively recognised ends in a terminal
 * verdict with the rule that decided and the span of the word or construct.
 *
 * Accepted shape (anything else is terminal):
 *   [cd DIR && | true &&]... PRIMARY [| FILTER]... [|| true | && true]...
 * with PRIMARY an allowlisted command (policy.c), FILTERs stdin-only pure filters, every word
 * static (no expansion, glob, brace, tilde), a plain unquoted command name, no assignments,
 * and redirections only to /dev/null, fd duplications, or `< FILE` for a read. */
#include "shcard.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "classify/policy.h"
#include "classify/verdict_build.h"
#include "shell/parse.h"

#define MAX_ANDOR 32
typedef struct ctx {
    const shc_ast *ast;
    bool rejected;
    char reason[200];
    shc_span span;
    char cwd[1024]; /* joined cd operands, "" when none */
    bool has_cwd;
    bool cd_physical, shallow; /* a `cd -P` in the chain; the rule's ls without -R */
    const char *kbase; /* with real_cwd: the physical directory the command runs in */
    const char *real_cwd; /* the directory the command runs in, when the caller knows it */
    shc_context context;
    const char *homes[SHC_MAX_ARGS]; /* the primary's `~` and `~/...` words (wordcheck.c) */
    size_t nhomes;
    shc_ignbudget budget; /* with real_cwd: one ignore-file budget for the whole command */
    long long piped; /* with real_cwd: the most bytes the stage so far writes, or -1: unknown */
} ctx;

__attribute__((format(printf, 3, 4))) static int reject(ctx *c, shc_span span, const char *fmt,
                                                        ...)
{
    if (c->rejected)
        return -1;
    c->rejected = true;
    c->span = span;
    va_list ap;
    va_start(ap, fmt);
    shc_vformat(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------ words */
/* A word whose value is exactly what the program will see (wordcheck.c). */
static int check_word(ctx *c, const shc_word *w, const char *what)
{
    char why[160];
    if (!shc__word_static(w, what, why, sizeof why))
        return reject(c, w->span, "%s", why);
    return 0;
}

/* Checks a call's words and assignments and fills argv (borrowed values).  The primary may
 * hold `~` paths and globs in pattern-valued options (wordcheck.c); `ls` only names directories
 * it lists (check_paths judges them). */
static int call_argv(ctx *c, const shc_node *n, const char **argv, size_t *argc, bool primary)
{
    const shc_call *call = &n->u.call;
    if (call->nassigns)
        return reject(c, call->assigns[0].span,
                      "assignment prefix %s= may change how the command behaves",
                      call->assigns[0].name);
    if (call->nwords == 0)
        return reject(c, n->span, "a redirection without a command");
    if (call->nwords > SHC_MAX_ARGS)
        return reject(c, n->span, "too many words");
    const shc_word *w0 = &call->words[0];
    if (check_word(c, w0, "command name") < 0)
        return -1;
    if (w0->flags & (SHC_WORD_QUOTED | SHC_WORD_ESCAPED))
        return reject(c, w0->span,
                      "a quoted or escaped command name may bypass aliases and functions");
    if (strchr(w0->value, '/'))
        return reject(c, w0->span, "%s: a path-qualified command may not be the real tool",
                      w0->value);
    bool ls = primary && !strcmp(w0->value, "ls");
    for (size_t i = 0; i < call->nwords; i++) {
        shc_word w = call->words[i];
        if (primary && i > 0 && shc__home_word(&w)) {
            w.flags = 0;
            c->homes[c->nhomes++] = w.value;
        } else if (primary && i > 0 && shc__glob_option(w0->value, &w)) {
            w.flags = 0;
        }
        if (check_word(c, &w, w0->value) < 0)
            return -1;
        if (!ls && shc__word_names_special(call->words[i].value))
            return reject(c, call->words[i].span,
                          "%s: '%s' names a device or process file (may block or never end)",
                          w0->value, call->words[i].value);
        argv[i] = call->words[i].value;
    }
    argv[call->nwords] = NULL;
    *argc = call->nwords;
    if (primary && !shc__glob_options_placed(call->words, argv, *argc))
        return reject(c, n->span, "%s: a glob after --, or as another option's value, expands to "
                      "file names the tool opens", w0->value);
    return 0;
}

/* ------------------------------------------------------------------ redirections */
/* Allowed: to /dev/null, fd duplication, and (when in_file is given) `< FILE`. */
static int check_redirs(ctx *c, const shc_node *n, const shc_word **in_file)
{
    const shc_call *call = &n->u.call;
    for (size_t i = 0; i < call->nredirs; i++) {
        const shc_redir *rd = &call->redirs[i];
        if (check_word(c, &rd->target, "redirection") < 0)
            return -1;
        const char *t = rd->target.value;
        switch (rd->op) {
        case SHC_REDIR_OUT:
        case SHC_REDIR_APPEND:
        case SHC_REDIR_CLOBBER:
        case SHC_REDIR_ALL:
        case SHC_REDIR_ALL_APPEND:
            if (strcmp(t, "/dev/null") != 0)
                return reject(c, rd->span, "redirection writes the file '%s'", t);
            break;
        case SHC_REDIR_DUP_OUT:
        case SHC_REDIR_DUP_IN:
            if (!shc__all_digits(t) && strcmp(t, "-") != 0)
                return reject(c, rd->span, ">&%s writes a file, it is not an fd duplication", t);
            /* fd 0 made a copy of another fd: in a terminal (shcard's executor: fds 1 and 2
             * are the pty) stdin becomes the terminal and the command waits for keys */
            if ((rd->op == SHC_REDIR_DUP_IN ? (rd->fd < 0 ? 0 : rd->fd) : rd->fd) == 0)
                return reject(c, rd->span, "%s%s changes standard input (a copy of the terminal "
                              "waits for keys)",
                              rd->op == SHC_REDIR_DUP_IN ? "<&" : ">&", t);
            if (rd->op == SHC_REDIR_DUP_IN)
                return reject(c, rd->span, "<&%s: an input duplication reads from another fd", t);
            break;
        case SHC_REDIR_IN:
            if (!strcmp(t, "/dev/null"))
                break;
            if (shc__word_names_special(t))
                return reject(c, rd->span, "< '%s' is a device or process file", t);
            if (rd->fd > 0)
                return reject(c, rd->span, "input redirection of fd %d", rd->fd);
            if (!in_file)
                return reject(c, rd->span, "< feeds a file to a command that does not read it");
            if (*in_file)
                return reject(c, rd->span, "several input redirections");
            *in_file = &rd->target;
            break;
        case SHC_REDIR_RDWR: return reject(c, rd->span, "<> opens '%s' for writing", t);
        case SHC_REDIR_HERESTRING:
            return reject(c, rd->span, "a here-string feeds text, not a file");
        }
    }
    return 0;
}
/* ------------------------------------------------------------------ shape */

typedef struct andor {
    const shc_node *elems[MAX_ANDOR];
    shc_node_kind ops[MAX_ANDOR]; /* ops[i] joins elems[i-1] and elems[i] */
    size_t n;
} andor;

static int flatten(ctx *c, const shc_node *n, andor *ao, shc_node_kind op)
{
    if (n->kind == SHC_NODE_AND || n->kind == SHC_NODE_OR) {
        if (flatten(c, n->u.binary.left, ao, op) < 0)
            return -1;
        return flatten(c, n->u.binary.right, ao, n->kind);
    }
    if (n->kind != SHC_NODE_PIPE && n->kind != SHC_NODE_CALL)
        return reject(c, n->span, "nested command lists are not one command");
    if (ao->n >= MAX_ANDOR)
        return reject(c, n->span, "too many commands");
    ao->ops[ao->n] = op;
    ao->elems[ao->n++] = n;
    return 0;
}

/* The single call of an and-or element, or NULL when it is a real pipeline. */
static const shc_node *single_call(const shc_node *n)
{
    return n->kind == SHC_NODE_CALL ? n : n->kind == SHC_NODE_PIPE && n->u.pipe.n == 1 &&
                                         !n->u.pipe.negated ? n->u.pipe.cmds[0] : NULL;
}

/* Is this element exactly the word `w` (true, :)? */
static bool is_word_call(const shc_node *n, const char *w)
{
    const shc_node *call = single_call(n);
    return call && call->u.call.nwords == 1 && !call->u.call.nassigns && !call->u.call.nredirs &&
           call->u.call.words[0].value && call->u.call.words[0].flags == 0 &&
           !strcmp(call->u.call.words[0].value, w);
}

static bool is_cd(const shc_node *n)
{
    const shc_node *call = single_call(n);
    const shc_word *w0 = call && call->u.call.nwords ? &call->u.call.words[0] : NULL;
    return w0 && w0->value && w0->flags == 0 && !strcmp(w0->value, "cd");
}

/* cd [-L|-P] DIR: joins DIR onto the running directory. */
static int take_cd(ctx *c, const shc_node *n)
{
    const shc_node *call = single_call(n);
    const char *argv[SHC_MAX_ARGS + 1];
    size_t argc;
    if (call_argv(c, call, argv, &argc, false) < 0 || check_redirs(c, call, NULL) < 0)
        return -1;
    shc_rule r;
    shc__rule_init(&r);
    shc_optres res;
    if (shc__opts_parse(&res, &r, shc__policy_spec(SHC_CMD_cd), argv, 1, argc, false) < 0)
        return reject(c, call->u.call.words[r.argi].span, "%s", r.reason);
    if (res.nops != 1)
        return reject(c, call->span, "cd: needs exactly one directory (bash refuses more)");
    const char *d = res.ops[0].value;
    if (!strcmp(d, "-") || d[0] == '\0')
        return reject(c, call->u.call.words[res.ops[0].argi].span,
                      "cd: '%s' is not a directory that can be seen", d);
    for (size_t i = 0; i < res.nopts; i++)
        c->cd_physical |= res.opts[i].opt->short_name == 'P';
    /* bash's cd is lexical but tries DIR as written when that fails (-P: physical only) */
    shc_path dn;
    if (!c->real_cwd && (shc__path_norm(&dn, NULL, d) < 0 || dn.linkup ||
                         (c->cd_physical && strstr(d, "..")) || /* after a cd: only `..`s */
                         (c->has_cwd && strstr(d, "..") && strspn(d, "./") != strlen(d))))
        return reject(c, call->u.call.words[res.ops[0].argi].span,
                      "cd: '%s': '..' after a directory that may be a symbolic link", d);
    char tmp[sizeof c->cwd];
    int w = d[0] == '/' || !c->has_cwd ? snprintf(tmp, sizeof tmp, "%s", d)
            : snprintf(tmp, sizeof tmp, "%s%s%s", c->cwd,
                       c->cwd[strlen(c->cwd) - 1] == '/' ? "" : "/", d);
    if (w < 0 || (size_t)w >= sizeof tmp)
        return reject(c, call->span, "cd: directory name too long");
    shc_path np;
    if (shc__path_check(NULL, tmp, &np) & (SHC_PATH_SPECIAL | SHC_PATH_TOOLONG))
        return reject(c, call->span, "cd: '%s' is, or may be, a device or process directory",
                      tmp);
    memcpy(c->cwd, tmp, (size_t)w + 1);
    c->has_cwd = true;
    return 0;
}

/* ------------------------------------------------------------------ paths */

/* The directory relative names start from: the cd prefix, on top of the real directory when
 * the caller knows it.  NULL when neither is known. */
static const char *path_base(ctx *c, char *buf, size_t cap)
{
    if (c->has_cwd && (c->cwd[0] == '/' || !c->real_cwd))
        return c->cwd;
    if (!c->has_cwd) /* NULL without a real directory */
        return c->real_cwd;
    int w = snprintf(buf, cap, "%s/%s", c->real_cwd, c->cwd);
    return w < 0 || (size_t)w >= cap ? NULL : buf;
}

/* One file or directory the command opens: as written p, judged after joining onto the base
 * and normalising (`bad`: the judgements that reject); with a real directory, as the kernel
 * resolves it (resolve.c). */
static int check_one(ctx *c, const char *base, const char *cmd, const char *p, unsigned bad,
                     shc_span span, const char *what)
{
    char home[4096];
    for (size_t i = 0; i < c->nhomes; i++) {
        if (p != c->homes[i])
            continue;
        if (c->has_cwd)
            return reject(c, span, "%s: '%s' after cd (the home directory is not the cd "
                          "directory)", cmd, p);
        if (!c->real_cwd) { /* HOME unknown: an ordinary directory; the rest must stay in it */
            shc_path hp;
            if (shc__path_norm(&hp, NULL, p[1] ? p + 2 : ".") < 0 || hp.climb > 0 || hp.linkup)
                return reject(c, span, "%s: '%s' may leave the home directory", cmd, p);
            return 0;
        }
#ifdef __wasi__
        const char *h = NULL; /* the WebAssembly module reads no environment: not judged */
#else
        const char *h = getenv("HOME"); /* what the command inherits */
#endif
        int w = h && h[0] == '/' ? snprintf(home, sizeof home, "%s%s", h, p + 1) : -1;
        if (w < 0 || (size_t)w >= sizeof home)
            return reject(c, span, "%s: '%s': HOME is not an absolute directory here", cmd, p);
        p = home;
        base = NULL;
        break;
    }
    shc_path np;
    unsigned j = shc__path_check(base, p, &np) & bad;
    if (j & SHC_PATH_STDIN)
        return reject(c, span, "%s: '-' reads standard input", cmd);
    if (j & SHC_PATH_TOOLONG)
        return reject(c, span, "%s: the path '%.60s...' is too long to judge", cmd, p);
    if (j & SHC_PATH_ROOT)
        return reject(c, span, "%s: '%s' is, or may be, the whole filesystem", cmd, p);
    if (j & SHC_PATH_SPECIAL)
        return reject(c, span, "%s: '%s' is, or may be, a device or process file (may block or "
                      "never end)", cmd, p);
    if (j & SHC_PATH_LINKUP)
        return reject(c, span, "%s: '%s': '..' after a name that may be a symbolic link leads "
                      "where only the kernel knows", cmd, p);
    if (c->real_cwd) {
        if (!np.absolute) /* where the kernel leads p, what the tool reads there untold */
            return reject(c, span, "%s: the path '%.60s...' is too long to judge", cmd, p);
        char msg[sizeof c->reason];
        bool deep = c->context == SHC_CONTEXT_BRIDGE && !c->shallow; /* the tree scan */
        if (shc__path_real(c->kbase, p, np.norm[0] ? np.norm : "/", bad, cmd, /* no LINKUP */
                           deep, what, &c->budget, msg, sizeof msg))
            return reject(c, span, "%s: %s", cmd, msg);
    }
    return 0;
}

/* Every path the rule names, every file-valued option value, and `< FILE`: reads name no stdin
 * or device; searches and listings cover no whole filesystem (a walk of / or /proc may not end). */
static int check_paths(ctx *c, const shc_rule *r, const shc_node *call, const shc_word *in_file)
{
    char buf[2048], kbuf[4096];
    const char *base = path_base(c, buf, sizeof buf);
    shc__ignbudget_init(&c->budget);
    c->kbase = c->real_cwd ? shc__cd_base(c->real_cwd, c->has_cwd ? c->cwd : NULL,
                                          c->cd_physical, kbuf, sizeof kbuf) : NULL;
    shc_path kp; /* the process's own directory: git starts there */
    if (c->real_cwd && (!c->kbase || shc__path_check(NULL, c->kbase, &kp) & (SHC_PATH_SPECIAL |
                                                                            SHC_PATH_TOOLONG)))
        return reject(c, call->span, "the directory '%s' is, or leads to, a device or process "
                      "directory (or is too long to judge)", c->kbase ? c->kbase : c->cwd);
    const char *cmd = call->u.call.words[0].value;
    c->budget.whole_files = r->whole_files, c->shallow = r->shallow; /* resolve.c adds ag, ack */
    c->budget.subtree = !r->shallow, c->budget.blobs = r->blobs;
    c->budget.per_match = r->kind == SHC_KIND_SEARCH; /* a path before every matching line */
    c->budget.input = r->input_max; /* the named files' bytes together (column: less) */
    char msg[sizeof c->reason]; /* what the tool reads from its directory untold (rundir.c) */
    if (c->real_cwd && shc__rundir_check(c->kbase, cmd, r, &c->budget, msg, sizeof msg))
        return reject(c, call->span, "%s", msg);
    bool walks = r->kind == SHC_KIND_SEARCH || r->kind == SHC_KIND_LIST,
         scans = c->context == SHC_CONTEXT_BRIDGE && c->real_cwd; /* shc__tree_check runs */
    unsigned file_bad = SHC_PATH_STDIN | SHC_PATH_SPECIAL | SHC_PATH_TOOLONG |
                        (c->real_cwd ? 0 : SHC_PATH_LINKUP);
    unsigned root_bad = file_bad | (walks ? SHC_PATH_ROOT : 0);
    if (in_file && check_one(c, base, cmd, in_file->value, file_bad, in_file->span, "file") < 0)
        return -1;
    size_t n = r->npaths ? r->npaths : (r->path ? 1 : 0);
    for (size_t k = 0; k < (n ? n : walks); k++) { /* a walk without a path walks "." */
        const char *q = n == 0 ? "." : r->npaths ? r->paths[k] : r->path;
        if (in_file && q == in_file->value)
            continue;
        char gd[1024]; /* a git pathspec pattern: judged as the directory git walks for it */
        if (r->pathspecs && !(q = shc__pathspec_judged(q, scans, gd, sizeof gd, msg, sizeof msg)))
            return reject(c, call->span, "%s", msg);
        unsigned qbad = shc__path_shallow(base, q, r->shallow && !c->nhomes, root_bad);
        if (walks && !r->shallow && shc__path_system_root(c->has_cwd ? c->cwd : NULL, q))
            return reject(c, call->span, "%s: '%s' is a system directory (walking it is most of "
                          "the file system)", cmd, q);
        if (check_one(c, base, cmd, q, qbad, call->span, walks ? "directory" : "file") < 0)
            return -1;
    }
    for (size_t k = 0; k < r->ninputs; k++) {
        size_t a = r->input_argi[k];
        shc_span sp = a < call->u.call.nwords ? call->u.call.words[a].span : call->span;
        if (check_one(c, base, cmd, r->inputs[k], file_bad, sp, "pattern file") < 0)
            return -1;
    }
    return 0;
}

/* rg, ack and ag given no path search standard input when it is not a terminal (rg: a file or a
 * FIFO; ack: a pipe; ag: anything but a tty) and the current directory otherwise.  Where stdin
 * is unknown an open pipe would block them; in shcard's executor stdin is /dev/null, where rg and
 * ack search the directory but ag searches the empty stdin (an empty result, not a search).
 * ag, ack and git grep --no-index read files whole: only the bridge's tree scan bounds them. */
static int check_stdin_search(ctx *c, const shc_rule *r, const shc_node *call, const char *cmd)
{
    if (r->kind != SHC_KIND_SEARCH)
        return 0;
    bool ack = !strcmp(cmd, "ack"), ag = !strcmp(cmd, "ag"); /* ack: a pipe even with paths */
    if ((ack || ag || r->whole_files) && c->context != SHC_CONTEXT_BRIDGE)
        return reject(c, call->span, "%s: %s", cmd, ack ? "it searches standard input whenever "
                      "that is a pipe, even with paths" : "it reads each file it walks to the end "
                      "unless its first block has a NUL (a sparse file's hole): judged only where "
                      "shcard scans the tree (the bridge context)");
    if (r->npaths > 0 || r->path || (!ag && !ack && strcmp(cmd, "rg")))
        return 0;
    if (ag || c->context != SHC_CONTEXT_BRIDGE)
        return reject(c, call->span,
                      "%s: without a path it searches standard input when that is not a "
                      "terminal (name the directory: %s ... .)",
                      cmd, cmd);
    return 0;
}

/* ------------------------------------------------------------------ the walk */

/* Decides the command; on acceptance fills *r, argv and argc (argv borrows the AST). */
static int decide(ctx *c, shc_rule *r, const char **argv, size_t *argc)
{
    const shc_node *root = c->ast->root;
    if (!root || root->kind != SHC_NODE_LIST || root->u.list.n == 0)
        return reject(c, root ? root->span : (shc_span){0, 0}, "empty command");
    const shc_list *l = &root->u.list;
    for (size_t i = 0; i < l->n; i++)
        if (l->seps[i] == SHC_SEP_AMP)
            return reject(c, l->items[i]->span, "& runs a command in the background");
    if (l->n > 1)
        return reject(c, l->items[1]->span, "several commands: only one is shown as a card");
    andor ao; /* only [0, n) is read: not zeroed (this runs for every command) */
    ao.n = 0;
    if (flatten(c, l->items[0], &ao, SHC_NODE_LIST) < 0)
        return -1;
    size_t i = 0;
    /* prefixes: cd DIR && / true && */
    for (; i + 1 < ao.n && ao.ops[i + 1] == SHC_NODE_AND; i++) {
        if (is_word_call(ao.elems[i], "true") || is_word_call(ao.elems[i], ":"))
            continue;
        if (!is_cd(ao.elems[i]))
            break;
        if (take_cd(c, ao.elems[i]) < 0)
            return -1;
    }
    size_t prim = i;
    for (i = prim + 1; i < ao.n; i++)
        if (!is_word_call(ao.elems[i], "true") && !is_word_call(ao.elems[i], ":"))
            return reject(c, ao.elems[i]->span, "several commands: only one is shown as a card");
    for (i = 0; i < prim; i++)
        if (i > 0 && ao.ops[i] != SHC_NODE_AND)
            return reject(c, ao.elems[i]->span, "several commands: only one is shown as a card");

    const shc_node *p = ao.elems[prim];
    const shc_node *const *stages = &p;
    size_t nstages = 1;
    if (p->kind == SHC_NODE_PIPE) {
        if (p->u.pipe.negated)
            return reject(c, p->span, "! negates the exit status");
        stages = (const shc_node *const *)p->u.pipe.cmds;
        nstages = p->u.pipe.n;
    }
    if (nstages == 0)
        return reject(c, p->span, "empty pipeline");
    for (size_t s = 0; s < nstages; s++)
        if (stages[s]->kind != SHC_NODE_CALL)
            return reject(c, stages[s]->span, "not a simple command");

    /* the primary */
    const shc_word *in_file = NULL;
    if (call_argv(c, stages[0], argv, argc, true) < 0 || check_redirs(c, stages[0], &in_file) < 0)
        return -1;
    if (!strcmp(argv[0], "zsh"))
        return reject(c, stages[0]->u.call.words[0].span,
                      "zsh: its expansions (=cmd, glob qualifiers, its brace and tilde rules) are "
                      "not modelled, so a zsh -c script is not unwrapped");
    shc__policy_primary(r, argv, *argc);
    if (r->kind == SHC_KIND_TERMINAL)
        return reject(c, stages[0]->u.call.words[r->argi < *argc ? r->argi : 0].span, "%s",
                      r->reason);
    /* shcard's executor sets PAGER, GIT_PAGER and BAT_PAGER so that nothing pages (git runs no
     * pager for "cat", bat none for an empty BAT_PAGER) */
    if (r->pages && nstages == 1 && c->context != SHC_CONTEXT_BRIDGE)
        return reject(c, stages[0]->u.call.words[0].span,
                      "%s: on a terminal it starts a pager and waits for keys (pipe it, or "
                      "--no-pager / --paging=never)",
                      strcmp(argv[0], "git") ? argv[0] : "git grep");
    if (r->wants_stdin) {
        if (!in_file)
            return reject(c, stages[0]->span, "%s: without a file it reads standard input",
                          argv[0]);
        r->path = in_file->value;
        r->paths[0] = r->path;
        r->npaths = 1;
    } else if (in_file) {
        return reject(c, in_file->span, "< feeds a file to a command that does not read it");
    }

    r->input_max = shc__pipe_input_max(stages, nstages);
    if (check_paths(c, r, stages[0], in_file) < 0)
        return -1;
    for (size_t h = 0; h < c->nhomes; h++) {
        bool used = false;
        for (size_t k = 0; k < r->npaths; k++)
            used |= r->paths[k] == c->homes[h];
        for (size_t k = 0; k < r->ninputs; k++)
            used |= r->inputs[k] == c->homes[h];
        if (!used)
            return reject(c, stages[0]->span, "%s: '%s' is not a path here (~ expands to a home "
                          "directory)", argv[0], c->homes[h]);
    }
    if (check_stdin_search(c, r, stages[0], argv[0]) < 0)
        return -1;
    c->piped = r->kind == SHC_KIND_READ && shc__stage_no_growth(argv, *argc)
                   ? r->input_max - c->budget.input : -1; /* cat, head, tail: the named files */

    /* the filters */
    for (size_t s = 1; s < nstages; s++) {
        const char *fargv[SHC_MAX_ARGS + 1];
        size_t fargc;
        shc_rule fr;
        shc__rule_init(&fr);
        long line, end;
        if (call_argv(c, stages[s], fargv, &fargc, false) < 0 ||
            check_redirs(c, stages[s], NULL) < 0)
            return -1;
        if (s == 1 && !strcmp(fargv[0], "xargs")) {
            if (!shc__policy_xargs(&fr, r, p, fargv, fargc))
                return reject(c, stages[s]->u.call.words[fr.argi < fargc ? fr.argi : 0].span, "%s",
                              fr.reason);
            continue;
        }
        if (!shc__policy_filter(&fr, fargv, fargc, &line, &end))
            return reject(c, stages[s]->u.call.words[fr.argi < fargc ? fr.argi : 0].span, "%s",
                          fr.reason);
        char fm[sizeof c->reason]; /* sort, column -t: what reaches them (filter.c) */
        if (c->real_cwd && shc__filter_bytes(&c->piped, fargv, fargc, fm, sizeof fm))
            return reject(c, stages[s]->span, "%s", fm);
        if (s == 1 && line && r->kind == SHC_KIND_READ && r->whole_output && !r->line) {
            r->line = line;
            r->line_end = end;
            memcpy(r->more, fr.more, sizeof r->more);
        }
    }
    return 0;
}

const char *shc_context_name(shc_context context)
{
    switch (context) {
    case SHC_CONTEXT_ANY: return "any";
    case SHC_CONTEXT_BRIDGE: return "bridge";
    }
    return NULL;
}

int shc_classify(shc_verdict **out, const char *cmd, size_t len, bool unwrap)
{
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    o.no_unwrap = !unwrap;
    return shc_classify_ex(out, cmd, len, &o);
}

int shc_classify_ex(shc_verdict **out, const char *cmd, size_t len, const shc_classify_opts *opts)
{
    static const shc_classify_opts defaults = SHC_CLASSIFY_OPTS_INIT;
    *out = NULL;
    opts = opts ? opts : &defaults;
    if (opts->version != SHC_CLASSIFY_OPTS_VERSION || !shc_context_name(opts->context))
        return SHC_E_USAGE;
    bool unwrap = !opts->no_unwrap;
    shc_diag diag; /* shc__parse_in clears it */
    shc_ast *ast = NULL;
    shc_arena_buf abuf; /* the AST dies below: its arena starts on the stack */
    int rc = shc__parse_in(&abuf, &ast, cmd, len, unwrap, NULL, &diag);
    if (!ast)
        return SHC_E_NOMEM;
    bool wrapped = ast->wrapper.present;
    const char *script = ast->script ? ast->script : "";
    size_t script_len = ast->script ? ast->script_len : 0;
    shc_verdict *v = NULL;
    if (rc < 0) {
        if (rc != SHC_E_NOMEM) {
            char reason[200];
            snprintf(reason, sizeof reason, "%s error: %s", shc_err_kind(rc), diag.text);
            v = shc__verdict_terminal(script, script_len, wrapped, reason, diag.span, rc);
        }
    } else {
        ctx c;
        c.ast = ast;
        c.rejected = c.has_cwd = c.cd_physical = c.shallow = false, c.kbase = NULL;
        c.nhomes = 0, c.cwd[0] = '\0';
        c.real_cwd = opts->cwd && opts->cwd[0] ? opts->cwd : NULL;
        c.context = opts->context;
        shc_rule r;
        const char *argv[SHC_MAX_ARGS + 1];
        size_t argc = 0;
        if (decide(&c, &r, argv, &argc) < 0)
            v = shc__verdict_terminal(script, script_len, wrapped, c.reason, c.span, 0);
        else
            v = shc__verdict_accepted(script, script_len, wrapped, c.has_cwd ? c.cwd : NULL, &r,
                                      argv, argc, ast->root->u.list.items[0]->span);
    }
    shc_ast_free(ast);
    if (!v)
        return SHC_E_NOMEM;
    *out = v;
    return 0;
}
