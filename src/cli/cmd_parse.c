/* shcard parse [--json] [--no-unwrap] CMD... | --batch
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
#include "shell/dump.h"
#include "shell/dump_write.h"
#include "shell/parse.h"
#include "shcard.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: shcard parse [--json] [--no-unwrap] CMD...\n"
               "       shcard parse --batch [--no-unwrap] < lines of {\"cmd\": \"...\"}\n");
}

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

int shc_cmd_parse(int argc, char **argv)
{
    bool json = false, batch = false, unwrap = true;
    int i = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--batch"))
            batch = true;
        else if (!strcmp(argv[i], "--no-unwrap"))
            unwrap = false;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "shcard parse: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            break;
        }
    }
    parse_opts o = {unwrap, json};
    return shc__run_commands("parse", batch, argc, argv, i, parse_one, &o, &shc__parse_batch,
                            &o.unwrap, usage);
}
