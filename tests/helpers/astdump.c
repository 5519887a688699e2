/* Prints the AST of a file's contents (or the diagnostic) as an S-expression with spans:
 * the golden-file format of tests/golden/.  Usage: astdump FILE [--unwrap] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/dump.h"
#include "shcard.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    char buf[70000];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n && buf[n - 1] == '\n')
        n--; /* golden files end with a newline that is not part of the command */
    bool unwrap = argc > 2 && !strcmp(argv[2], "--unwrap");
    shc_ast *ast = NULL;
    shc_diag d;
    int rc = shc_parse(&ast, buf, n, unwrap, NULL, &d);
    if (ast && ast->wrapper.present)
        printf("wrapper %s %s\n", ast->wrapper.path, ast->wrapper.flag);
    if (rc == 0) {
        char *s = shc_ast_sexpr(ast->root, true);
        printf("%s\n", s);
        free(s);
    } else {
        char out[4096];
        shc_diag_render(out, sizeof out, &d, ast ? ast->script : buf, ast ? ast->script_len : n);
        fputs(out, stdout);
    }
    shc_ast_free(ast);
    return 0;
}
