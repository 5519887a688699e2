/* shcard parse [OPTION]... CMD... | --batch (the options: the table below)
 *
 * Shows the AST of each command: a readable tree (or the diagnostic with a caret), or with
 * --json one object per command.  --batch reads lines of JSON objects with a "cmd" string and
 * writes one object per line, in order; a line that is not such an object gets an error object
 * and the batch goes on.  Exit status: 0 when everything parsed, 1 when something did not, 2 for
 * a usage error. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch.h"
#include "cli/cmd.h"
#include "cli/argv.h"
#include "shell/dump.h"
#include "shell/dump_write.h"
#include "shell/parse.h"
#include "shcard.h"

static void print_text(const char *cmd, size_t len, const shc_ast *ast, int rc,
                       const shc_diag *diag)
{
    printf("command: %.*s\n", (int)len, cmd);
    if (ast && ast->wrapper.present)
        printf("wrapper: %s %s (script: %s)\n", ast->wrapper.path, ast->wrapper.flag, ast->script);
    if (rc != 0) {
        char buf[2048];
        const char *src = ast ? ast->script : cmd;
        size_t n = ast ? ast->script_len : len;
        shc_diag_render(buf, sizeof buf, diag, src, n);
        fputs(buf, stdout);
        return;
    }
    char *tree = shc_ast_tree(ast->root);
    fputs(tree ? tree : "(out of memory)\n", stdout);
    free(tree);
}

typedef struct parse_opts {
    bool unwrap, json;
} parse_opts;

static int parse_one(const char *cmd, size_t len, void *payload)
{
    const parse_opts *opts = payload;
    bool unwrap = opts->unwrap, json = opts->json;
    shc_ast *ast = NULL;
    shc_diag diag;
    int rc = shc_parse(&ast, cmd, len, unwrap, NULL, &diag);
    if (json) {
        json_t *o = shc_parse_json(cmd, len, ast, rc, &diag);
        shc__print_json_line(o);
        json_decref(o);
    } else {
        print_text(cmd, len, ast, rc, &diag);
    }
    shc_ast_free(ast);
    return rc == 0 ? 0 : 1;
}

static json_t *batch_tree(const char *cmd, size_t len, const void *payload, int *status)
{
    bool unwrap = *(const bool *)payload;
    shc_ast *ast = NULL;
    shc_diag diag;
    int rc = shc_parse(&ast, cmd, len, unwrap, NULL, &diag);
    json_t *o = shc_parse_json(cmd, len, ast, rc, &diag);
    shc_ast_free(ast);
    if (rc != 0)
        *status = 1;
    return o;
}

static void batch_write(shc_strbuf *out, const char *cmd, size_t len, const void *payload,
                        int *status)
{
    bool unwrap = *(const bool *)payload;
    shc_ast *ast = NULL;
    shc_diag diag;
    shc_arena_buf abuf;
    int rc = shc__parse_in(&abuf, &ast, cmd, len, unwrap, NULL, &diag);
    shc_parse_write(out, cmd, len, ast, rc, &diag, SHC_JW_ASCII);
    shc_ast_free(ast);
    if (rc != 0)
        *status = 1;
}

const shc_batch_ops shc__parse_batch = {batch_write, batch_tree};

enum { O_JSON, O_BATCH, O_NO_UNWRAP };

static const shc_cli_opt parse_opts_table[] = {
    {"json", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "one JSON object per command, on one line", O_JSON},
    {"batch", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "read lines of {\"cmd\": \"...\"} on stdin, answer one JSON line each", O_BATCH},
    {"no-unwrap", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "parse bash -lc 'SCRIPT' as written, not its script", O_NO_UNWRAP},
};

typedef struct parse_ctx {
    parse_opts o;
    bool batch;
} parse_ctx;

static int set_opt(void *ctx, const shc_cli_opt *opt, const shc_cli_val *v, char *err, size_t n)
{
    (void)v;
    (void)err;
    (void)n;
    parse_ctx *c = ctx;
    switch (opt->id) {
    case O_JSON: c->o.json = true; return 0;
    case O_BATCH: c->batch = true; return 0;
    case O_NO_UNWRAP: c->o.unwrap = false; return 0;
    default: return -1;
    }
}

static const shc_cli_cmd shc__parse_cli = {
    "parse",
    "[OPTION]... CMD...\n--batch [OPTION]... < lines of {\"cmd\": \"...\"}",
    "Show the syntax tree of each command line (quote it: 'ls -la'), or the diagnostic\n"
    "with a caret under where it failed.",
    parse_opts_table,
    sizeof parse_opts_table / sizeof parse_opts_table[0],
    set_opt,
    "each command is one operand: quote it, as in shcard parse 'ls -la'; after -- every "
    "word is a command",
    "Exit status: 0 when everything parsed, 1 when something did not, 2 for a usage error.\n",
    false,
};

static void usage(FILE *f)
{
    shc__cli_help(&shc__parse_cli, f);
}

int shc_cmd_parse(int argc, char **argv)
{
    parse_ctx c = {{true, false}, false};
    int first = 0;
    int rc = shc__cli_parse(&shc__parse_cli, argc, argv, &c, &first, NULL);
    if (rc)
        return rc == SHC_CLI_DONE ? 0 : rc;
    return shc__run_commands("parse", c.batch, argc, argv, first, parse_one, &c.o,
                             &shc__parse_batch, &c.o.unwrap, usage);
}
