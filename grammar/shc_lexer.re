/* shcard lexer (re2c 3.0).  Edit this file, then `make gen` and commit gen/.
 *
 * Bash's quoting rules for the subset: unquoted words with backslash escapes and \<newline>
 * continuations, '...', "..." (backslash escapes only $ ` " \ and newline), $'...' decoded as
 * bash 5.2 decodes it, $"..." (parsed like "...", never static: build.c flags it), $name /
 * ${...} parameter expansions, and # comments at the start of a word.  Substitutions,
 * here-documents and compound commands are recognised and reported as unsupported, naming the
 * construct and its span; so are the word forms bash decides by rules we do not model
 * (grammar/SUBSET.md: $[...], $ before \<newline>, \<newline> inside an operator, ${...} with
 * quotes or braces inside, \u above U+007F, a backslash at the very end).  The word oracle
 * (tests/word_oracle.py) checks every static word against bash itself.
 *
 * The input is an arena copy with a NUL at src[len]; shc_parse rejects embedded NULs (with their
 * offset) before lexing, so a NUL here always means the end.  All state is in shc_lexer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shell/build.h"
#include "shell/lex.h"
#include "shc_parser.h"
#include "base/arena.h"

/*!re2c
    re2c:api:style = free-form;
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "lx->cur";
    re2c:define:YYMARKER = "lx->mrk";
    re2c:yyfill:enable = 0;
    re2c:flags:tags = 0;

    end   = "\x00";
    name  = [A-Za-z_][A-Za-z0-9_]*;
    meta  = [ \t\n;&|()<>];
    special_param = [0-9@*#?$!-];
*/

/* ------------------------------------------------------------------ scratch part stack */

static shc_part *push_part(shc_lexer *lx, shc_part_kind kind, const unsigned char *s,
                           const unsigned char *e)
{
    if (lx->nparts == lx->cap_parts) {
        size_t cap = lx->cap_parts ? lx->cap_parts * 2 : 32;
        shc_part *p = shc_arena_alloc_raw(lx->arena, cap * sizeof *p);
        if (!p) {
            shc__nomem(lx);
            return NULL;
        }
        if (lx->nparts)
            memcpy(p, lx->parts, lx->nparts * sizeof *p);
        lx->parts = p;
        lx->cap_parts = cap;
    }
    shc_part *p = &lx->parts[lx->nparts++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->span.start = (uint32_t)(s - lx->src);
    p->span.end = (uint32_t)(e - lx->src);
    return p;
}

static int set_value(shc_lexer *lx, shc_part *p, const void *v, size_t n)
{
    char *s = shc_arena_strndup(lx->arena, v, n);
    if (!s) {
        shc__nomem(lx);
        return -1;
    }
    p->value = s;
    p->len = n;
    return 0;
}

/* A literal run: merged into the previous part of the same frame when that one is a literal
 * too (after a \<newline> or a lone $), so printing and re-parsing gives the same parts.  (A $
 * before a \<newline> is rejected: bash joins the lines first, so $\<newline>x is $x.) */
static int push_lit(shc_lexer *lx, size_t base, const unsigned char *s, const unsigned char *e,
                    const unsigned char *vs, size_t vn)
{
    shc_part *prev = lx->nparts > base ? &lx->parts[lx->nparts - 1] : NULL;
    if (prev && prev->kind == SHC_PART_LIT) {
        shc_part *p = prev;
        char *v = shc_arena_alloc_raw(lx->arena, p->len + vn + 1);
        if (!v) {
            shc__nomem(lx);
            return -1;
        }
        memcpy(v, p->value, p->len);
        memcpy(v + p->len, vs, vn);
        v[p->len + vn] = '\0';
        p->value = v;
        p->len += vn;
        p->span.end = (uint32_t)(e - lx->src);
        return 0;
    }
    shc_part *p = push_part(lx, SHC_PART_LIT, s, e);
    return p ? set_value(lx, p, vs, vn) : -1;
}

/* Moves parts[base..] into an arena array and pops them off the scratch stack. */
static shc_part *pop_parts(shc_lexer *lx, size_t base, size_t *n)
{
    *n = lx->nparts - base;
    if (*n == 0)
        return NULL;
    shc_part *arr = shc_arena_alloc_raw(lx->arena, *n * sizeof *arr);
    if (!arr) {
        shc__nomem(lx);
        return NULL;
    }
    memcpy(arr, lx->parts + base, *n * sizeof *arr);
    lx->nparts = base;
    return arr;
}

/* ------------------------------------------------------------------ expansions */

static int unsupported_at(shc_lexer *lx, const unsigned char *s, const unsigned char *e,
                          const char *what)
{
    shc__unsupported(lx, (size_t)(s - lx->src), (size_t)(e - lx->src), what);
    return -1;
}

/* ${...}, in the form whose end bash and we agree on (src/shell/words.c). */
static int lex_brace_param(shc_lexer *lx, const unsigned char *start)
{
    const unsigned char *e = shc__brace_param_end(lx, start);
    if (!e)
        return -1;
    lx->cur = e;
    shc_part *part = push_part(lx, SHC_PART_PARAM, start, lx->cur);
    return part ? set_value(lx, part, start, (size_t)(lx->cur - start)) : -1;
}

/* $name, $1, $@...: bash drops \<newline> before it reads the name, so $NAME\<newline>X would
 * be $NAMEX: rejected after a name. */
static int lex_param(shc_lexer *lx, const unsigned char *s)
{
    if (lx->cur[0] == '\\' && lx->cur[1] == '\n' && shc__name_char(lx->cur[-1]) &&
        !(s[1] >= '0' && s[1] <= '9'))
        return unsupported_at(lx, s, lx->cur + 2, "line continuation after `$NAME`");
    shc_part *p = push_part(lx, SHC_PART_PARAM, s, lx->cur);
    return p ? set_value(lx, p, s, (size_t)(lx->cur - s)) : -1;
}

/* ------------------------------------------------------------------ quotes */

static int lex_single(shc_lexer *lx, const unsigned char *s)
{
    const unsigned char *q = (const unsigned char *)strchr((const char *)lx->cur, '\'');
    if (!q) {
        shc__syntax_error(lx, (size_t)(s - lx->src), (size_t)(s - lx->src) + 1, true,
                          "unterminated single quote `'`");
        return -1;
    }
    const unsigned char *body = lx->cur;
    lx->cur = q + 1;
    shc_part *p = push_part(lx, SHC_PART_SGL, s, lx->cur);
    return p ? set_value(lx, p, body, (size_t)(q - body)) : -1;
}

/* "..." and $"...": nested parts (literals, escapes, parameter expansions). */
static int lex_double(shc_lexer *lx, const unsigned char *s, shc_part_kind kind)
{
    size_t base = lx->nparts;
    for (;;) {
        const unsigned char *ps = lx->cur;
        /*!re2c
            end      { lx->cur = ps; shc__syntax_error(lx, (size_t)(s - lx->src), (size_t)(s - lx->src) + 1, true, "unterminated double quote `\"`"); return -1; }
            "\""     { break; }
            "\\\n"   { continue; }
            "\\" [$`"\\] { if (push_part(lx, SHC_PART_ESC, ps, lx->cur) == NULL || set_value(lx, &lx->parts[lx->nparts - 1], ps + 1, 1)) return -1; continue; }
            "\\"     { if (push_lit(lx, base, ps, lx->cur, ps, 1)) return -1; continue; }
            "$(("    { return unsupported_at(lx, ps, lx->cur, "arithmetic expansion `$((`"); }
            "$("     { return unsupported_at(lx, ps, lx->cur, "command substitution `$(`"); }
            "`"      { return unsupported_at(lx, ps, lx->cur, "command substitution (backquote) `"); }
            "${"     { if (lex_brace_param(lx, ps)) return -1; continue; }
            "$["     { return unsupported_at(lx, ps, lx->cur, "arithmetic expansion `$[`"); }
            "$" "\\\n" { return unsupported_at(lx, ps, lx->cur, "line continuation after `$`"); }
            "$" name | "$" special_param { if (lex_param(lx, ps)) return -1; continue; }
            "$"      { if (push_lit(lx, base, ps, lx->cur, ps, 1)) return -1; continue; }
            [^"\\$`\x00]+ { if (push_lit(lx, base, ps, lx->cur, ps, (size_t)(lx->cur - ps))) return -1; continue; }
        */
    }
    size_t n;
    shc_part *inner = pop_parts(lx, base, &n);
    if (n && !inner)
        return -1;
    shc_part *p = push_part(lx, kind, s, lx->cur);
    if (!p)
        return -1;
    p->parts = inner;
    p->nparts = n;
    return 0;
}

/* $'...': the end and the value as bash 5.2 finds them (src/shell/words.c). */
static int lex_ansic(shc_lexer *lx, const unsigned char *s)
{
    const unsigned char *e = shc__ansic_end(lx, s);
    if (!e)
        return -1;
    unsigned char *out = shc_arena_alloc_raw(lx->arena, (size_t)(e - lx->cur) + 1);
    if (!out) {
        shc__nomem(lx);
        return -1;
    }
    size_t n;
    if (shc__ansic_decode(lx, lx->cur, e, out, &n))
        return -1;
    lx->cur = e + 1;
    shc_part *part = push_part(lx, SHC_PART_ANSIC, s, lx->cur);
    if (!part)
        return -1;
    part->value = (const char *)out;
    part->len = n;
    return 0;
}

/* ------------------------------------------------------------------ words */

/* Whether c ends an unquoted word (a metacharacter or the end). */
static bool ends_word(unsigned char c)
{
    switch (c) {
    case ' ': case '\t': case '\n': case ';': case '&': case '|': case '(': case ')':
    case '<': case '>': case '\0':
        return true;
    default:
        return false;
    }
}

/* The word in box: source start to lx->cur, its parts, its facts (shc__word_finish). */
static int finish_word(shc_lexer *lx, shc_wordbox *box, const unsigned char *start,
                       shc_part *parts, size_t n, shc_word **out)
{
    shc_word *w = &box->word;
    box->assign = 0;
    w->span.start = (uint32_t)(start - lx->src);
    w->span.end = (uint32_t)(lx->cur - lx->src);
    w->parts = parts;
    w->nparts = n;
    if (shc__word_finish(lx, w, false))
        return -1;
    *out = w;
    return 0;
}

/* The usual word: one unquoted literal run, s to lx->cur.  The box, its one part and the
 * value in one allocation; the same word lex_word's general path builds. */
static int plain_word(shc_lexer *lx, const unsigned char *s, shc_word **out)
{
    size_t n = (size_t)(lx->cur - s);
    shc_wordbox *box = shc_arena_alloc_raw(lx->arena, sizeof *box + n + 1);
    if (!box) {
        shc__nomem(lx);
        return -1;
    }
    char *v = (char *)(box + 1);
    memcpy(v, s, n);
    v[n] = '\0';
    shc_part *p = &box->part;
    memset(p, 0, sizeof *p);
    p->kind = SHC_PART_LIT;
    p->span.start = (uint32_t)(s - lx->src);
    p->span.end = (uint32_t)(lx->cur - lx->src);
    p->value = v;
    p->len = n;
    return finish_word(lx, box, s, p, 1, out);
}

static int lex_word(shc_lexer *lx, shc_word **out)
{
    size_t base = lx->nparts;
    const unsigned char *start = lx->cur;
    for (;;) {
        const unsigned char *ps = lx->cur;
        /*!re2c
            end | meta { lx->cur = ps; break; }
            [^ \t\n;&|()<>\\'"$`\x00]+ { if (ps == start && ends_word(*lx->cur)) return plain_word(lx, start, out); if (push_lit(lx, base, ps, lx->cur, ps, (size_t)(lx->cur - ps))) return -1; continue; }
            "\\\n"  { continue; }
            "\\" [^\x00\n] { shc_part *p = push_part(lx, SHC_PART_ESC, ps, lx->cur); if (!p || set_value(lx, p, ps + 1, 1)) return -1; continue; }
            "\\"    { return unsupported_at(lx, ps, lx->cur, "backslash at the end of the input (bash drops it after a multi-line quote, keeps it otherwise)"); }
            "'"     { if (lex_single(lx, ps)) return -1; continue; }
            "\""    { if (lex_double(lx, ps, SHC_PART_DBL)) return -1; continue; }
            "$'"    { if (lex_ansic(lx, ps)) return -1; continue; }
            "$\""   { if (lex_double(lx, ps, SHC_PART_LOCALE)) return -1; continue; }
            "$(("   { return unsupported_at(lx, ps, lx->cur, "arithmetic expansion `$((`"); }
            "$("    { return unsupported_at(lx, ps, lx->cur, "command substitution `$(`"); }
            "`"     { return unsupported_at(lx, ps, lx->cur, "command substitution (backquote) `"); }
            "${"    { if (lex_brace_param(lx, ps)) return -1; continue; }
            "$["    { return unsupported_at(lx, ps, lx->cur, "arithmetic expansion `$[`"); }
            "$" "\\\n" { return unsupported_at(lx, ps, lx->cur, "line continuation after `$`"); }
            "$" name | "$" special_param { if (lex_param(lx, ps)) return -1; continue; }
            "$"     { if (push_lit(lx, base, ps, lx->cur, ps, 1)) return -1; continue; }
        */
    }
    shc_wordbox *box = shc_arena_alloc_raw(lx->arena, sizeof *box);
    if (!box) {
        shc__nomem(lx);
        return -1;
    }
    size_t n = lx->nparts - base;
    shc_part *parts;
    if (n == 1) { /* one part (quoted, or a literal then \<newline>): it lives in the box */
        box->part = lx->parts[base];
        lx->nparts = base;
        parts = &box->part;
    } else {
        parts = pop_parts(lx, base, &n);
        if (n && !parts)
            return -1;
    }
    return finish_word(lx, box, start, parts, n, out);
}

/* ------------------------------------------------------------------ tokens */

static bool is_lit(const shc_word *w, const char *s)
{
    return w->nparts == 1 && w->parts[0].kind == SHC_PART_LIT && !strcmp(w->parts[0].value, s);
}

#define RW(w) w, sizeof w - 1 /* a reserved word and its length */
static const struct {
    char word[9];
    unsigned char len;
    const char *what; /* unsupported construct, or NULL for a syntax error */
} reserved[] = {
    {RW("if"), "if statement `if`"},
    {RW("for"), "for loop `for`"},
    {RW("while"), "while loop `while`"},
    {RW("until"), "until loop `until`"},
    {RW("case"), "case statement `case`"},
    {RW("select"), "select loop `select`"},
    {RW("function"), "function definition `function`"},
    {RW("coproc"), "coprocess `coproc`"},
    {RW("time"), "time keyword `time`"},
    {RW("{"), "brace group `{`"},
    {RW("[["), "conditional expression `[[`"},
    {RW("then"), NULL}, {RW("else"), NULL}, {RW("elif"), NULL}, {RW("fi"), NULL}, {RW("do"), NULL},
    {RW("done"), NULL}, {RW("esac"), NULL}, {RW("}"), NULL}, {RW("]]"), NULL},
};

/* A word in command position: reserved words are outside the subset (or out of place).  This
 * runs for every command word: the length and first byte rule out nearly all. */
static int check_command_word(shc_lexer *lx, const shc_word *w)
{
    if (w->nparts != 1 || w->parts[0].kind != SHC_PART_LIT || w->parts[0].len > 8)
        return 0;
    const char *v = w->parts[0].value;
    size_t n = w->parts[0].len;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        if (reserved[i].len != n || reserved[i].word[0] != v[0] || memcmp(v, reserved[i].word, n))
            continue;
        if (reserved[i].what)
            shc__unsupported(lx, w->span.start, w->span.end, reserved[i].what);
        else
            shc__syntax_error(lx, w->span.start, w->span.end, false, reserved[i].word);
        return -1;
    }
    return 0;
}

static bool is_redir_op(unsigned t)
{
    switch (t) {
    case SHC_TOK_LESS: case SHC_TOK_GREAT: case SHC_TOK_DGREAT: case SHC_TOK_CLOBBER:
    case SHC_TOK_LESSGREAT: case SHC_TOK_GREATAND: case SHC_TOK_LESSAND:
    case SHC_TOK_ANDGREAT: case SHC_TOK_ANDDGREAT: case SHC_TOK_TLESS:
        return true;
    default:
        return false;
    }
}

static int lex_token(shc_lexer *lx, SHC_YYSTYPE *lval)
{
    for (;;) {
        lx->tok = lx->cur;
        const unsigned char *ps = lx->cur;
        /*!re2c
            end      { lx->cur = ps; return SHC_TOK_YYEOF; }
            [ \t]+   { continue; }
            "\\\n"   { continue; }
            "#" [^\n\x00]* { continue; }
            "\n"     { return SHC_TOK_NEWLINE; }
            "&&"     { return SHC_TOK_AND_IF; }
            "||"     { return SHC_TOK_OR_IF; }
            "|&"     { return SHC_TOK_PIPE_AMP; }
            "|"      { return SHC_TOK_PIPE; }
            ";;"     { return SHC_TOK_DSEMI; }
            ";"      { return SHC_TOK_SEMI; }
            "&>>"    { return SHC_TOK_ANDDGREAT; }
            "&>"     { return SHC_TOK_ANDGREAT; }
            "&"      { return SHC_TOK_AMP; }
            "<<<"    { return SHC_TOK_TLESS; }
            "<<" "-"? { unsupported_at(lx, ps, lx->cur, "here-document `<<`"); return SHC_TOK_SHC_YYerror; }
            "<>"     { return SHC_TOK_LESSGREAT; }
            "<&"     { return SHC_TOK_LESSAND; }
            "<("     { unsupported_at(lx, ps, lx->cur, "process substitution `<(`"); return SHC_TOK_SHC_YYerror; }
            "<"      { return SHC_TOK_LESS; }
            ">>"     { return SHC_TOK_DGREAT; }
            ">|"     { return SHC_TOK_CLOBBER; }
            ">&"     { return SHC_TOK_GREATAND; }
            ">("     { unsupported_at(lx, ps, lx->cur, "process substitution `>(`"); return SHC_TOK_SHC_YYerror; }
            ">"      { return SHC_TOK_GREAT; }
            [&|;<>(] "\\\n"+ [&|;<>(] { unsupported_at(lx, ps, lx->cur, "line continuation inside an operator"); return SHC_TOK_SHC_YYerror; }
            "(("     { if (lx->cmd_start) { unsupported_at(lx, ps, lx->cur, "arithmetic command `((`"); return SHC_TOK_SHC_YYerror; } lx->cur = ps + 1; goto paren; }
            "("      { goto paren; }
            ")"      { return SHC_TOK_RPAREN; }
            *        { lx->cur = ps; break; }
        */
    paren:
        if (lx->cmd_start)
            unsupported_at(lx, ps, ps + 1, "subshell `(`");
        else if (lx->cmd_words == 1 && lx->last_tok == SHC_TOK_WORD)
            unsupported_at(lx, ps, ps + 1, "function definition `()`");
        else
            return SHC_TOK_LPAREN; /* the grammar reports it as unexpected */
        return SHC_TOK_SHC_YYerror;
    }

    /* a word, an assignment, a reserved word, ! or a file descriptor number */
    bool target = is_redir_op(lx->last_tok);
    shc_word *w = NULL;
    if (lex_word(lx, &w))
        return SHC_TOK_SHC_YYerror;
    unsigned char next = *lx->cur;
    if ((next == '<' || next == '>') && w->nparts == 1 &&
        w->parts[0].kind == SHC_PART_LIT) {
        const char *v = w->parts[0].value;
        size_t n = w->parts[0].len;
        if (n > 0 && strspn(v, "0123456789") == n) {
            if (n > 9) {
                unsupported_at(lx, lx->tok, lx->cur, "file descriptor number this large");
                return SHC_TOK_SHC_YYerror;
            }
            lval->num = strtol(v, NULL, 10);
            return SHC_TOK_IO_NUMBER;
        }
        if (n > 2 && v[0] == '{' && v[n - 1] == '}') {
            unsupported_at(lx, lx->tok, lx->cur, "named file descriptor redirection `{var}>`");
            return SHC_TOK_SHC_YYerror;
        }
    }
    char shape = !target && lx->cmd_words == 0 ? shc__assign_shape(w) : 0;
    ((shc_wordbox *)(void *)w)->assign = shape;
    lx->last_assign = shape != 0;
    if (!target && lx->cmd_words == 0) {
        if (lx->last_assign) {
            if (shape == '[') {
                unsupported_at(lx, lx->tok, lx->cur, "array assignment `name[...]=`");
                return SHC_TOK_SHC_YYerror;
            }
            if (next == '(') {
                unsupported_at(lx, lx->tok, lx->cur + 1, "array assignment `name=(...)`");
                return SHC_TOK_SHC_YYerror;
            }
            lval->word = w;
            return SHC_TOK_WORD;
        }
        if (lx->cmd_start && is_lit(w, "!"))
            return SHC_TOK_BANG;
        if (lx->cmd_start && check_command_word(lx, w))
            return SHC_TOK_SHC_YYerror;
    }
    lval->word = w;
    return SHC_TOK_WORD;
}

int shc_yylex(SHC_YYSTYPE *lval, SHC_YYLTYPE *lloc, shc_lexer *lx)
{
    bool target = is_redir_op(lx->last_tok);
    int t = lex_token(lx, lval);
    lloc->start = (uint32_t)(lx->tok - lx->src);
    lloc->end = (uint32_t)(lx->cur - lx->src);
    switch (t) {
    case SHC_TOK_WORD:
        if (!target && !lx->last_assign) {
            lx->cmd_words++;
            lx->cmd_start = false;
        }
        break;
    case SHC_TOK_IO_NUMBER:
    case SHC_TOK_LESS: case SHC_TOK_GREAT: case SHC_TOK_DGREAT: case SHC_TOK_CLOBBER:
    case SHC_TOK_LESSGREAT: case SHC_TOK_GREATAND: case SHC_TOK_LESSAND:
    case SHC_TOK_ANDGREAT: case SHC_TOK_ANDDGREAT: case SHC_TOK_TLESS:
        break;
    default:
        /* operators and newlines start a new command */
        lx->cmd_start = true;
        lx->cmd_words = 0;
        break;
    }
    lx->last_tok = (unsigned)t;
    return t;
}
