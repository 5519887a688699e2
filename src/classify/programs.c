/* The programs a command names (programs.h): a walk over the command's simple commands. */
#include "classify/programs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"

typedef struct acc {
    char *buf;
    size_t len, cap;
    bool nomem;
} acc;

static void add(acc *a, const char *word, size_t n)
{
    const char *slash = memchr(word, '/', n) ? strrchr(word, '/') : NULL;
    if (slash && (size_t)(slash - word) < n) {
        n -= (size_t)(slash + 1 - word);
        word = slash + 1;
    }
    if (!n || memchr(word, 0, n))
        return;
    for (size_t i = 0; i < a->len;) { /* once each */
        size_t l = strlen(a->buf + i);
        if (l == n && !memcmp(a->buf + i, word, n))
            return;
        i += l + 1;
    }
    if (a->len + n + 1 > a->cap) {
        size_t cap = (a->cap ? a->cap * 2 : 64) + n + 1;
        char *b = realloc(a->buf, cap);
        if (!b) {
            a->nomem = true;
            return;
        }
        a->buf = b;
        a->cap = cap;
    }
    memcpy(a->buf + a->len, word, n);
    a->buf[a->len + n] = 0;
    a->len += n + 1;
    if ((n == 5 && (!memcmp(word, "egrep", 5) || !memcmp(word, "fgrep", 5) ||
                    !memcmp(word, "rgrep", 5))))
        add(a, "grep", 4); /* Debian's egrep, fgrep and rgrep are scripts that exec grep */
}

static void on_call(const shc_node *call, void *payload)
{
    acc *a = payload;
    const shc_call *c = &call->u.call;
    if (!c->nwords || !c->words[0].value)
        return;
    const shc_word *w0 = &c->words[0];
    add(a, w0->value, w0->len);
    const char *b = strrchr(w0->value, '/') ? strrchr(w0->value, '/') + 1 : w0->value;
    if (strcmp(b, "find") && strcmp(b, "xargs"))
        return;
    for (size_t i = 1; i < c->nwords; i++)
        if (c->words[i].value && c->words[i].value[0] != '-')
            add(a, c->words[i].value, c->words[i].len);
}

char *shc__programs(const char *cmd, size_t cmdlen, size_t *len, bool *login)
{
    *len = 0;
    *login = false;
    shc_ast *ast = NULL;
    shc_diag diag;
    memset(&diag, 0, sizeof diag);
    if (shc_parse(&ast, cmd, cmdlen, true, NULL, &diag) != 0 || !ast || !ast->root) {
        shc_ast_free(ast);
        return NULL;
    }
    acc a = {NULL, 0, 0, false};
    if (ast->wrapper.present && ast->wrapper.path)
        add(&a, ast->wrapper.path, strlen(ast->wrapper.path));
    *login = ast->wrapper.present && ast->wrapper.flag && strchr(ast->wrapper.flag, 'l');
    shc_ast_each_call(ast->root, on_call, &a);
    shc_ast_free(ast);
    if (a.nomem || !a.buf) {
        free(a.buf);
        return a.nomem ? NULL : calloc(1, 1);
    }
    *len = a.len;
    return a.buf;
}
