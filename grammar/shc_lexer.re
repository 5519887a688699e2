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

static bool name_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static bool special_char(unsigned char c)
{
    return c && strchr("0123456789@*#?$!-", c) != NULL;
}

/* ${...}, in a form bash accepts and whose end bash and we agree on:
 *   ${ [# or !] PARAM [OP WORD] }
 * PARAM is a name, digits or one special character; OP is one of : - = ? + # % / ^ , @ (the
 * operators, and : for ${x:1:2}); WORD holds no quote, backslash, `{`, newline or backquote,
 * and a `$` in it starts $name, a special parameter or a nested ${...}.  Then the first `}`
 * at depth 0 ends it, whatever the context.  Everything else is reported as unsupported:
 * array subscripts, quotes, escapes and braces inside (bash matches those by rules of its own),
 * $'...' and $(...) inside, and what bash itself would refuse as a bad substitution.  The part
 * keeps the raw text.  Out of line, like lex_ansic. */
__attribute__((noinline)) static int lex_brace_param(shc_lexer *lx,
                                                      const unsigned char *start)
{
    const unsigned char *p = lx->cur; /* just after "${" */
    size_t depth = 1;
    bool head = true; /* at the [#!]PARAM[OP] of the innermost ${ */
    for (;;) {
        unsigned char c = *p;
        if (head) {
            head = false;
            if ((c == '#' || c == '!') && p[1] != '}' && (name_start(p[1]) || special_char(p[1])))
                c = *++p;
            if (name_start(c)) {
                while (name_char(*++p))
                    ;
            } else if (c >= '0' && c <= '9') {
                while (*++p >= '0' && *p <= '9')
                    ;
            } else if (special_char(c)) {
                p++;
            } else if (c == '\0') {
                continue;
            } else {
                return unsupported_at(lx, start, p + 1, "parameter expansion `${` of this form");
            }
            if (*p == '[')
                return unsupported_at(lx, p, p + 1, "array subscript in `${`");
            if (*p && *p != '}' && !strchr(":-=?+#%/^,@", *p))
                return unsupported_at(lx, start, p + 1, "parameter expansion `${` of this form");
            continue;
        }
        if (c == '}') {
            p++;
            if (--depth == 0)
                break;
            continue;
        }
        if (c == '\0') {
            shc__syntax_error(lx, (size_t)(start - lx->src), (size_t)(start - lx->src) + 2, true,
                              "unterminated parameter expansion `${`");
            return -1;
        }
        if (c == '`')
            return unsupported_at(lx, p, p + 1, "command substitution (backquote) `");
        if (c == '$' && p[1] == '(')
            return unsupported_at(lx, p, p + 2, p[2] == '(' ? "arithmetic expansion `$((`"
                                                             : "command substitution `$(`");
        if (c == '$' && p[1] == '{') {
            if (++depth > lx->limits->max_depth) {
                shc__limit(lx, (size_t)(p - lx->src), (size_t)(p - lx->src) + 2,
                           "nesting of `${` deeper than the limit");
                return -1;
            }
            p += 2;
            head = true;
            continue;
        }
        if (c == '$' && name_start(p[1])) {
            for (p += 2; name_char(*p); p++)
                ;
            continue;
        }
        if (c == '$' && special_char(p[1])) {
            p += 2;
            continue;
        }
        if (c == '$')
            return unsupported_at(lx, p, p + 1, "`$` other than $name or ${ inside `${...}`");
        if (c == '\'' || c == '"' || c == '\\' || c == '{' || c == '\n')
            return unsupported_at(lx, p, p + 1,
                                  "a quote, backslash, `{` or newline inside `${...}`");
        p++;
    }
    lx->cur = p;
    shc_part *part = push_part(lx, SHC_PART_PARAM, start, lx->cur);
    return part ? set_value(lx, part, start, (size_t)(lx->cur - start)) : -1;
}

/* $name, $1, $@...: bash drops \<newline> before it reads the name, so $NAME\<newline>X would
 * be $NAMEX: rejected after a name. */
static int lex_param(shc_lexer *lx, const unsigned char *s)
{
    if (lx->cur[0] == '\\' && lx->cur[1] == '\n' && name_char(lx->cur[-1]) &&
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

static int hexdigit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* $'...' decoded as bash 5.2 decodes it, in two steps as bash does.  First the end: a backslash
 * escapes the next byte whatever it is (so `\c\'` does not end the string), and the first
 * unescaped ' ends it.  Then the escapes of the body, none of which looks past the body:
 *   \a \b \e \E \f \n \r \t \v \\ \' \" \?   the usual bytes
 *   \NNN      one to three octal digits, the value modulo 256 (\400 is NUL)
 *   \xHH      one or two hex digits; \x with none stays \x
 *   \x{H...}  every hex digit up to a non-digit, the value modulo 256; the } is optional; no
 *             digit at all gives NUL
 *   \uHHHH \UHHHHHHHH   one to four / eight hex digits; with none it stays \u / \U; a code
 *             point up to U+007F is that byte; above it the bytes depend on the locale (UTF-8,
 *             or the escape itself in the C locale), so such a word is unsupported
 *   \cX       the control character of X (X upper-cased, then & 0x1F; \c? is DEL); \c\\
 *             takes both backslashes; \c at the end of the body stays \c
 *   \ + anything else   both bytes
 * A NUL from an escape ends the value (bash drops the rest of the string, and only of this
 * string).  The value is never longer than the body.  Out of line (rare): inlined into lex_word
 * it costs the common path registers. */
__attribute__((noinline)) static int lex_ansic(shc_lexer *lx, const unsigned char *s)
{
    const unsigned char *b = lx->cur, *e = b;
    while (*e != '\'') {
        if (*e == '\0' || (*e == '\\' && e[1] == '\0')) {
            lx->cur = e;
            shc__syntax_error(lx, (size_t)(s - lx->src), (size_t)(s - lx->src) + 2, true,
                              "unterminated ANSI-C string `$'`");
            return -1;
        }
        e += *e == '\\' ? 2 : 1;
    }
    lx->cur = e + 1;
    unsigned char *out = shc_arena_alloc_raw(lx->arena, (size_t)(e - b) + 1);
    if (!out) {
        shc__nomem(lx);
        return -1;
    }
    size_t n = 0;
    const unsigned char *p = b;
    while (p < e) {
        unsigned c = *p++;
        if (c != '\\' || p == e) {
            out[n++] = (unsigned char)c;
            continue;
        }
        const unsigned char *esc = p - 1;
        c = *p++;
        switch (c) {
        case 'a': c = 7; break;
        case 'b': c = 8; break;
        case 'e': case 'E': c = 27; break;
        case 'f': c = 12; break;
        case 'n': c = 10; break;
        case 'r': c = 13; break;
        case 't': c = 9; break;
        case 'v': c = 11; break;
        case '\\': case '\'': case '"': case '?': break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
            c -= '0';
            for (int k = 0; k < 2 && p < e && *p >= '0' && *p <= '7'; k++)
                c = c * 8 + (unsigned)(*p++ - '0');
            c &= 0xFF;
            break;
        case 'x': {
            bool braced = p < e && *p == '{';
            int k = 0, d;
            p += braced;
            for (c = 0; p < e && (braced || k < 2) && (d = hexdigit(*p)) >= 0; k++, p++)
                c = (c * 16 + (unsigned)d) & 0xFF;
            if (braced && p < e && *p == '}')
                p++;
            if (!braced && k == 0) {
                out[n++] = '\\';
                c = 'x';
            }
            break;
        }
        case 'u': case 'U': {
            int k = 0, d, max = c == 'u' ? 4 : 8;
            uint32_t v = 0;
            for (; p < e && k < max && (d = hexdigit(*p)) >= 0; k++, p++)
                v = v * 16 + (uint32_t)d;
            if (k == 0) {
                out[n++] = '\\';
                break;
            }
            if (v > 0x7F)
                return unsupported_at(lx, esc, p,
                                      "a `\\u` escape above U+007F in `$'` (its bytes depend on "
                                      "the locale)");
            c = v;
            break;
        }
        case 'c':
            if (p == e) {
                out[n++] = '\\';
                break;
            }
            c = *p++;
            if (c == '\\' && p < e && *p == '\\')
                p++;
            c = c == '?' ? 0x7F : ((c >= 'a' && c <= 'z' ? c - 32 : c) & 0x1F);
            break;
        default:
            out[n++] = '\\';
            break;
        }
        if (c == 0)
            break;
        out[n++] = (unsigned char)c;
    }
    shc_part *part = push_part(lx, SHC_PART_ANSIC, s, lx->cur);
    if (!part)
        return -1;
    out[n] = '\0';
    part->value = (const char *)out;
    part->len = n;
    return 0;
}

/* ------------------------------------------------------------------ words */

static int lex_word(shc_lexer *lx, shc_word **out)
{
    size_t base = lx->nparts;
    const unsigned char *start = lx->cur;
    for (;;) {
        const unsigned char *ps = lx->cur;
        /*!re2c
            end | meta { lx->cur = ps; break; }
            [^ \t\n;&|()<>\\'"$`\x00]+ { if (push_lit(lx, base, ps, lx->cur, ps, (size_t)(lx->cur - ps))) return -1; continue; }
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
    shc_word *w = &box->word;
    box->assign = 0;
    w->span.start = (uint32_t)(start - lx->src);
    w->span.end = (uint32_t)(lx->cur - lx->src);
    size_t n = lx->nparts - base;
    if (n == 1) { /* the usual case: the part lives in the box */
        box->part = lx->parts[base];
        lx->nparts = base;
        w->parts = &box->part;
    } else {
        w->parts = pop_parts(lx, base, &n);
        if (n && !w->parts)
            return -1;
    }
    w->nparts = n;
    if (shc__word_finish(lx, w, false))
        return -1;
    *out = w;
    return 0;
}

/* ------------------------------------------------------------------ tokens */

static bool is_lit(const shc_word *w, const char *s)
{
    return w->nparts == 1 && w->parts[0].kind == SHC_PART_LIT && !strcmp(w->parts[0].value, s);
}

static const struct {
    const char *word;
    const char *what; /* unsupported construct, or NULL for a syntax error */
} reserved[] = {
    {"if", "if statement `if`"},
    {"for", "for loop `for`"},
    {"while", "while loop `while`"},
    {"until", "until loop `until`"},
    {"case", "case statement `case`"},
    {"select", "select loop `select`"},
    {"function", "function definition `function`"},
    {"coproc", "coprocess `coproc`"},
    {"time", "time keyword `time`"},
    {"{", "brace group `{`"},
    {"[[", "conditional expression `[[`"},
    {"then", NULL}, {"else", NULL}, {"elif", NULL}, {"fi", NULL}, {"do", NULL},
    {"done", NULL}, {"esac", NULL}, {"}", NULL}, {"]]", NULL},
};

/* A word in command position: reserved words are outside the subset (or out of place). */
static int check_command_word(shc_lexer *lx, const shc_word *w)
{
    if (w->nparts != 1 || w->parts[0].kind != SHC_PART_LIT || w->parts[0].len > 8 ||
        !strchr("iwucsftdeb{}[]", w->parts[0].value[0]))
        return 0;
    const char *v = w->parts[0].value;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        if (reserved[i].word[0] != v[0] || strcmp(v, reserved[i].word) != 0)
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
