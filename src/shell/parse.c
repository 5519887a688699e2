/* src/shell/ owns the shell front end: the lexer glue and word facts (lex.h, build.c; the
 * re2c/bison sources are in grammar/, their output in gen/), the AST builders, first-error-wins
 * diagnostics (diag.c), renderings of the AST (dump.c) and the entry point shc_parse() with
 * the `bash -lc` wrapper.  The AST types are public (include/shcard.h).  May use: base/.
 *
 * This file: shc_parse: limits, the input checks, the bash -lc wrapper, and the bison parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "shell/parse.h"
#include "shell/diag.h"
#include "shell/lex.h"
#include "shcard.h"
#include "shc_parser.h"

/* Rejects what bash would accept but we never classify: NUL (it would end a C string early)
 * and control characters other than tab and newline (CR and friends confuse both people and
 * tokenizers).  Returns 0 or the error. */
static int check_bytes(const char *s, size_t len, shc_diag *diag)
{
    /* eight bytes at a time: skip words with no byte below 0x20 and no 0x7f (the usual case) */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        uint64_t low = (x - ones * 0x20) & ~x & highs;           /* some byte < 0x20 */
        uint64_t y = x ^ (ones * 0x7f);
        uint64_t del = (y - ones) & ~y & highs;                  /* some byte == 0x7f */
        if (low | del)
            break;
    }
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0)
            return shc__diag_set(diag, SHC_E_SYNTAX, (uint32_t)i, (uint32_t)i + 1,
                                 "NUL byte at offset %zu is not allowed in a command", i);
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
            return shc__diag_set(diag, SHC_E_UNSUPPORTED, (uint32_t)i, (uint32_t)i + 1,
                                 "control character 0x%02x at offset %zu is outside the supported "
                                 "subset",
                                 c, i);
    }
    return 0;
}

/* Parses text (an arena copy with a NUL at text[len]) into *root. */
static int parse_text(shc_arena *arena, const char *text, size_t len, const shc_limits *lim,
                      shc_node **root, shc_diag *diag)
{
    *root = NULL;
    int rc = check_bytes(text, len, diag);
    if (rc)
        return rc;
    shc_lexer lx;
    shc__lexer_init(&lx, arena, text, len, lim, diag);
    int r = shc_yyparse(&lx);
    shc__lexer_fini(&lx);
    if (r != 0 || !lx.root) {
        if (diag->code == 0) /* bison ran out of stack: a limit */
            shc__diag_set(diag, r == 2 ? SHC_E_LIMIT : SHC_E_SYNTAX, 0, (uint32_t)len,
                          r == 2 ? "the command nests deeper than the parser allows"
                                 : "syntax error");
        return diag->code;
    }
    *root = lx.root;
    return 0;
}

/* A word the wrapper accepts: static, and nothing the shell would expand. */
static bool plain(const shc_word *w)
{
    return w->value && !(w->flags & (SHC_WORD_EXPANSION | SHC_WORD_GLOB | SHC_WORD_BRACE |
                                     SHC_WORD_TILDE)) &&
           strlen(w->value) == w->len;
}

/* The shell named by a wrapper's first word: `bash` or `sh`, bare or in a standard directory.
 * Any other directory may hold a program the repository planted (./bash,
 * node_modules/.bin/sh), and zsh is not unwrapped: its expansions (=cmd, glob qualifiers, its
 * own brace and tilde rules) are not modelled. */
static const char *wrapper_shell(const char *w)
{
    static const char *const dirs[] = {"", "/bin/", "/usr/bin/", "/usr/local/bin/"};
    static const char *const shells[] = {"bash", "sh"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        size_t n = strlen(dirs[d]);
        if (strncmp(w, dirs[d], n))
            continue;
        for (size_t k = 0; k < sizeof shells / sizeof shells[0]; k++)
            if (!strcmp(w + n, shells[k]))
                return shells[k];
    }
    return NULL;
}

/* Exactly `[/bin/|/usr/bin/|/usr/local/bin/]bash|sh -c|-lc SCRIPT`: one command, three plain
 * words, nothing else. */
static const shc_call *wrapper_call(const shc_node *root)
{
    if (root->u.list.n != 1 || root->u.list.seps[0] != SHC_SEP_NONE)
        return NULL;
    const shc_node *p = root->u.list.items[0];
    if (p->kind != SHC_NODE_PIPE || p->u.pipe.n != 1 || p->u.pipe.negated)
        return NULL;
    const shc_call *c = &p->u.pipe.cmds[0]->u.call;
    if (c->nassigns || c->nredirs || c->nwords != 3)
        return NULL;
    for (size_t i = 0; i < 3; i++)
        if (!plain(&c->words[i]))
            return NULL;
    if (!wrapper_shell(c->words[0].value))
        return NULL;
    if (strcmp(c->words[1].value, "-c") && strcmp(c->words[1].value, "-lc"))
        return NULL;
    return c;
}

/* ------------------------------------------------------------------ sh -c */

/* `sh` is dash on Debian (and busybox ash, or bash in POSIX mode, elsewhere): within the subset
 * they all read words and operators as bash does, except for these bash-only forms, which
 * dash reads differently ($'..' is `$` then a quoted string; `cmd &>f` is `cmd &` then `>f`) or
 * rejects.  A script of `sh -c` that uses one is unsupported rather than guessed. */
static int posix_part(const shc_part *p, shc_diag *diag)
{
    if (p->kind == SHC_PART_ANSIC)
        return shc__diag_set(diag, SHC_E_UNSUPPORTED, p->span.start, p->span.end,
                             "$'...' is bash-only; sh (dash) reads it as `$` and a quoted string");
    if (p->kind == SHC_PART_LOCALE)
        return shc__diag_set(diag, SHC_E_UNSUPPORTED, p->span.start, p->span.end,
                             "$\"...\" is bash-only; sh (dash) reads it as `$` and a quoted string");
    for (size_t i = 0; i < p->nparts; i++)
        if (posix_part(&p->parts[i], diag))
            return diag->code;
    return 0;
}

static int posix_word(const shc_word *w, shc_diag *diag)
{
    for (size_t i = 0; i < w->nparts; i++)
        if (posix_part(&w->parts[i], diag))
            return diag->code;
    return 0;
}

static int posix_node(const shc_node *n, shc_diag *diag)
{
    switch (n->kind) {
    case SHC_NODE_LIST:
        for (size_t i = 0; i < n->u.list.n; i++)
            if (posix_node(n->u.list.items[i], diag))
                return diag->code;
        return 0;
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        if (posix_node(n->u.binary.left, diag))
            return diag->code;
        return posix_node(n->u.binary.right, diag);
    case SHC_NODE_PIPE:
        for (size_t i = 0; i < n->u.pipe.n; i++) {
            if (i + 1 < n->u.pipe.n && n->u.pipe.stderr_too[i])
                return shc__diag_set(diag, SHC_E_UNSUPPORTED, n->u.pipe.cmds[i]->span.end,
                                     n->u.pipe.cmds[i + 1]->span.start,
                                     "|& is bash-only; sh (dash) rejects it");
            if (posix_node(n->u.pipe.cmds[i], diag))
                return diag->code;
        }
        return 0;
    case SHC_NODE_CALL: break;
    }
    const shc_call *c = &n->u.call;
    for (size_t i = 0; i < c->nassigns; i++)
        if (posix_word(&c->assigns[i].value, diag))
            return diag->code;
    for (size_t i = 0; i < c->nwords; i++)
        if (posix_word(&c->words[i], diag))
            return diag->code;
    for (size_t i = 0; i < c->nredirs; i++) {
        const shc_redir *r = &c->redirs[i];
        if (r->op == SHC_REDIR_ALL || r->op == SHC_REDIR_ALL_APPEND)
            return shc__diag_set(diag, SHC_E_UNSUPPORTED, r->span.start, r->span.end,
                                 "&> is bash-only; sh (dash) reads `cmd &>f` as `cmd &` then `>f`");
        if (r->op == SHC_REDIR_HERESTRING)
            return shc__diag_set(diag, SHC_E_UNSUPPORTED, r->span.start, r->span.end,
                                 "<<< is bash-only; sh (dash) rejects it");
        if (posix_word(&r->target, diag))
            return diag->code;
    }
    return 0;
}

int shc_parse(shc_ast **out, const char *src, size_t len, bool unwrap, const shc_limits *limits,
              shc_diag *diag)
{
    return shc__parse_in(NULL, out, src, len, unwrap, limits, diag);
}

int shc__parse_in(shc_arena_buf *buf, shc_ast **out, const char *src, size_t len, bool unwrap,
                  const shc_limits *limits, shc_diag *diag)
{
    static const shc_limits defaults = SHC_LIMITS_DEFAULT;
    const shc_limits *lim = limits ? limits : &defaults;
    shc_diag scratch;
    if (!diag)
        diag = &scratch;
    memset(diag, 0, sizeof *diag);
    *out = NULL;

    /* one allocation for the common case: the AST header lives in its own arena */
    shc_arena *arena = shc_arena_in(buf, lim->max_arena);
    shc_ast *ast = arena ? shc_arena_alloc(arena, sizeof *ast) : NULL;
    if (!ast) {
        shc_arena_free(arena);
        return shc__diag_set(diag, SHC_E_NOMEM, 0, 0, "out of memory");
    }
    ast->arena = arena;
    *out = ast;
    if (len > lim->max_input) {
        ast->script = "";
        return shc__diag_set(diag, SHC_E_LIMIT, 0, 0,
                             "the command is %zu bytes; the limit is %zu", len, lim->max_input);
    }
    char *text = shc_arena_strndup(ast->arena, src, len);
    if (!text) {
        ast->script = "";
        return shc__diag_set(diag, SHC_E_LIMIT, 0, 0,
                             "the command does not fit the arena limit of %zu bytes",
                             lim->max_arena);
    }
    ast->script = text;
    ast->script_len = len;

    shc_node *root;
    int rc = parse_text(ast->arena, text, len, lim, &root, diag);
    if (rc)
        return rc;
    const shc_call *w = unwrap ? wrapper_call(root) : NULL;
    if (!w) {
        ast->root = root;
        return 0;
    }
    ast->wrapper.present = true;
    ast->wrapper.path = w->words[0].value;
    ast->wrapper.shell = wrapper_shell(w->words[0].value);
    ast->wrapper.flag = w->words[1].value;
    ast->script = w->words[2].value;
    ast->script_len = w->words[2].len;
    rc = parse_text(ast->arena, ast->script, ast->script_len, lim, &ast->root, diag);
    if (rc == 0 && !strcmp(ast->wrapper.shell, "sh") && posix_node(ast->root, diag)) {
        ast->root = NULL;
        return diag->code;
    }
    return rc;
}

void shc_ast_free(shc_ast *ast)
{
    if (ast)
        shc_arena_free(ast->arena); /* frees ast too */
}

static void each_call(const shc_node *n, shc_call_fn fn, void *payload)
{
    switch (n->kind) {
    case SHC_NODE_LIST:
        for (size_t i = 0; i < n->u.list.n; i++)
            each_call(n->u.list.items[i], fn, payload);
        break;
    case SHC_NODE_AND:
    case SHC_NODE_OR:
        each_call(n->u.binary.left, fn, payload);
        each_call(n->u.binary.right, fn, payload);
        break;
    case SHC_NODE_PIPE:
        for (size_t i = 0; i < n->u.pipe.n; i++)
            each_call(n->u.pipe.cmds[i], fn, payload);
        break;
    case SHC_NODE_CALL: fn(n, payload); break;
    }
}

void shc_ast_each_call(const shc_node *root, shc_call_fn fn, void *payload)
{
    if (root)
        each_call(root, fn, payload);
}
