/* find: predicates are allowlisted (not actions blocklisted).  GNU find's grammar is
 *   find [-H|-L|-P]... [starting-point...] [expression]
 * where the expression starts at the first word that begins with '-' (and is longer than
 * "-") or is one of ( ) ! ,  Paths after the expression are an error in GNU find.
 * `-exec grep ... {} +` (or `\;`) on regular files is a search (exec.c); `-type f ... -print0`
 * alone may feed `xargs -0` (r->nul_files). */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>

typedef enum find_role {
    FIND_TEST,   /* a test or option: no effect outside find */
    FIND_QUERY,  /* a name test whose value is the query */
    FIND_OPER,   /* ( ) ! -not -a -o , */
    FIND_PRUNE,  /* -prune: the test before it names what is skipped, not what is searched */
    FIND_FORMAT, /* -printf FORMAT: field widths are bounded */
    FIND_OUTPUT, /* -print, -ls: names on stdout */
    FIND_PRINT0, /* -print0: NUL-terminated names (xargs -0) */
    FIND_EXEC,   /* -exec CMD ... {} + / ;: grep only (exec.c) */
} find_role;

typedef struct find_pred {
    const char *name;
    unsigned nargs;
    find_role role;
    const char *danger;
} find_pred;

static const find_pred preds[] = {
    {"-name", 1, FIND_QUERY, NULL},
    {"-iname", 1, FIND_QUERY, NULL},
    {"-path", 1, FIND_QUERY, NULL},
    {"-ipath", 1, FIND_QUERY, NULL},
    {"-wholename", 1, FIND_QUERY, NULL},
    {"-iwholename", 1, FIND_QUERY, NULL},
    {"-regex", 1, FIND_QUERY, NULL},
    {"-iregex", 1, FIND_QUERY, NULL},
    {"-lname", 1, FIND_TEST, NULL},
    {"-ilname", 1, FIND_TEST, NULL},
    {"-regextype", 1, FIND_TEST, NULL},
    {"-type", 1, FIND_TEST, NULL},
    {"-xtype", 1, FIND_TEST, NULL},
    {"-maxdepth", 1, FIND_TEST, NULL},
    {"-mindepth", 1, FIND_TEST, NULL},
    {"-mtime", 1, FIND_TEST, NULL},
    {"-mmin", 1, FIND_TEST, NULL},
    {"-atime", 1, FIND_TEST, NULL},
    {"-amin", 1, FIND_TEST, NULL},
    {"-ctime", 1, FIND_TEST, NULL},
    {"-cmin", 1, FIND_TEST, NULL},
    {"-newer", 1, FIND_TEST, NULL},
    {"-anewer", 1, FIND_TEST, NULL},
    {"-cnewer", 1, FIND_TEST, NULL},
    {"-used", 1, FIND_TEST, NULL},
    {"-size", 1, FIND_TEST, NULL},
    {"-perm", 1, FIND_TEST, NULL},
    {"-user", 1, FIND_TEST, NULL},
    {"-group", 1, FIND_TEST, NULL},
    {"-uid", 1, FIND_TEST, NULL},
    {"-gid", 1, FIND_TEST, NULL},
    {"-links", 1, FIND_TEST, NULL},
    {"-inum", 1, FIND_TEST, NULL},
    {"-samefile", 1, FIND_TEST, NULL},
    {"-fstype", 1, FIND_TEST, NULL},
    {"-empty", 0, FIND_TEST, NULL},
    {"-readable", 0, FIND_TEST, NULL},
    {"-writable", 0, FIND_TEST, NULL},
    {"-executable", 0, FIND_TEST, NULL},
    {"-nouser", 0, FIND_TEST, NULL},
    {"-nogroup", 0, FIND_TEST, NULL},
    {"-true", 0, FIND_TEST, NULL},
    {"-false", 0, FIND_TEST, NULL},
    {"-depth", 0, FIND_TEST, NULL},
    {"-mount", 0, FIND_TEST, NULL},
    {"-xdev", 0, FIND_TEST, NULL},
    {"-noleaf", 0, FIND_TEST, NULL},
    {"-follow", 0, FIND_TEST, "find: -follow follows symbolic links (one in the project may lead to /)"},
    {"-daystart", 0, FIND_TEST, NULL},
    {"-ignore_readdir_race", 0, FIND_TEST, NULL},
    {"-noignore_readdir_race", 0, FIND_TEST, NULL},
    {"-nowarn", 0, FIND_TEST, NULL},
    {"-warn", 0, FIND_TEST, NULL},
    {"-print", 0, FIND_OUTPUT, NULL},
    {"-print0", 0, FIND_PRINT0, NULL},
    {"-printf", 1, FIND_FORMAT, NULL},
    {"-ls", 0, FIND_OUTPUT, NULL},
    {"-quit", 0, FIND_TEST, NULL},
    {"-prune", 0, FIND_PRUNE, NULL},
    {"-not", 0, FIND_OPER, NULL},
    {"!", 0, FIND_OPER, NULL},
    {"-a", 0, FIND_OPER, NULL},
    {"-and", 0, FIND_OPER, NULL},
    {"-o", 0, FIND_OPER, NULL},
    {"-or", 0, FIND_OPER, NULL},
    {"(", 0, FIND_OPER, NULL},
    {")", 0, FIND_OPER, NULL},
    {",", 0, FIND_OPER, NULL},
    {"-exec", 0, FIND_EXEC, NULL},
    {"-execdir", 0, FIND_TEST, "find: -execdir runs a program"},
    {"-ok", 0, FIND_TEST, "find: -ok runs a program"},
    {"-okdir", 0, FIND_TEST, "find: -okdir runs a program"},
    {"-delete", 0, FIND_TEST, "find: -delete deletes files"},
    {"-fprint", 0, FIND_TEST, "find: -fprint writes a file"},
    {"-fprint0", 0, FIND_TEST, "find: -fprint0 writes a file"},
    {"-fprintf", 0, FIND_TEST, "find: -fprintf writes a file"},
    {"-fls", 0, FIND_TEST, "find: -fls writes a file"},
};

static const find_pred *find_lookup(const char *w)
{
    /* names are "-x..." or one character: compare the first two bytes before strcmp */
    for (size_t i = 0; i < sizeof preds / sizeof preds[0]; i++)
        if (preds[i].name[0] == w[0] && preds[i].name[1] == w[1] && !strcmp(preds[i].name, w))
            return &preds[i];
    return NULL;
}

static bool starts_expression(const char *w)
{
    return (w[0] == '-' && w[1] != '\0') || !strcmp(w, "(") || !strcmp(w, ")") || !strcmp(w, "!") ||
           !strcmp(w, ",");
}

/* -exec at argv[i]: the command runs from argv[i+1] to the terminator, `;` or a `+` right
 * after a word holding `{}` (GNU find's parser), returned in *end.  Only grep, only on regular
 * files (`-type f` before it in its and-chain at depth 0: a link or a FIFO named on grep's
 * command line is followed or read). */
static int find_exec(shc_rule *r, const char *const *argv, size_t argc, size_t i, unsigned depth,
                     bool chain_f, size_t *end)
{
    size_t j = i + 1;
    bool braces = false;
    for (; j < argc; j++) {
        if (j > i + 1 && !strcmp(argv[j], ";"))
            break;
        if (j > i + 1 && braces && !strcmp(argv[j], "+"))
            break;
        braces = strstr(argv[j], "{}") != NULL;
    }
    if (j >= argc || j == i + 1)
        return shc__reject(r, i, "find: -exec without its `;` or `{} +` (find reports an error)");
    if (depth > 0)
        return shc__reject(r, i, "find: -exec inside parentheses");
    if (!chain_f)
        return shc__reject(r, i, "find: -exec without -type f before it: a name may be a link "
                                 "to a device or a FIFO, which grep would read (add -type f)");
    *end = j;
    return shc__exec_grep(r, argv, i + 1, j, "{}");
}

void shc__policy_find(shc_rule *r, const char *const *argv, size_t argc)
{
    size_t i = 1;
    while (i < argc && (!strcmp(argv[i], "-H") || !strcmp(argv[i], "-L") || !strcmp(argv[i], "-P"))) {
        if (!strcmp(argv[i], "-L")) {
            shc__reject(r, i, "find: -L follows symbolic links (one in the project may lead to /)");
            return;
        }
        i++;
    }
    for (; i < argc && !starts_expression(argv[i]); i++) {
        if (argv[i][0] == '\0') {
            shc__reject(r, i, "find: empty starting point");
            return;
        }
        r->paths[r->npaths++] = argv[i];
    }
    /* query candidates: name tests not negated and not followed by -prune */
    const char *query[SHC_MAX_ARGS];
    size_t nq = 0;
    bool negated = false, last_was_query = false;
    /* the and-chain at depth 0: whether a `-type f` (not negated) came before in it; what
     * writes names on stdout; -exec grep */
    unsigned depth = 0, nprint0 = 0, nout = 0, ndirs = 0;
    size_t fmt_len = 0;
    long fmt_width = 0;
    bool chain_f = false, print0_f = false;
    const char *exec_query = NULL;
    for (; i < argc; i++) {
        const find_pred *p = find_lookup(argv[i]);
        if (!p) {
            if (!starts_expression(argv[i]))
                shc__reject(r, i, "find: paths must precede the expression ('%s')", argv[i]);
            else
                shc__reject(r, i, "find: %s is not an allowed predicate", argv[i]);
            return;
        }
        if (p->danger) {
            shc__reject(r, i, "%s", p->danger);
            return;
        }
        if (p->nargs && i + p->nargs >= argc) {
            shc__reject(r, i, "find: %s needs a value", p->name);
            return;
        }
        bool this_query = false;
        switch (p->role) {
        case FIND_QUERY:
            if (strstr(p->name, "regex") && shc__regex_bomb(argv[i + 1])) {
                shc__reject(r, i + 1, "find: %s", shc__regex_bomb(argv[i + 1]));
                return;
            }
            if (!negated) {
                query[nq++] = argv[i + 1];
                this_query = true;
            }
            break;
        case FIND_PRUNE:
            if (last_was_query)
                nq--;
            break;
        case FIND_FORMAT: {
            /* every -printf of the command is printed for every entry: their text, their
             * %-directives (%p is a whole path) and their widths are bounded together (the red
             * team's '%4096p' x 2000 wrote 8 MB per entry) */
            unsigned nd = 0;
            long w = shc__fmt_widths(argv[i + 1], &nd);
            nout++;
            ndirs += nd;
            fmt_len += strlen(argv[i + 1]);
            fmt_width = w > SHC_MAX_WIDTH ? w : fmt_width + w;
            if (fmt_width > SHC_MAX_WIDTH || fmt_len > SHC_MAX_ECHO ||
                ndirs > SHC_MAX_FORMAT_DIRECTIVES) {
                shc__reject(r, i + 1,
                            "find: -printf formats of over %d bytes, %d directives or %d columns "
                            "of width together (printed for every file)",
                            SHC_MAX_ECHO, SHC_MAX_FORMAT_DIRECTIVES, SHC_MAX_WIDTH);
                return;
            }
            break;
        }
        case FIND_OUTPUT: nout++; break;
        case FIND_PRINT0:
            nprint0++;
            print0_f = depth == 0 && chain_f && !negated;
            break;
        case FIND_EXEC: {
            size_t end = i;
            if (find_exec(r, argv, argc, i, depth, chain_f, &end) < 0)
                return;
            if (exec_query) {
                shc__reject(r, i, "find: several -exec");
                return;
            }
            exec_query = r->query;
            r->query = NULL;
            i = end; /* the terminator; the loop steps past it */
            negated = last_was_query = false;
            continue;
        }
        case FIND_OPER:
            if (!strcmp(p->name, "("))
                depth++;
            else if (!strcmp(p->name, ")") && depth > 0)
                depth--;
            else if (depth == 0 && (!strcmp(p->name, "-o") || !strcmp(p->name, "-or") ||
                                    !strcmp(p->name, ",")))
                chain_f = false;
            break;
        case FIND_TEST:
            if (depth == 0 && !negated && !strcmp(p->name, "-type") && !strcmp(argv[i + 1], "f"))
                chain_f = true;
            break;
        }
        negated = p->role == FIND_OPER && (!strcmp(p->name, "!") || !strcmp(p->name, "-not"));
        last_was_query = this_query;
        i += p->nargs;
    }
    r->nul_files = nprint0 == 1 && print0_f && nout == 0 && !exec_query;
    if (exec_query) {
        r->path = r->npaths ? r->paths[0] : NULL;
        r->query = exec_query;
        r->kind = SHC_KIND_SEARCH;
        snprintf(r->reason, sizeof r->reason, "find -exec grep: search");
        return;
    }
    r->path = r->npaths ? r->paths[0] : NULL;
    if (nq) {
        r->query = query[0];
        r->kind = SHC_KIND_SEARCH;
        return;
    }
    if (r->npaths > 1) {
        shc__reject(r, 0, "find: several directories have no single location");
        return;
    }
    r->kind = SHC_KIND_LIST;
}

const char *shc__find_pred(size_t i, unsigned *nargs, const char **danger)
{
    if (i >= sizeof preds / sizeof preds[0])
        return NULL;
    *nargs = preds[i].nargs;
    *danger = preds[i].danger;
    return preds[i].name;
}
