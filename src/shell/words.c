/* Word forms the lexer (grammar/shc_lexer.re) hands over, in plain C: where a $'...' string
 * ends and what it decodes to, and where a ${...} ends.  Both follow bash 5.2 exactly, or
 * report the form as unsupported (grammar/SUBSET.md); tests/word_oracle.py checks them against
 * bash.  Kept out of the re2c loop: they are rare, and inlined there they cost the common path
 * registers. */
#include <stdint.h>
#include <string.h>

#include "shell/build.h"
#include "shell/lex.h"

static const unsigned char *
unsupported_at(shc_lexer *lx, const unsigned char *s, const unsigned char *e, const char *what)
{
    shc__unsupported(lx, (size_t)(s - lx->src), (size_t)(e - lx->src), what);
    return NULL;
}

/* ------------------------------------------------------------------ ${...} */

static bool name_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool shc__name_char(unsigned char c)
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
 * $'...' and $(...) inside, and what bash itself would refuse as a bad substitution.  Returns
 * the end (just past the `}`), or NULL with the error reported. */
const unsigned char *shc__brace_param_end(shc_lexer *lx, const unsigned char *start)
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
                while (shc__name_char(*++p))
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
            return NULL;
        }
        if (c == '`')
            return unsupported_at(lx, p, p + 1, "command substitution (backquote) `");
        if (c == '$' && p[1] == '(')
            return unsupported_at(lx, p, p + 2,
                                  p[2] == '(' ? "arithmetic expansion `$((`"
                                              : "command substitution `$(`");
        if (c == '$' && p[1] == '{') {
            if (++depth > lx->limits->max_depth) {
                shc__limit(lx, (size_t)(p - lx->src), (size_t)(p - lx->src) + 2,
                           "nesting of `${` deeper than the limit");
                return NULL;
            }
            p += 2;
            head = true;
            continue;
        }
        if (c == '$' && name_start(p[1])) {
            for (p += 2; shc__name_char(*p); p++)
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
    return p;
}

/* ------------------------------------------------------------------ $'...' */

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
 * string).  The value is never longer than the body. */
const unsigned char *shc__ansic_end(shc_lexer *lx, const unsigned char *s)
{
    const unsigned char *e = s + 2; /* after $' */
    while (*e != '\'') {
        if (*e == '\0' || (*e == '\\' && e[1] == '\0')) {
            lx->cur = e;
            shc__syntax_error(lx, (size_t)(s - lx->src), (size_t)(s - lx->src) + 2, true,
                              "unterminated ANSI-C string `$'`");
            return NULL;
        }
        e += *e == '\\' ? 2 : 1;
    }
    return e;
}

int shc__ansic_decode(
    shc_lexer *lx, const unsigned char *b, const unsigned char *e, unsigned char *out, size_t *len)
{
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
        case 'e':
        case 'E': c = 27; break;
        case 'f': c = 12; break;
        case 'n': c = 10; break;
        case 'r': c = 13; break;
        case 't': c = 9; break;
        case 'v': c = 11; break;
        case '\\':
        case '\'':
        case '"':
        case '?': break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
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
        case 'u':
        case 'U': {
            int k = 0, d, max = c == 'u' ? 4 : 8;
            uint32_t v = 0;
            for (; p < e && k < max && (d = hexdigit(*p)) >= 0; k++, p++)
                v = v * 16 + (uint32_t)d;
            if (k == 0) {
                out[n++] = '\\';
                break;
            }
            if (v > 0x7F) {
                unsupported_at(lx, esc, p,
                               "a `\\u` escape above U+007F in `$'` (its bytes depend on the "
                               "locale)");
                return -1;
            }
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
        default: out[n++] = '\\'; break;
        }
        if (c == 0)
            break;
        out[n++] = (unsigned char)c;
    }
    out[n] = '\0';
    *len = n;
    return 0;
}
