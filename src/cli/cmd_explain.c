/* shcard explain [-v] [--json] [--no-unwrap] [--cwd DIR] CMD... | --batch
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
#include "shell/dump.h"
#include "shcard.h"
#include "classify/verdict.h"
#include "classify/verdict_write.h"

typedef struct explain_opts {
    bool verbose, json;
    shc_classify_opts copts; /* no_unwrap, cwd */
} explain_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: shcard explain [-v] [--json] [--no-unwrap] [--cwd DIR] [--context any|bridge] CMD...\n"
               "       shcard explain --batch [--no-unwrap] [--cwd DIR] [--context C] < lines of {\"cmd\": \"...\"}\n"
               "  --context  where the command will run: any (unknown; the default) or bridge\n"
               "             (shcard's executor: stdin /dev/null, a PTY, pagers set to cat)\n"
               "  --cwd DIR  judge relative paths from DIR and stat() the files the command would\n"
               "             read: a FIFO, device or socket (also through a symlink) is terminal\n");
}

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

int shc_cmd_explain(int argc, char **argv)
{
    explain_opts o = {false, false, SHC_CLASSIFY_OPTS_INIT};
    char *cwd = NULL;
    bool batch = false;
    int i = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
            o.verbose = true;
        else if (!strcmp(argv[i], "--json"))
            o.json = true;
        else if (!strcmp(argv[i], "--batch"))
            batch = true;
        else if (!strcmp(argv[i], "--no-unwrap"))
            o.copts.no_unwrap = true;
        else if (!strcmp(argv[i], "--context") || !strncmp(argv[i], "--context=", 10)) {
            const char *v = argv[i][9] == '=' ? argv[i] + 10 : (i + 1 < argc ? argv[++i] : "");
            if (!strcmp(v, "any"))
                o.copts.context = SHC_CONTEXT_ANY;
            else if (!strcmp(v, "bridge"))
                o.copts.context = SHC_CONTEXT_BRIDGE;
            else {
                fprintf(stderr, "shcard explain: --context: '%s' is not any or bridge\n", v);
                return 2;
            }
        } else if (!strcmp(argv[i], "--cwd") || !strncmp(argv[i], "--cwd=", 6)) {
            const char *d = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            free(cwd);
            cwd = d ? realpath(d, NULL) : NULL;
            if (!cwd) {
                fprintf(stderr, "shcard explain: --cwd: %s: %s\n", d ? d : "(missing)",
                        d ? strerror(errno) : "a directory is required");
                return 2;
            }
            o.copts.cwd = cwd;
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "shcard explain: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            break;
        }
    }
    int rc = shc__run_commands("explain", batch, argc, argv, i, explain_one, &o, &shc__explain_batch,
                              &o.copts, usage);
    free(cwd);
    return rc;
}
