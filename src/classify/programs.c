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

/* For a command outside the parser's subset (a subshell, a loop: `cat x; (true)`), a lexical
 * scan: the first word of each command (after `;`, `&`, `|`, `(`, `)`, `{`, `}`, a newline,
 * `$(`, a backquote, a reserved word), assignments and redirection targets skipped, quotes and
 * backslashes removed; with find or xargs every word of the command.  A word named this way is
 * still accepted only where it resolves on the trusted PATH (confine/object.c). */
static bool reserved(const char *w, size_t n, bool *keep)
{
    static const char *const cont[] = {"do", "then", "else", "elif", "!", "time", "{", "}"};
    static const char *const stop[] = {"for", "case", "select", "in", "esac", "function"};
    for (size_t i = 0; i < sizeof cont / sizeof cont[0]; i++)
        if (strlen(cont[i]) == n && !memcmp(w, cont[i], n)) {
            *keep = true;
            return true;
        }
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (strlen(stop[i]) == n && !memcmp(w, stop[i], n)) {
            *keep = false;
            return true;
        }
    return !strncmp(w, "done", n) && n == 4 ? (*keep = false, true)
           : (n == 2 && !memcmp(w, "fi", 2)) ? (*keep = false, true)
           : (n == 5 && (!memcmp(w, "while", 5) || !memcmp(w, "until", 5))) ? (*keep = true, true)
           : (n == 2 && !memcmp(w, "if", 2)) ? (*keep = true, true)
                                              : false;
}

static void scan(acc *a, const char *s, size_t n)
{
    char w[256];
    bool cmdpos = true, all = false, redir = false;
    size_t i = 0;
    while (i < n && !a->nomem) {
        char c = s[i];
        if (c == ' ' || c == '\t') {
            i++;
            continue;
        }
        if (strchr(";&|(){}\n`", c) || (c == '$' && i + 1 < n && s[i + 1] == '(')) {
            i += c == '$' ? 2 : 1;
            cmdpos = true;
            all = redir = false;
            continue;
        }
        if (c == '<' || c == '>') {
            while (i < n && strchr("<>&|", s[i]))
                i++;
            redir = true;
            continue;
        }
        size_t wl = 0;
        bool quoted = false, assign = false;
        while (i < n && !strchr(" \t;&|(){}\n`<>", s[i])) {
            char q = s[i];
            if (q == '\'' || q == '"') {
                quoted = true;
                for (i++; i < n && s[i] != q; i++)
                    if (wl < sizeof w - 1)
                        w[wl++] = s[i];
                i++;
            } else if (q == '\\' && i + 1 < n) {
                if (wl < sizeof w - 1)
                    w[wl++] = s[i + 1];
                i += 2;
            } else {
                if (q == '=' && !quoted && wl)
                    assign = true;
                if (wl < sizeof w - 1)
                    w[wl++] = q;
                i++;
            }
        }
        w[wl] = 0;
        if (redir) { /* the redirection's target */
            redir = false;
            continue;
        }
        if (!wl)
            continue;
        bool keep = false;
        if (cmdpos && !quoted && reserved(w, wl, &keep)) {
            cmdpos = keep;
            continue;
        }
        if (cmdpos && assign)
            continue;
        if (cmdpos || (all && w[0] != '-')) {
            add(a, w, wl);
            const char *b = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
            if (cmdpos)
                all = !strcmp(b, "find") || !strcmp(b, "xargs");
        }
        cmdpos = false;
    }
}

char *shc__programs(const char *cmd, size_t cmdlen, size_t *len, bool *login)
{
    *len = 0;
    *login = false;
    shc_ast *ast = NULL;
    shc_diag diag;
    memset(&diag, 0, sizeof diag);
    acc a = {NULL, 0, 0, false};
    if (shc_parse(&ast, cmd, cmdlen, true, NULL, &diag) != 0 || !ast || !ast->root) {
        if (ast && ast->wrapper.present && ast->script) {
            if (ast->wrapper.path)
                add(&a, ast->wrapper.path, strlen(ast->wrapper.path));
            *login = ast->wrapper.flag && strchr(ast->wrapper.flag, 'l');
            scan(&a, ast->script, ast->script_len);
        } else {
            scan(&a, cmd, cmdlen);
        }
        shc_ast_free(ast);
        if (a.nomem || !a.buf) {
            free(a.buf);
            return a.nomem ? NULL : calloc(1, 1);
        }
        *len = a.len;
        return a.buf;
    }
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

char *shc__login_script(const char *cmd, size_t cmdlen)
{
    shc_ast *ast = NULL;
    shc_diag diag;
    memset(&diag, 0, sizeof diag);
    shc_parse(&ast, cmd, cmdlen, true, NULL, &diag);
    char *out = NULL;
    if (ast && ast->wrapper.present && ast->wrapper.flag && strchr(ast->wrapper.flag, 'l') &&
        ast->wrapper.shell && !strcmp(ast->wrapper.shell, "bash") && ast->script &&
        !memchr(ast->script, 0, ast->script_len) && (out = malloc(ast->script_len + 1))) {
        memcpy(out, ast->script, ast->script_len);
        out[ast->script_len] = 0;
    }
    shc_ast_free(ast);
    return out;
}
