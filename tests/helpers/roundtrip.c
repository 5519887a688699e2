/* Round trip over lines of {"cmd": "..."} on stdin: every command that parses is printed back as
 * shell text, parsed again, and must give the same AST (spans aside).  Prints failures and
 * "N passed, N failed". */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/dump.h"
#include "shcard.h"

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int pass = 0, failed = 0;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        json_t *o = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, NULL);
        json_t *c = o ? json_object_get(o, "cmd") : NULL;
        if (!json_is_string(c)) {
            json_decref(o);
            continue;
        }
        shc_ast *a = NULL, *b = NULL;
        shc_diag d;
        if (shc_parse(&a, json_string_value(c), json_string_length(c), false, NULL, &d) != 0) {
            shc_ast_free(a);
            json_decref(o);
            continue;
        }
        char *text = shc_ast_print(a->root);
        char *s1 = shc_ast_sexpr(a->root, false), *s2 = NULL;
        if (text && shc_parse(&b, text, strlen(text), false, NULL, &d) == 0)
            s2 = shc_ast_sexpr(b->root, false);
        if (s1 && s2 && !strcmp(s1, s2)) {
            pass++;
        } else {
            failed++;
            printf("FAIL round trip: %s\n  printed: %s\n  first:  %s\n  second: %s\n",
                   json_string_value(c), text ? text : "(null)", s1 ? s1 : "", s2 ? s2 : d.text);
        }
        free(s1);
        free(s2);
        free(text);
        shc_ast_free(a);
        shc_ast_free(b);
        json_decref(o);
    }
    free(line);
    printf("%d passed, %d failed\n", pass, failed);
    return failed ? 1 : 0;
}
