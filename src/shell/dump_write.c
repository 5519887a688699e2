#include "shell/dump_write.h"

#include <stdbool.h>

#include "shell/names.h"

typedef struct jw {
    shc_strbuf *b;
    unsigned flags;
    bool first; /* for shc_ast_each_call: no comma before the first command */
} jw;

static void span_end(shc_strbuf *b, shc_span s)
{
    shc_jw_span_end(b, s.start, s.end);
}

static void parts(jw *w, const shc_part *p, size_t n)
{
    shc_strbuf *b = w->b;
    shc_strbuf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        shc_jw_pick(b, i, ",{\"type\":\"", "{\"type\":\"");
        shc_strbuf_puts(b, shc_part_kind_name(p[i].kind));
        if (p[i].kind == SHC_PART_DBL || p[i].kind == SHC_PART_LOCALE) {
            shc_jw_raw(b, "\",\"parts\":");
            parts(w, p[i].parts, p[i].nparts);
        } else {
            shc_jw_raw(b, "\",\"value\":");
            shc_jw_str(b, p[i].value, p[i].len, w->flags);
        }
        span_end(b, p[i].span);
    }
    shc_strbuf_putc(b, ']');
}

static void word_value(jw *w, const shc_word *wd)
{
    if (wd->value)
        shc_jw_str(w->b, wd->value, wd->len, w->flags);
    else
        shc_jw_raw(w->b, "null");
}

static void word(jw *w, const shc_word *wd)
{
    shc_strbuf *b = w->b;
    shc_jw_raw(b, "{\"value\":");
    size_t at = b->n;
    word_value(w, wd);
    size_t end = b->n;
    shc_jw_raw(b, ",\"flags\":[");
    bool first = true;
    for (size_t i = 0; i < SHC_WORD_FLAG_COUNT; i++)
        if (wd->flags & shc_word_flag_names[i].bit) {
            shc_jw_pick(b, first, "\"", ",\"");
            shc_strbuf_puts(b, shc_word_flag_names[i].name);
            shc_strbuf_putc(b, '"');
            first = false;
        }
    shc_jw_raw(b, "],\"parts\":");
    const shc_part *p = wd->parts;
    if (wd->nparts == 1 && p->kind == SHC_PART_LIT && p->value == wd->value && !b->err) {
        /* the usual word, one literal part holding the word's own value: escaped once */
        shc_jw_raw(b, "[{\"type\":\"lit\",\"value\":");
        shc_strbuf_repeat(b, at, end);
        span_end(b, p->span);
        shc_strbuf_putc(b, ']');
    } else {
        parts(w, wd->parts, wd->nparts);
    }
    span_end(b, wd->span);
}

static void redir(jw *w, const shc_redir *r, bool full)
{
    shc_strbuf *b = w->b;
    shc_jw_raw(b, "{\"fd\":");
    shc_jw_int(b, r->fd >= 0 ? r->fd : shc_redir_default_fd(r->op));
    shc_jw_raw(b, ",\"op\":\"");
    shc_strbuf_puts(b, shc_redir_op_name(r->op));
    shc_jw_raw(b, "\",\"target\":");
    if (full)
        word(w, &r->target);
    else
        word_value(w, &r->target);
    span_end(b, r->span);
}

static void assign(jw *w, const shc_assign *a, bool full)
{
    shc_strbuf *b = w->b;
    shc_jw_raw(b, "{\"name\":");
    shc_jw_cstr(b, a->name, w->flags);
    shc_jw_pick(b, a->append, ",\"append\":true,\"value\":", ",\"append\":false,\"value\":");
    if (full)
        word(w, &a->value);
    else
        word_value(w, &a->value);
    span_end(b, a->span);
}

static void node(jw *w, const shc_node *n)
{
    shc_strbuf *b = w->b;
    switch (n->kind) {
    case SHC_NODE_LIST: {
        static const char *const sep[] = {"null", "\";\"", "\"&\"", "\"\\n\""};
        shc_jw_raw(b, "{\"type\":\"list\",\"items\":[");
        for (size_t i = 0; i < n->u.list.n; i++) {
            shc_jw_pick(b, i, ",{\"node\":", "{\"node\":");
            node(w, n->u.list.items[i]);
            shc_jw_raw(b, ",\"sep\":");
            shc_strbuf_puts(b, sep[n->u.list.seps[i]]);
            shc_strbuf_putc(b, '}');
        }
        shc_strbuf_putc(b, ']');
        break;
    }
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        shc_jw_raw(b, "{\"type\":\"");
        shc_strbuf_puts(b, n->kind == SHC_NODE_AND ? "and" : "or");
        shc_jw_raw(b, "\",\"left\":");
        node(w, n->u.binary.left);
        shc_jw_raw(b, ",\"right\":");
        node(w, n->u.binary.right);
        break;
    case SHC_NODE_PIPE: {
        const shc_pipeline *p = &n->u.pipe;
        shc_jw_pick(b, p->negated, "{\"type\":\"pipeline\",\"negated\":true,\"commands\":[",
                    "{\"type\":\"pipeline\",\"negated\":false,\"commands\":[");
        for (size_t i = 0; i < p->n; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            node(w, p->cmds[i]);
        }
        shc_jw_raw(b, "],\"pipes\":[");
        for (size_t i = 0; i + 1 < p->n; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            if (p->stderr_too[i])
                shc_jw_raw(b, "\"|&\"");
            else
                shc_jw_raw(b, "\"|\"");
        }
        shc_strbuf_putc(b, ']');
        break;
    }
    case SHC_NODE_CALL: {
        const shc_call *c = &n->u.call;
        shc_jw_raw(b, "{\"type\":\"call\",\"assigns\":[");
        for (size_t i = 0; i < c->nassigns; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            assign(w, &c->assigns[i], true);
        }
        shc_jw_raw(b, "],\"words\":[");
        for (size_t i = 0; i < c->nwords; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            word(w, &c->words[i]);
        }
        shc_jw_raw(b, "],\"redirects\":[");
        for (size_t i = 0; i < c->nredirs; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            redir(w, &c->redirs[i], true);
        }
        shc_strbuf_putc(b, ']');
        break;
    }
    }
    span_end(b, n->span);
}

static void command(const shc_node *n, void *payload)
{
    jw *w = payload;
    shc_strbuf *b = w->b;
    const shc_call *c = &n->u.call;
    shc_jw_pick(b, w->first, "{\"argv\":[", ",{\"argv\":[");
    w->first = false;
    for (size_t i = 0; i < c->nwords; i++) {
        if (i)
            shc_strbuf_putc(b, ',');
        word_value(w, &c->words[i]);
    }
    shc_jw_raw(b, "],\"assigns\":[");
    for (size_t i = 0; i < c->nassigns; i++) {
        if (i)
            shc_strbuf_putc(b, ',');
        assign(w, &c->assigns[i], false);
    }
    shc_jw_raw(b, "],\"redirects\":[");
    for (size_t i = 0; i < c->nredirs; i++) {
        if (i)
            shc_strbuf_putc(b, ',');
        redir(w, &c->redirs[i], false);
    }
    shc_strbuf_putc(b, ']');
    span_end(b, n->span);
}

void shc_parse_write(shc_strbuf *b,
                     const char *cmd,
                     size_t len,
                     const shc_ast *ast,
                     int rc,
                     const shc_diag *diag,
                     unsigned flags)
{
    jw w = {b, flags, true};
    shc_jw_raw(b, "{\"cmd\":");
    shc_jw_str(b, cmd, len, flags);
    shc_jw_pick(b, rc == 0, ",\"ok\":true,\"wrapper\":", ",\"ok\":false,\"wrapper\":");
    if (ast && ast->wrapper.present) {
        shc_jw_raw(b, "{\"shell\":");
        shc_jw_cstr(b, ast->wrapper.shell, flags);
        shc_jw_raw(b, ",\"flag\":");
        shc_jw_cstr(b, ast->wrapper.flag, flags);
        shc_jw_raw(b, ",\"path\":");
        shc_jw_cstr(b, ast->wrapper.path, flags);
        shc_jw_raw(b, "},\"script\":");
        shc_jw_str(b, ast->script, ast->script_len, flags);
    } else {
        shc_jw_raw(b, "null");
    }
    if (rc != 0) {
        shc_jw_raw(b, ",\"error\":{\"kind\":\"");
        shc_strbuf_puts(b, shc_err_kind(diag->code));
        shc_jw_raw(b, "\",\"message\":");
        shc_jw_cstr(b, diag->text, flags);
        shc_jw_raw(b, ",\"start\":");
        shc_jw_int(b, diag->span.start);
        shc_jw_raw(b, ",\"end\":");
        shc_jw_int(b, diag->span.end);
        shc_jw_pick(b, diag->incomplete, ",\"incomplete\":true}}", ",\"incomplete\":false}}");
        return;
    }
    shc_jw_raw(b, ",\"commands\":[");
    shc_ast_each_call(ast->root, command, &w);
    shc_jw_raw(b, "],\"ast\":");
    node(&w, ast->root);
    shc_strbuf_putc(b, '}');
}
