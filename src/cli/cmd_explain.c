/* shcard explain [OPTION]... CMD... | --batch (the options: the table below)
 *
 * Prints the card each command gets: kind, title and location; -v adds the reason, the parse
 * and a caret under the construct that decided; --json prints one object per command (see
 * verdict.h); --batch reads lines of JSON objects with a "cmd" string and writes one object per
 * line, in order (a line that is not such an object gets an "error" object; the batch goes on).
 * Exit status: 0 for every verdict (terminal is an answer), 1 when a batch line was not a
 * request, 2 for a usage error. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch.h"
#include "cli/cmd.h"
#include "cli/argv.h"
#include "shell/dump.h"
#include "shcard.h"
#include "classify/verdict.h"
#include "classify/verdict_write.h"

typedef struct explain_opts {
    bool verbose, json;
    shc_classify_opts copts; /* no_unwrap, cwd */
} explain_opts;

/* The line of script that holds span.start, with a caret line under the span. */
static void print_caret(const char *script, shc_span span)
{
    size_t n = strlen(script);
    size_t s = span.start <= n ? span.start : n;
    size_t e = span.end <= n ? span.end : n;
    size_t ls = s, le = s;
    while (ls > 0 && script[ls - 1] != '\n')
        ls--;
    while (le < n && script[le] != '\n')
        le++;
    if (e > le)
        e = le;
    printf("  %.*s\n  ", (int)(le - ls), script + ls);
    for (size_t i = ls; i < s; i++)
        putchar(script[i] == '\t' ? '\t' : ' ');
    putchar('^');
    for (size_t i = s + 1; i < e; i++)
        putchar('~');
    putchar('\n');
}

static void print_text(const shc_verdict *v, const char *cmd, size_t len, const explain_opts *o)
{
    printf("%s: %s\n", shc_kind_name(v->kind), v->title);
    if (v->path)
        printf("  path: %s\n", v->path);
    if (v->query)
        printf("  query: %s\n", v->query);
    if (v->line > 0)
        printf("  line: %ld\n", v->line);
    for (size_t i = 0; i < v->nlocations && v->nlocations > 1; i++)
        printf("  location: %s\n", v->locations[i].path);
    if (!o->verbose)
        return;
    printf("  reason: %s\n", v->reason);
    if (v->wrapped)
        printf("  wrapper: stripped; the script is: %s\n", v->script);
    if (v->argv) {
        printf("  argv:");
        for (size_t i = 0; i < v->argc; i++)
            printf(" [%s]", v->argv[i]);
        putchar('\n');
    }
    shc_ast *ast = NULL;
    shc_diag diag;
    if (shc_parse(&ast, cmd, len, !o->copts.no_unwrap, NULL, &diag) == 0) {
        char *sx = shc_ast_sexpr(ast->root, false);
        printf("  parse: %s\n", sx ? sx : "(out of memory)");
        free(sx);
    } else {
        printf("  parse: %s error: %s\n", shc_err_kind(diag.code), diag.text);
    }
    shc_ast_free(ast);
    print_caret(v->script, v->reason_span);
}

static int explain_one(const char *cmd, size_t len, void *payload)
{
    const explain_opts *o = payload;
    shc_verdict *v = NULL;
    if (shc_classify_ex(&v, cmd, len, &o->copts) < 0) {
        fprintf(stderr, "shcard explain: out of memory\n");
        return 1;
    }
    if (o->json) {
        json_t *j = shc_verdict_json_n(v, cmd, len);
        shc__print_json_line(j);
        json_decref(j);
    } else {
        print_text(v, cmd, len, o);
    }
    shc_verdict_free(v);
    return 0;
}

static json_t *batch_tree(const char *cmd, size_t len, const void *payload, int *status)
{
    shc_verdict *v = NULL;
    if (shc_classify_ex(&v, cmd, len, payload) < 0) {
        *status = 1;
        json_t *e =
            json_pack("{s:{s:s,s:s}}", "error", "kind", "nomem", "message", "out of memory");
        return e;
    }
    json_t *j = shc_verdict_json_n(v, cmd, len);
    shc_verdict_free(v);
    if (!j)
        *status = 1;
    return j;
}

static void batch_write(shc_strbuf *out, const char *cmd, size_t len, const void *payload,
                        int *status)
{
    shc_verdict *v = NULL;
    if (shc_classify_ex(&v, cmd, len, payload) < 0) {
        *status = 1;
        shc_strbuf_puts(out, "{\"error\":{\"kind\":\"nomem\",\"message\":\"out of memory\"}}");
        return;
    }
    shc_verdict_write(out, v, cmd, len, SHC_JW_ASCII);
    shc_verdict_free(v);
}

const shc_batch_ops shc__explain_batch = {batch_write, batch_tree};

enum { O_VERBOSE, O_JSON, O_BATCH, O_NO_UNWRAP, O_CWD, O_CONTEXT };

static const shc_cli_opt explain_opts_table[] = {
    {"verbose", 'v', SHC_ARG_NONE, NULL, 0, 0, NULL,
     "also the reason, the unwrapped script, the argv, the parse\nand a caret under what decided", O_VERBOSE},
    {"json", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "one JSON object per command, on one line", O_JSON},
    {"batch", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "read lines of {\"cmd\": \"...\"} on stdin, answer one JSON line each", O_BATCH},
    {"no-unwrap", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "judge bash -lc 'SCRIPT' as written, not by its script", O_NO_UNWRAP},
    {"cwd", 0, SHC_ARG_STR, "DIR", 0, 0, "none: no file is stat()ed",
     "judge relative paths from DIR and stat() the files the command\nwould read: a FIFO, device or socket (also through a symlink)\nis terminal", O_CWD},
    {"context", 0, SHC_ARG_CHOICE, "any|bridge", 0, 0, "any",
     "where the command will run: any (unknown) or bridge (shcard's\nexecutor: stdin /dev/null, a PTY, pagers set to cat)", O_CONTEXT},
};

typedef struct explain_ctx {
    explain_opts o;
    bool batch;
    char *cwd; /* owned: the real path of --cwd */
} explain_ctx;

static int set_opt(void *ctx, const shc_cli_opt *opt, const shc_cli_val *v, char *err, size_t n)
{
    explain_ctx *c = ctx;
    switch (opt->id) {
    case O_VERBOSE: c->o.verbose = true; return 0;
    case O_JSON: c->o.json = true; return 0;
    case O_BATCH: c->batch = true; return 0;
    case O_NO_UNWRAP: c->o.copts.no_unwrap = true; return 0;
    case O_CONTEXT:
        c->o.copts.context = v->choice == 0 ? SHC_CONTEXT_ANY : SHC_CONTEXT_BRIDGE;
        return 0;
    case O_CWD: {
        char *real = realpath(v->str, NULL);
        if (!real) {
            snprintf(err, n, "--cwd: %s: %s", v->str, strerror(errno));
            return -1;
        }
        free(c->cwd);
        c->cwd = real;
        c->o.copts.cwd = real;
        return 0;
    }
    default: return -1;
    }
}

static const shc_cli_cmd shc__explain_cli = {
    "explain",
    "[OPTION]... CMD...\n--batch [OPTION]... < lines of {\"cmd\": \"...\"}",
    "Show the card each command gets: read, search, list or terminal, with its title,\n"
    "path, query and line.  Each CMD is one command line (quote it: 'ls -la').",
    explain_opts_table,
    sizeof explain_opts_table / sizeof explain_opts_table[0],
    set_opt,
    "each command is one operand: quote it, as in shcard explain 'ls -la'; after -- every "
    "word is a command",
    "Exit status: 0 for every verdict (terminal is an answer), 1 when a --batch line was\n"
    "not a request, 2 for a usage error.\n",
    false,
};

static void usage(FILE *f)
{
    shc__cli_help(&shc__explain_cli, f);
}

int shc_cmd_explain(int argc, char **argv)
{
    explain_ctx c = {{false, false, SHC_CLASSIFY_OPTS_INIT}, false, NULL};
    int first = 0;
    int rc = shc__cli_parse(&shc__explain_cli, argc, argv, &c, &first, NULL);
    if (rc) {
        free(c.cwd);
        return rc == SHC_CLI_DONE ? 0 : rc;
    }
    rc = shc__run_commands("explain", c.batch, argc, argv, first, explain_one, &c.o,
                           &shc__explain_batch, &c.o.copts, usage);
    free(c.cwd);
    return rc;
}
