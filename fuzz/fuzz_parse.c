/* libFuzzer target for the front end.  Checks, beyond "no crash, leak or UB": spans stay
 * inside the text, and an accepted command prints back to shell text that parses to the same
 * AST.  Never executes anything. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shell/dump.h"
#include "shcard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_span(shc_span s, size_t len)
{
    if (s.start > s.end || s.end > len)
        abort();
}

static void check_call(const shc_node *n, void *payload)
{
    size_t len = *(size_t *)payload;
    check_span(n->span, len);
    for (size_t i = 0; i < n->u.call.nwords; i++) {
        const shc_word *w = &n->u.call.words[i];
        check_span(w->span, len);
        /* a static value exists exactly when there is no expansion */
        if ((w->value == NULL) != ((w->flags & SHC_WORD_EXPANSION) != 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int unwrap = 0; unwrap < 2; unwrap++) {
        shc_ast *ast = NULL;
        shc_diag d;
        int rc = shc_parse(&ast, (const char *)data, size, unwrap != 0, NULL, &d);
        if (rc != 0) {
            if (d.code == 0 || d.span.start > d.span.end)
                abort();
            char buf[512];
            if (ast)
                shc_diag_render(buf, sizeof buf, &d, ast->script, ast->script_len);
            shc_ast_free(ast);
            continue;
        }
        size_t len = ast->script_len;
        shc_ast_each_call(ast->root, check_call, &len);
        char *text = shc_ast_print(ast->root);
        char *s1 = shc_ast_sexpr(ast->root, false);
        shc_ast *again = NULL;
        if (text && shc_parse(&again, text, strlen(text), false, NULL, &d) == 0) {
            char *s2 = shc_ast_sexpr(again->root, false);
            if (!s1 || !s2 || strcmp(s1, s2) != 0)
                abort();
            free(s2);
        } else if (text && strlen(text) <= 65536 && d.code != SHC_E_LIMIT) {
            abort(); /* what we print must parse again */
        }
        json_t *j = shc_parse_json((const char *)data, size, ast, 0, &d);
        json_decref(j);
        shc_ast_free(again);
        free(s1);
        free(text);
        shc_ast_free(ast);
    }
    return 0;
}
