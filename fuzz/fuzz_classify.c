/* libFuzzer target for the classifier.  Beyond "no crash, leak or UB", it checks the safety
 * property independently of the classifier's own code: read, search or list is only ever given
 * to a command that parses to one and-or list of static simple commands (no expansion or brace
 * in any word, a tilde only as `~` or `~/...`, a glob only in a `--name=VALUE` value, no
 * assignment, no background) whose redirections are only the allowed ones (to /dev/null, fd
 * duplication, or `<` a file).  And the verdict is well formed:
 * title and reason present, spans inside the script, a path for a read, a query for a search,
 * a JSON form.  Never executes anything. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shcard.h"
#include "classify/verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The two expansions a label may carry (issue 16), each in the only shape where it cannot turn
 * into another command or another option: a tilde prefix `~` or `~/...` (the home directory),
 * and a glob inside the value of a long option `--name=VALUE` (it can only expand to a file
 * named like that same option). */
static void check_word(const shc_word *w)
{
    if (!w->value || (w->flags & (SHC_WORD_EXPANSION | SHC_WORD_BRACE)))
        abort();
    if ((w->flags & SHC_WORD_TILDE) &&
        !(w->value[0] == '~' && (w->value[1] == '\0' || w->value[1] == '/')))
        abort();
    if (w->flags & SHC_WORD_GLOB) {
        const char *eq = strchr(w->value, '=');
        if (strncmp(w->value, "--", 2) != 0 || !eq ||
            strcspn(w->value, "*?[") < (size_t)(eq - w->value))
            abort();
    }
}

static bool digits_or_dash(const char *s)
{
    if (!strcmp(s, "-"))
        return true;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static void check_call(const shc_node *n, void *payload)
{
    (void)payload;
    const shc_call *c = &n->u.call;
    if (c->nassigns || c->nwords == 0)
        abort();
    for (size_t i = 0; i < c->nwords; i++)
        check_word(&c->words[i]);
    for (size_t i = 0; i < c->nredirs; i++) {
        const shc_redir *r = &c->redirs[i];
        check_word(&r->target);
        switch (r->op) {
        case SHC_REDIR_OUT:
        case SHC_REDIR_APPEND:
        case SHC_REDIR_CLOBBER:
        case SHC_REDIR_ALL:
        case SHC_REDIR_ALL_APPEND:
            if (strcmp(r->target.value, "/dev/null") != 0)
                abort();
            break;
        case SHC_REDIR_DUP_OUT:
        case SHC_REDIR_DUP_IN:
            if (!digits_or_dash(r->target.value))
                abort();
            break;
        case SHC_REDIR_IN: break;
        case SHC_REDIR_RDWR:
        case SHC_REDIR_HERESTRING: abort();
        }
    }
}

static void check_accepted(const uint8_t *data, size_t size, bool unwrap, const shc_verdict *v)
{
    shc_ast *ast = NULL;
    shc_diag d;
    if (shc_parse(&ast, (const char *)data, size, unwrap, NULL, &d) != 0)
        abort(); /* a label for something that does not parse */
    const shc_node *root = ast->root;
    if (root->kind != SHC_NODE_LIST || root->u.list.n != 1 || root->u.list.seps[0] == SHC_SEP_AMP)
        abort();
    shc_ast_each_call(root, check_call, NULL);
    if (v->wrapped != ast->wrapper.present)
        abort();
    shc_ast_free(ast);
    if (!v->argv || v->argc == 0 || !v->argv[0] || v->argv[v->argc])
        abort();
    if (v->kind == SHC_KIND_READ && !v->path)
        abort();
    if (v->kind == SHC_KIND_SEARCH && !v->query)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int unwrap = 0; unwrap < 2; unwrap++) {
        shc_verdict *v = NULL;
        if (shc_classify(&v, (const char *)data, size, unwrap != 0) != 0)
            continue; /* out of memory is the only failure */
        if (!v->title || !v->reason || !v->script)
            abort();
        size_t n = strlen(v->script);
        if (v->reason_span.start > v->reason_span.end || v->reason_span.end > n)
            abort();
        if (v->kind != SHC_KIND_TERMINAL)
            check_accepted(data, size, unwrap != 0, v);
        json_t *j = shc_verdict_json_n(v, (const char *)data, size);
        if (!j)
            abort();
        /* the library's jansson-free writer prints what `shcard explain --json` prints */
        char *want = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
        size_t got_n = 0;
        char *got = shc_verdict_to_json(v, (const char *)data, size, &got_n);
        if (!want || !got || got_n != strlen(want) || memcmp(got, want, got_n) != 0)
            abort();
        free(want);
        shc_free(got);
        json_decref(j);
        shc_verdict_free(v);
    }
    return 0;
}
