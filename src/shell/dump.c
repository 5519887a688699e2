/* AST renderings: a deterministic S-expression (golden tests, `parse` text output), shell text
 * (round trip), and JSON (`parse --json`). */
#include "shell/dump.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "shell/names.h"

/* ------------------------------------------------------------------ S-expression */

static void cstr(shc_strbuf *b, const char *s, size_t n)
{
    shc_strbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            shc_strbuf_printf(b, "\\%c", c);
        else if (c == '\n')
            shc_strbuf_puts(b, "\\n");
        else if (c == '\t')
            shc_strbuf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            shc_strbuf_printf(b, "\\x%02x", c);
        else
            shc_strbuf_putc(b, (char)c);
    }
    shc_strbuf_putc(b, '"');
}

static void span(shc_strbuf *b, shc_span s, bool spans)
{
    if (spans)
        shc_strbuf_printf(b, "@%u-%u", s.start, s.end);
}

static void sx_parts(shc_strbuf *b, const shc_part *p, size_t n, bool spans)
{
    for (size_t i = 0; i < n; i++) {
        shc_strbuf_printf(b, " (%s", shc_part_kind_name(p[i].kind));
        span(b, p[i].span, spans);
        if (p[i].kind == SHC_PART_DBL || p[i].kind == SHC_PART_LOCALE) {
            sx_parts(b, p[i].parts, p[i].nparts, spans);
        } else {
            shc_strbuf_putc(b, ' ');
            cstr(b, p[i].value, p[i].len);
        }
        shc_strbuf_putc(b, ')');
    }
}

static void sx_word(shc_strbuf *b, const shc_word *w, bool spans)
{
    shc_strbuf_puts(b, "(word");
    span(b, w->span, spans);
    for (size_t i = 0; i < SHC_WORD_FLAG_COUNT; i++)
        if (w->flags & shc_word_flag_names[i].bit)
            shc_strbuf_printf(b, " :%s", shc_word_flag_names[i].name);
    sx_parts(b, w->parts, w->nparts, spans);
    shc_strbuf_putc(b, ')');
}

static void sx_node(shc_strbuf *b, const shc_node *n, bool spans)
{
    switch (n->kind) {
    case SHC_NODE_LIST:
        shc_strbuf_puts(b, "(list");
        span(b, n->span, spans);
        for (size_t i = 0; i < n->u.list.n; i++) {
            shc_strbuf_putc(b, ' ');
            sx_node(b, n->u.list.items[i], spans);
            static const char *sep[] = {"", " ;", " &", " nl"};
            shc_strbuf_puts(b, sep[n->u.list.seps[i]]);
        }
        shc_strbuf_putc(b, ')');
        break;
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        shc_strbuf_puts(b, n->kind == SHC_NODE_AND ? "(and" : "(or");
        span(b, n->span, spans);
        shc_strbuf_putc(b, ' ');
        sx_node(b, n->u.binary.left, spans);
        shc_strbuf_putc(b, ' ');
        sx_node(b, n->u.binary.right, spans);
        shc_strbuf_putc(b, ')');
        break;
    case SHC_NODE_PIPE:
        shc_strbuf_puts(b, "(pipe");
        span(b, n->span, spans);
        if (n->u.pipe.negated)
            shc_strbuf_puts(b, " !");
        for (size_t i = 0; i < n->u.pipe.n; i++) {
            if (i)
                shc_strbuf_puts(b, n->u.pipe.stderr_too[i - 1] ? " |&" : " |");
            shc_strbuf_putc(b, ' ');
            sx_node(b, n->u.pipe.cmds[i], spans);
        }
        shc_strbuf_putc(b, ')');
        break;
    case SHC_NODE_CALL: {
        const shc_call *c = &n->u.call;
        shc_strbuf_puts(b, "(call");
        span(b, n->span, spans);
        for (size_t i = 0; i < c->nassigns; i++) {
            shc_strbuf_printf(b, " (assign %s%s ", c->assigns[i].name,
                              c->assigns[i].append ? "+=" : "=");
            sx_word(b, &c->assigns[i].value, spans);
            shc_strbuf_putc(b, ')');
        }
        for (size_t i = 0; i < c->nwords; i++) {
            shc_strbuf_putc(b, ' ');
            sx_word(b, &c->words[i], spans);
        }
        for (size_t i = 0; i < c->nredirs; i++) {
            const shc_redir *r = &c->redirs[i];
            shc_strbuf_puts(b, " (redir");
            span(b, r->span, spans);
            if (r->fd >= 0)
                shc_strbuf_printf(b, " %d", r->fd);
            shc_strbuf_printf(b, " %s ", shc_redir_op_name(r->op));
            sx_word(b, &r->target, spans);
            shc_strbuf_putc(b, ')');
        }
        shc_strbuf_putc(b, ')');
        break;
    }
    }
}

char *shc_ast_sexpr(const shc_node *root, bool spans)
{
    shc_strbuf b = {0};
    if (root)
        sx_node(&b, root, spans);
    else
        shc_strbuf_puts(&b, "nil");
    return shc_strbuf_take(&b);
}

/* ------------------------------------------------------------------ indented tree */

static void indent(shc_strbuf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        shc_strbuf_puts(b, "  ");
}

static void tree_word(shc_strbuf *b, const shc_word *w)
{
    if (w->value)
        cstr(b, w->value, w->len);
    else
        shc_strbuf_puts(b, "<expansion>");
    for (size_t i = 0; i < SHC_WORD_FLAG_COUNT; i++)
        if (w->flags & shc_word_flag_names[i].bit)
            shc_strbuf_printf(b, " [%s]", shc_word_flag_names[i].name);
}

static void tree_node(shc_strbuf *b, const shc_node *n, int depth)
{
    indent(b, depth);
    switch (n->kind) {
    case SHC_NODE_LIST:
        shc_strbuf_printf(b, "list %u-%u\n", n->span.start, n->span.end);
        for (size_t i = 0; i < n->u.list.n; i++) {
            tree_node(b, n->u.list.items[i], depth + 1);
            static const char *sep[] = {NULL, ";", "&", "newline"};
            if (sep[n->u.list.seps[i]]) {
                indent(b, depth + 1);
                shc_strbuf_printf(b, "sep %s\n", sep[n->u.list.seps[i]]);
            }
        }
        break;
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        shc_strbuf_printf(b, "%s %u-%u\n", n->kind == SHC_NODE_AND ? "and (&&)" : "or (||)",
                          n->span.start, n->span.end);
        tree_node(b, n->u.binary.left, depth + 1);
        tree_node(b, n->u.binary.right, depth + 1);
        break;
    case SHC_NODE_PIPE:
        shc_strbuf_printf(b, "pipeline%s %u-%u\n", n->u.pipe.negated ? " (negated)" : "",
                          n->span.start, n->span.end);
        for (size_t i = 0; i < n->u.pipe.n; i++) {
            if (i) {
                indent(b, depth + 1);
                shc_strbuf_puts(b, n->u.pipe.stderr_too[i - 1] ? "pipe |&\n" : "pipe |\n");
            }
            tree_node(b, n->u.pipe.cmds[i], depth + 1);
        }
        break;
    case SHC_NODE_CALL: {
        const shc_call *c = &n->u.call;
        shc_strbuf_printf(b, "command %u-%u\n", n->span.start, n->span.end);
        for (size_t i = 0; i < c->nassigns; i++) {
            indent(b, depth + 1);
            shc_strbuf_printf(b, "assign %s%s ", c->assigns[i].name,
                              c->assigns[i].append ? "+=" : "=");
            tree_word(b, &c->assigns[i].value);
            shc_strbuf_putc(b, '\n');
        }
        for (size_t i = 0; i < c->nwords; i++) {
            indent(b, depth + 1);
            shc_strbuf_printf(b, "%s ", i == 0 ? "name" : "arg ");
            tree_word(b, &c->words[i]);
            shc_strbuf_putc(b, '\n');
        }
        for (size_t i = 0; i < c->nredirs; i++) {
            const shc_redir *r = &c->redirs[i];
            indent(b, depth + 1);
            shc_strbuf_puts(b, "redirect ");
            if (r->fd >= 0)
                shc_strbuf_printf(b, "%d", r->fd);
            shc_strbuf_printf(b, "%s ", shc_redir_op_name(r->op));
            tree_word(b, &r->target);
            shc_strbuf_putc(b, '\n');
        }
        break;
    }
    }
}

char *shc_ast_tree(const shc_node *root)
{
    shc_strbuf b = {0};
    if (root)
        tree_node(&b, root, 0);
    return shc_strbuf_take(&b);
}

/* ------------------------------------------------------------------ shell text */

static void sh_parts(shc_strbuf *b, const shc_part *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (p[i].kind) {
        case SHC_PART_LIT:
        case SHC_PART_PARAM: shc_strbuf_put(b, p[i].value, p[i].len); break;
        case SHC_PART_ESC:
            shc_strbuf_putc(b, '\\');
            shc_strbuf_put(b, p[i].value, p[i].len);
            break;
        case SHC_PART_SGL:
            shc_strbuf_putc(b, '\'');
            shc_strbuf_put(b, p[i].value, p[i].len);
            shc_strbuf_putc(b, '\'');
            break;
        case SHC_PART_DBL:
        case SHC_PART_LOCALE:
            shc_strbuf_puts(b, p[i].kind == SHC_PART_DBL ? "\"" : "$\"");
            sh_parts(b, p[i].parts, p[i].nparts);
            shc_strbuf_putc(b, '"');
            break;
        case SHC_PART_ANSIC:
            shc_strbuf_puts(b, "$'");
            for (size_t k = 0; k < p[i].len; k++) {
                unsigned char c = (unsigned char)p[i].value[k];
                if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
                    shc_strbuf_putc(b, (char)c);
                else
                    shc_strbuf_printf(b, "\\x%02x", c);
            }
            shc_strbuf_putc(b, '\'');
            break;
        }
    }
}

static void sh_node(shc_strbuf *b, const shc_node *n)
{
    switch (n->kind) {
    case SHC_NODE_LIST:
        for (size_t i = 0; i < n->u.list.n; i++) {
            sh_node(b, n->u.list.items[i]);
            static const char *sep[] = {"", ";", " &", "\n"};
            shc_strbuf_puts(b, sep[n->u.list.seps[i]]);
            if (i + 1 < n->u.list.n && n->u.list.seps[i] != SHC_SEP_NEWLINE)
                shc_strbuf_putc(b, ' ');
        }
        break;
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        sh_node(b, n->u.binary.left);
        shc_strbuf_puts(b, n->kind == SHC_NODE_AND ? " && " : " || ");
        sh_node(b, n->u.binary.right);
        break;
    case SHC_NODE_PIPE:
        if (n->u.pipe.negated)
            shc_strbuf_puts(b, "! ");
        for (size_t i = 0; i < n->u.pipe.n; i++) {
            if (i)
                shc_strbuf_puts(b, n->u.pipe.stderr_too[i - 1] ? " |& " : " | ");
            sh_node(b, n->u.pipe.cmds[i]);
        }
        break;
    case SHC_NODE_CALL: {
        const shc_call *c = &n->u.call;
        bool first = true;
        for (size_t i = 0; i < c->nassigns; i++) {
            if (!first)
                shc_strbuf_putc(b, ' ');
            first = false;
            shc_strbuf_printf(b, "%s%s", c->assigns[i].name, c->assigns[i].append ? "+=" : "=");
            sh_parts(b, c->assigns[i].value.parts, c->assigns[i].value.nparts);
        }
        /* words and redirections in source order */
        size_t wi = 0, ri = 0;
        while (wi < c->nwords || ri < c->nredirs) {
            bool word = ri >= c->nredirs ||
                        (wi < c->nwords && c->words[wi].span.start < c->redirs[ri].span.start);
            if (!first)
                shc_strbuf_putc(b, ' ');
            first = false;
            if (word) {
                sh_parts(b, c->words[wi].parts, c->words[wi].nparts);
                wi++;
            } else {
                const shc_redir *r = &c->redirs[ri++];
                if (r->fd >= 0)
                    shc_strbuf_printf(b, "%d", r->fd);
                shc_strbuf_puts(b, shc_redir_op_name(r->op));
                sh_parts(b, r->target.parts, r->target.nparts);
            }
        }
        break;
    }
    }
}

char *shc_ast_print(const shc_node *root)
{
    shc_strbuf b = {0};
    if (root)
        sh_node(&b, root);
    return shc_strbuf_take(&b);
}

/* ------------------------------------------------------------------ JSON */

static json_t *js_span(json_t *o, shc_span s)
{
    json_object_set_new(o, "start", json_integer(s.start));
    json_object_set_new(o, "end", json_integer(s.end));
    return o;
}

static json_t *js_parts(const shc_part *p, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "type", json_string(shc_part_kind_name(p[i].kind)));
        if (p[i].kind == SHC_PART_DBL || p[i].kind == SHC_PART_LOCALE)
            json_object_set_new(o, "parts", js_parts(p[i].parts, p[i].nparts));
        else
            json_object_set_new(o, "value", shc_json_str(p[i].value, p[i].len));
        json_array_append_new(a, js_span(o, p[i].span));
    }
    return a;
}

static json_t *word_value(const shc_word *w)
{
    return w->value ? shc_json_str(w->value, w->len) : json_null();
}

json_t *shc_word_json(const shc_word *w)
{
    json_t *o = json_object();
    json_object_set_new(o, "value", word_value(w));
    json_t *f = json_array();
    for (size_t i = 0; i < SHC_WORD_FLAG_COUNT; i++)
        if (w->flags & shc_word_flag_names[i].bit)
            json_array_append_new(f, json_string(shc_word_flag_names[i].name));
    json_object_set_new(o, "flags", f);
    json_object_set_new(o, "parts", js_parts(w->parts, w->nparts));
    return js_span(o, w->span);
}

static json_t *js_redir(const shc_redir *r, bool full)
{
    json_t *o = json_object();
    json_object_set_new(o, "fd", json_integer(r->fd >= 0 ? r->fd : shc_redir_default_fd(r->op)));
    json_object_set_new(o, "op", json_string(shc_redir_op_name(r->op)));
    json_object_set_new(o, "target", full ? shc_word_json(&r->target) : word_value(&r->target));
    return js_span(o, r->span);
}

static json_t *js_assign(const shc_assign *a, bool full)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(a->name));
    json_object_set_new(o, "append", json_boolean(a->append));
    json_object_set_new(o, "value", full ? shc_word_json(&a->value) : word_value(&a->value));
    return js_span(o, a->span);
}

static json_t *js_node(const shc_node *n)
{
    json_t *o = json_object();
    switch (n->kind) {
    case SHC_NODE_LIST: {
        json_object_set_new(o, "type", json_string("list"));
        json_t *items = json_array();
        static const char *sep[] = {"", ";", "&", "\n"};
        for (size_t i = 0; i < n->u.list.n; i++) {
            json_t *it = json_object();
            json_object_set_new(it, "node", js_node(n->u.list.items[i]));
            json_object_set_new(it, "sep", n->u.list.seps[i] ? json_string(sep[n->u.list.seps[i]])
                                                              : json_null());
            json_array_append_new(items, it);
        }
        json_object_set_new(o, "items", items);
        break;
    }
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        json_object_set_new(o, "type", json_string(n->kind == SHC_NODE_AND ? "and" : "or"));
        json_object_set_new(o, "left", js_node(n->u.binary.left));
        json_object_set_new(o, "right", js_node(n->u.binary.right));
        break;
    case SHC_NODE_PIPE: {
        json_object_set_new(o, "type", json_string("pipeline"));
        json_object_set_new(o, "negated", json_boolean(n->u.pipe.negated));
        json_t *cmds = json_array(), *pipes = json_array();
        for (size_t i = 0; i < n->u.pipe.n; i++) {
            json_array_append_new(cmds, js_node(n->u.pipe.cmds[i]));
            if (i + 1 < n->u.pipe.n)
                json_array_append_new(pipes, json_string(n->u.pipe.stderr_too[i] ? "|&" : "|"));
        }
        json_object_set_new(o, "commands", cmds);
        json_object_set_new(o, "pipes", pipes);
        break;
    }
    case SHC_NODE_CALL: {
        const shc_call *c = &n->u.call;
        json_object_set_new(o, "type", json_string("call"));
        json_t *as = json_array(), *ws = json_array(), *rs = json_array();
        for (size_t i = 0; i < c->nassigns; i++)
            json_array_append_new(as, js_assign(&c->assigns[i], true));
        for (size_t i = 0; i < c->nwords; i++)
            json_array_append_new(ws, shc_word_json(&c->words[i]));
        for (size_t i = 0; i < c->nredirs; i++)
            json_array_append_new(rs, js_redir(&c->redirs[i], true));
        json_object_set_new(o, "assigns", as);
        json_object_set_new(o, "words", ws);
        json_object_set_new(o, "redirects", rs);
        break;
    }
    }
    return js_span(o, n->span);
}

static void add_command(const shc_node *n, void *payload)
{
    json_t *arr = payload;
    const shc_call *c = &n->u.call;
    json_t *o = json_object(), *argv = json_array(), *as = json_array(), *rs = json_array();
    for (size_t i = 0; i < c->nwords; i++)
        json_array_append_new(argv, word_value(&c->words[i]));
    for (size_t i = 0; i < c->nassigns; i++)
        json_array_append_new(as, js_assign(&c->assigns[i], false));
    for (size_t i = 0; i < c->nredirs; i++)
        json_array_append_new(rs, js_redir(&c->redirs[i], false));
    json_object_set_new(o, "argv", argv);
    json_object_set_new(o, "assigns", as);
    json_object_set_new(o, "redirects", rs);
    json_array_append_new(arr, js_span(o, n->span));
}

json_t *shc_diag_json(const shc_diag *d)
{
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(shc_err_kind(d->code)));
    json_object_set_new(e, "message", shc_json_cstr(d->text));
    json_object_set_new(e, "start", json_integer(d->span.start));
    json_object_set_new(e, "end", json_integer(d->span.end));
    json_object_set_new(e, "incomplete", json_boolean(d->incomplete));
    return e;
}

json_t *shc_parse_json(const char *cmd, size_t len, const shc_ast *ast, int rc,
                       const shc_diag *diag)
{
    json_t *o = json_object();
    json_object_set_new(o, "cmd", shc_json_str(cmd, len));
    json_object_set_new(o, "ok", json_boolean(rc == 0));
    if (ast && ast->wrapper.present) {
        json_t *w = json_object();
        json_object_set_new(w, "shell", json_string(ast->wrapper.shell));
        json_object_set_new(w, "flag", json_string(ast->wrapper.flag));
        json_object_set_new(w, "path", shc_json_cstr(ast->wrapper.path));
        json_object_set_new(o, "wrapper", w);
        json_object_set_new(o, "script", shc_json_str(ast->script, ast->script_len));
    } else {
        json_object_set_new(o, "wrapper", json_null());
    }
    if (rc != 0) {
        json_object_set_new(o, "error", shc_diag_json(diag));
        return o;
    }
    json_t *cmds = json_array();
    shc_ast_each_call(ast->root, add_command, cmds);
    json_object_set_new(o, "commands", cmds);
    json_object_set_new(o, "ast", js_node(ast->root));
    return o;
}
