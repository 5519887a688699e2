/* AST builders for the grammar actions, word facts, and the parse's error reporting. */
#include "shell/build.h"

#include <string.h>

#include "base/arena.h"
#include "shell/diag.h"

/* ------------------------------------------------------------------ errors */

void shc__syntax_error(shc_lexer *lx, size_t start, size_t end, bool at_eof, const char *what)
{
    unsigned line, col;
    shc__line_col((const char *)lx->src, lx->len, start, &line, &col);
    if (at_eof && !strncmp(what, "end of file", 11))
        shc__diag_set(lx->diag, SHC_E_SYNTAX, (uint32_t)start, (uint32_t)end,
                      "unexpected end of input at %u:%u", line, col);
    else if (at_eof)
        shc__diag_set(lx->diag, SHC_E_SYNTAX, (uint32_t)start, (uint32_t)end, "%s at %u:%u", what,
                      line, col);
    else
        shc__diag_set(lx->diag, SHC_E_SYNTAX, (uint32_t)start, (uint32_t)end,
                      "unexpected `%s` at %u:%u", what, line, col);
    if (at_eof)
        lx->diag->incomplete = true;
}

void shc__parser_error(shc_lexer *lx, size_t start, size_t end, const char *msg)
{
    /* bison calls yyerror only for "memory exhausted" (its stack limit) */
    int code = strstr(msg, "exhausted") ? SHC_E_LIMIT : SHC_E_SYNTAX;
    shc__diag_set(lx->diag, code, (uint32_t)start, (uint32_t)end, "%s", msg);
}

void shc__unsupported(shc_lexer *lx, size_t start, size_t end, const char *what)
{
    unsigned line, col;
    shc__line_col((const char *)lx->src, lx->len, start, &line, &col);
    shc__diag_set(lx->diag, SHC_E_UNSUPPORTED, (uint32_t)start, (uint32_t)end,
                  "%s at %u:%u is outside the supported subset", what, line, col);
}

void shc__limit(shc_lexer *lx, size_t start, size_t end, const char *what)
{
    shc__diag_set(lx->diag, SHC_E_LIMIT, (uint32_t)start, (uint32_t)end, "%s", what);
}

void shc__nomem(shc_lexer *lx)
{
    size_t at = (size_t)(lx->cur - lx->src);
    if (shc_arena_hit_cap(lx->arena))
        shc__diag_set(lx->diag, SHC_E_LIMIT, (uint32_t)at, (uint32_t)at,
                      "the parse needs more than the arena limit of %zu bytes",
                      lx->limits->max_arena);
    else
        shc__diag_set(lx->diag, SHC_E_NOMEM, (uint32_t)at, (uint32_t)at, "out of memory");
}

void shc__lexer_init(shc_lexer *lx, shc_arena *arena, const char *src, size_t len,
                     const shc_limits *limits, shc_diag *diag)
{
    /* field by field: the inline scratch needs no zeroing */
    lx->mrk = lx->tok = NULL;
    lx->cmd_words = lx->last_tok = 0;
    lx->last_assign = false;
    lx->root = NULL;
    lx->andor_depth = 0;
    lx->nparts = 0;
    lx->src = (const unsigned char *)src;
    lx->len = len;
    lx->cur = lx->src;
    lx->arena = arena;
    lx->diag = diag;
    lx->limits = limits;
    lx->cmd_start = true;
    lx->parts = lx->inline_parts;
    lx->cap_parts = sizeof lx->inline_parts / sizeof lx->inline_parts[0];
}

void shc__lexer_fini(shc_lexer *lx)
{
    (void)lx; /* the scratch lives in the arena */
}

/* ------------------------------------------------------------------ word facts */

/* Appends the static value of parts to buf (which has room: values never exceed the source). */
static bool gather(const shc_part *parts, size_t n, char *buf, size_t *at)
{
    for (size_t i = 0; i < n; i++) {
        const shc_part *p = &parts[i];
        switch (p->kind) {
        case SHC_PART_PARAM:
        case SHC_PART_LOCALE: return false;
        case SHC_PART_DBL:
            if (!gather(p->parts, p->nparts, buf, at))
                return false;
            break;
        case SHC_PART_LIT:
        case SHC_PART_ESC:
        case SHC_PART_SGL:
        case SHC_PART_ANSIC:
            memcpy(buf + *at, p->value, p->len);
            *at += p->len;
            break;
        }
    }
    return true;
}

/* A part whose value is not in the text: $name and ${...}, and $"..." (bash looks the string up
 * in a message catalog chosen by the locale and TEXTDOMAIN, and expands the translation). */
static bool has_param(const shc_part *parts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (parts[i].kind == SHC_PART_PARAM || parts[i].kind == SHC_PART_LOCALE)
            return true;
        if (parts[i].kind == SHC_PART_DBL && has_param(parts[i].parts, parts[i].nparts))
            return true;
    }
    return false;
}

/* Whether bash might brace-expand the unquoted text m[0..n) (quoted text was replaced by \1
 * bytes): a superset of bash's rule.  bash expands a word when a { is followed, at the same
 * nesting level, by a , or .. and then by a } (and a } before the first , or .. does not end
 * the expression: {a}b,c} expands).  Any unquoted { followed later by an unquoted , or .. and
 * later still by an unquoted } is flagged, without looking at nesting or at bash's exceptions
 * ({ followed by whitespace, {a..} with no end, a failed sequence). */
static bool brace_expansion(const char *m, size_t n)
{
    const char *open = memchr(m, '{', n);
    if (!open)
        return false;
    size_t i = (size_t)(open - m) + 1;
    for (; i < n; i++)
        if (m[i] == ',' || (m[i] == '.' && i + 1 < n && m[i + 1] == '.'))
            break;
    return i < n && memchr(m + i, '}', n - i) != NULL;
}

static bool name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* Flags of the unquoted text m[0..n) (quoted parts appear as \1 bytes), in one pass over a
 * class table; the rarer checks (braces, ~ in assignment-shaped words) run only when their
 * characters are there. */
enum { C_GLOB = 1, C_BRACE = 2, C_TILDE = 4 };
static const unsigned char char_class[256] = {
    ['*'] = C_GLOB, ['?'] = C_GLOB, ['['] = C_GLOB, ['{'] = C_BRACE, ['~'] = C_TILDE,
};

/* The flags of text that holds some of * ? [ { ~ (seen: their classes).  Not inlined: that
 * keeps text_flags, which runs on every word, a leaf without register spills. */
__attribute__((noinline)) static unsigned rare_flags(const char *m, size_t n, bool assign_value, unsigned seen)
{
    unsigned f = 0;
    if (assign_value) {
        if (seen & C_TILDE)
            for (size_t j = 0; j < n; j++)
                if (m[j] == '~' && (j == 0 || m[j - 1] == ':'))
                    f |= SHC_WORD_ASSIGN_TILDE;
        return f;
    }
    if (seen & C_GLOB)
        f |= SHC_WORD_GLOB;
    if ((seen & C_BRACE) && brace_expansion(m, n))
        f |= SHC_WORD_BRACE;
    if (!(seen & C_TILDE))
        return f;
    /* a leading ~; and ~ after an unquoted = or : anywhere (bash expands those in words shaped
     * like assignments, NAME=...; flagged in every word, a superset that needs no model of
     * bash's assignment test) */
    if (m[0] == '~')
        f |= SHC_WORD_TILDE;
    for (size_t j = 1; j < n; j++)
        if (m[j] == '~' && (m[j - 1] == '=' || m[j - 1] == ':'))
            f |= SHC_WORD_TILDE;
    return f;
}

static unsigned text_flags(const char *m, size_t n, bool assign_value)
{
    unsigned seen = 0;
    for (size_t j = 0; j < n; j++)
        seen |= char_class[(unsigned char)m[j]];
    return seen ? rare_flags(m, n, assign_value, seen) : 0;
}

int shc__word_finish(shc_lexer *lx, shc_word *w, bool assign_value)
{
    w->value = NULL;
    w->len = 0;
    /* the common case, one part: no copies */
    if (w->nparts == 1 && w->parts[0].kind != SHC_PART_DBL &&
        w->parts[0].kind != SHC_PART_LOCALE && w->parts[0].kind != SHC_PART_PARAM) {
        const shc_part *p = &w->parts[0];
        if (p->kind == SHC_PART_LIT)
            w->flags = text_flags(p->value, p->len, assign_value);
        else
            w->flags = SHC_WORD_QUOTED | (p->kind == SHC_PART_ESC ? SHC_WORD_ESCAPED : 0u);
        w->value = p->value;
        w->len = p->len;
        return 0;
    }
    unsigned f = 0;
    size_t srclen = (size_t)(w->span.end - w->span.start) + 1;
    char *mask = shc_arena_alloc_raw(lx->arena, srclen + 1);
    if (!mask) {
        shc__nomem(lx);
        return -1;
    }
    size_t mn = 0;
    for (size_t i = 0; i < w->nparts; i++) {
        const shc_part *p = &w->parts[i];
        if (p->kind == SHC_PART_LIT) {
            memcpy(mask + mn, p->value, p->len);
            mn += p->len;
            continue;
        }
        mask[mn++] = '\1';
        if (p->kind != SHC_PART_PARAM)
            f |= SHC_WORD_QUOTED;
        if (p->kind == SHC_PART_ESC)
            f |= SHC_WORD_ESCAPED;
    }
    if (has_param(w->parts, w->nparts))
        f |= SHC_WORD_EXPANSION;
    f |= text_flags(mask, mn, assign_value);
    w->flags = f;
    if (!(f & SHC_WORD_EXPANSION)) {
        char *v = mask; /* reuse: the value is never longer than the source */
        size_t n = 0;
        gather(w->parts, w->nparts, v, &n);
        v[n] = '\0';
        w->value = v;
        w->len = n;
    }
    return 0;
}

/* ------------------------------------------------------------------ nodes */

static shc_node *new_node(shc_lexer *lx, shc_node_kind kind, shc_span span)
{
    shc_node *n = shc_arena_alloc(lx->arena, sizeof *n);
    if (!n) {
        shc__nomem(lx);
        return NULL;
    }
    n->kind = kind;
    n->span = span;
    return n;
}

/* Grows an arena array of n elements of size sz to hold one more (capacity doubles at powers
 * of two). */
static void *grow(shc_lexer *lx, void *arr, size_t n, size_t sz)
{
    if (n && (n & (n - 1)) != 0)
        return arr;
    size_t cap = n ? n * 2 : 4;
    if (n && n < 4)
        return arr;
    void *p = shc_arena_alloc_raw(lx->arena, cap * sz);
    if (!p) {
        shc__nomem(lx);
        return NULL;
    }
    if (n)
        memcpy(p, arr, n * sz);
    return p;
}

static int list_append(shc_lexer *lx, shc_node *list, shc_node *item, shc_sep sep)
{
    shc_list *l = &list->u.list;
    shc_node **items = grow(lx, l->items, l->n, sizeof *items);
    shc_sep *seps = grow(lx, l->seps, l->n, sizeof *seps);
    if (!items || !seps)
        return -1;
    l->items = items;
    l->seps = seps;
    l->items[l->n] = item;
    l->seps[l->n] = sep;
    l->n++;
    return 0;
}

shc_node *shc__build_list(shc_lexer *lx, shc_node *list, shc_node *item, int sep, shc_span span)
{
    if (!list) {
        list = new_node(lx, SHC_NODE_LIST, span);
        if (!list)
            return NULL;
    }
    list->span = span;
    if (list->u.list.n && list->u.list.seps[list->u.list.n - 1] == SHC_SEP_NONE)
        list->u.list.seps[list->u.list.n - 1] = (shc_sep)sep;
    if (item && list_append(lx, list, item, SHC_SEP_NONE))
        return NULL;
    return list;
}

shc_node *shc__list_sep(shc_node *list, int sep, shc_span span)
{
    list->span = span;
    if (list->u.list.n)
        list->u.list.seps[list->u.list.n - 1] = (shc_sep)sep;
    return list;
}

shc_node *shc__list_concat(shc_lexer *lx, shc_node *a, shc_node *b, shc_span span)
{
    if (a->u.list.n && a->u.list.seps[a->u.list.n - 1] == SHC_SEP_NONE)
        a->u.list.seps[a->u.list.n - 1] = SHC_SEP_NEWLINE;
    for (size_t i = 0; i < b->u.list.n; i++)
        if (list_append(lx, a, b->u.list.items[i], b->u.list.seps[i]))
            return NULL;
    a->span = span;
    return a;
}

static size_t chain_len(const shc_node *n)
{
    size_t d = 0;
    while (n->kind == SHC_NODE_AND || n->kind == SHC_NODE_OR) {
        d++;
        n = n->u.binary.left;
    }
    return d;
}

shc_node *shc__build_binary(shc_lexer *lx, shc_node_kind kind, shc_node *l, shc_node *r,
                            shc_span op, shc_span span)
{
    if (chain_len(l) + 1 > lx->limits->max_depth) {
        shc__limit(lx, op.start, op.end, "more && and || in a row than the nesting limit");
        return NULL;
    }
    shc_node *n = new_node(lx, kind, span);
    if (!n)
        return NULL;
    n->u.binary.left = l;
    n->u.binary.right = r;
    n->u.binary.op = op;
    return n;
}

shc_node *shc__build_negate(shc_lexer *lx, shc_node *pipe, shc_span span)
{
    (void)lx;
    pipe->u.pipe.negated = !pipe->u.pipe.negated;
    pipe->span = span;
    return pipe;
}

shc_node *shc__build_pipe(shc_lexer *lx, shc_node *pipe, shc_node *cmd, int stderr_too,
                          shc_span span)
{
    if (!pipe) {
        pipe = new_node(lx, SHC_NODE_PIPE, span);
        if (!pipe)
            return NULL;
    } else if (pipe->u.pipe.n >= lx->limits->max_depth) {
        shc__limit(lx, cmd->span.start, cmd->span.end,
                   "more pipeline stages than the nesting limit");
        return NULL;
    }
    shc_pipeline *p = &pipe->u.pipe;
    if (p->n)
        p->stderr_too[p->n - 1] = stderr_too != 0;
    shc_node **cmds = grow(lx, p->cmds, p->n, sizeof *cmds);
    bool *st = grow(lx, p->stderr_too, p->n, sizeof *st);
    if (!cmds || !st)
        return NULL;
    p->cmds = cmds;
    p->stderr_too = st;
    p->cmds[p->n] = cmd;
    p->stderr_too[p->n] = false;
    p->n++;
    pipe->span = span;
    return pipe;
}

shc_elem *shc__elem_word(shc_lexer *lx, shc_elem *list, shc_word *w)
{
    (void)lx;
    shc_elem *e = &((shc_wordbox *)(void *)w)->elem; /* every lexed word comes in a box */
    e->word = w;
    e->redir = NULL;
    e->next = list; /* reversed; build_call puts them back in order */
    return e;
}

shc_elem *shc__elem_redir(shc_lexer *lx, shc_elem *list, shc_redir *r)
{
    shc_elem *e = shc_arena_alloc(lx->arena, sizeof *e);
    if (!e) {
        shc__nomem(lx);
        return NULL;
    }
    e->redir = r;
    e->next = list;
    return e;
}

shc_redir *shc__build_redir(shc_lexer *lx, int fd, int op, shc_word *target, shc_span span)
{
    shc_redir *r = shc_arena_alloc(lx->arena, sizeof *r);
    if (!r) {
        shc__nomem(lx);
        return NULL;
    }
    r->span = span;
    r->fd = fd;
    r->op = (shc_redir_op)op;
    r->target = *target;
    return r;
}

/* Splits NAME=value (or NAME+=value) off an assignment-shaped word. */
static int make_assign(shc_lexer *lx, const shc_word *w, shc_assign *a)
{
    const shc_part *first = &w->parts[0];
    const char *v = first->value;
    size_t nl = strcspn(v, "+=");
    a->span = w->span;
    a->append = v[nl] == '+';
    a->name = shc_arena_strndup(lx->arena, v, nl);
    if (!a->name) {
        shc__nomem(lx);
        return -1;
    }
    size_t skip = nl + (a->append ? 2 : 1); /* bytes of the first part before the value */
    size_t rest = first->len - skip;
    size_t n = w->nparts - 1 + (rest ? 1 : 0);
    shc_word *val = &a->value;
    val->span.start = first->span.start + (uint32_t)skip;
    val->span.end = w->span.end;
    if (n) {
        shc_part *parts = shc_arena_alloc(lx->arena, n * sizeof *parts);
        if (!parts) {
            shc__nomem(lx);
            return -1;
        }
        size_t k = 0;
        if (rest) {
            parts[k] = *first;
            parts[k].value = first->value + skip;
            parts[k].len = rest;
            parts[k].span.start = first->span.start + (uint32_t)skip;
            k++;
        }
        memcpy(parts + k, w->parts + 1, (w->nparts - 1) * sizeof *parts);
        val->parts = parts;
        val->nparts = n;
    }
    return shc__word_finish(lx, val, true);
}

char shc__assign_shape(const shc_word *w)
{
    if (w->nparts == 0 || w->parts[0].kind != SHC_PART_LIT || !name_start(w->parts[0].value[0]))
        return 0;
    const char *v = w->parts[0].value + 1;
    while (name_char(*v))
        v++;
    if (*v == '=' || *v == '[')
        return *v;
    return v[0] == '+' && v[1] == '=' ? '+' : 0;
}

/* The lexer decided it (only words in assignment position can be assignments). */
static bool is_assignment(const shc_word *w)
{
    char c = ((const shc_wordbox *)(const void *)w)->assign;
    return c == '=' || c == '+';
}

shc_node *shc__build_call(shc_lexer *lx, shc_elem *elems, shc_span span)
{
    /* put the elements back in source order and count them */
    shc_elem *rev = NULL;
    size_t nw = 0, nr = 0;
    while (elems) {
        shc_elem *next = elems->next;
        elems->next = rev;
        rev = elems;
        if (elems->word)
            nw++;
        else
            nr++;
        elems = next;
    }
    shc_node *n = new_node(lx, SHC_NODE_CALL, span);
    if (!n)
        return NULL;
    shc_call *c = &n->u.call;
    size_t na = 0; /* assignments: the words before the first non-assignment word */
    for (shc_elem *e = rev; e; e = e->next) {
        if (!e->word)
            continue;
        if (!is_assignment(e->word))
            break;
        na++;
    }
    c->assigns = na ? shc_arena_alloc(lx->arena, na * sizeof *c->assigns) : NULL;
    c->words = nw > na ? shc_arena_alloc_raw(lx->arena, (nw - na) * sizeof *c->words) : NULL;
    c->redirs = nr ? shc_arena_alloc_raw(lx->arena, nr * sizeof *c->redirs) : NULL;
    if ((na && !c->assigns) || (nw > na && !c->words) || (nr && !c->redirs)) {
        shc__nomem(lx);
        return NULL;
    }
    for (shc_elem *e = rev; e; e = e->next) {
        if (e->redir) {
            c->redirs[c->nredirs++] = *e->redir;
        } else if (c->nwords == 0 && is_assignment(e->word)) {
            if (make_assign(lx, e->word, &c->assigns[c->nassigns++]))
                return NULL;
        } else {
            c->words[c->nwords++] = *e->word;
        }
    }
    return n;
}

void shc__build_root(shc_lexer *lx, shc_node *root)
{
    lx->root = root;
}
