/* Client text as bash words (see quote.h).  Only the user's typed text may be shell syntax;
 * everything else a client supplies is data: an @-mention becomes exactly one word naming the
 * file - relative to the session cwd when it is inside it (also when the cwd is a symlink to
 * where the file is), quoted so that no character of it means anything to bash ($, `, ;,
 * quotes, spaces, globs, newlines and other control characters), and never an option (a name
 * that starts with '-' gets "./").  A link that is not a local file URI is one quoted word of
 * its text. */
#define _GNU_SOURCE
#include "agent/quote.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* No '=': a bare NAME=value first on a line is an assignment (BASH_ENV=x cmd). */
static bool safe_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_@%+:,./-", c) != NULL;
}

/* A bash reserved word made of safe bytes: bare, first on a line, it would be syntax. */
static bool reserved(const char *s, size_t n)
{
    static const char *const words[] = {"case", "coproc", "do",   "done",   "elif",
                                        "else", "esac",   "fi",   "for",    "function",
                                        "if",   "in",     "select", "then", "time",
                                        "until", "while"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && !memcmp(words[i], s, n))
            return true;
    return false;
}

void shc_shell_quote(shc_strbuf *b, const char *s, size_t n)
{
    bool bare = n > 0, plain = true;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (!safe_byte(c))
            bare = false;
        if (c < 0x20 || c == 0x7f) {
            plain = false;
            i++;
            continue;
        }
        size_t adv = 1;
        if (c >= 0x80 && shc_utf8_dec((const unsigned char *)s + i, n - i, &adv) != SHC_UTF8_OK)
            plain = false;
        i += adv ? adv : 1;
    }
    if (bare && !reserved(s, n)) {
        shc_strbuf_put(b, s, n);
        return;
    }
    if (plain) {
        shc_strbuf_putc(b, '\'');
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '\'')
                shc_strbuf_puts(b, "'\\''");
            else
                shc_strbuf_putc(b, s[i]);
        }
        shc_strbuf_putc(b, '\'');
        return;
    }
    /* $'...': control characters and bytes that are not UTF-8 as \xHH (always two digits, so
     * the next byte is never read as part of the escape); the word stays on one line and the
     * command stays valid UTF-8 (it is shown as the card's rawInput) */
    shc_strbuf_puts(b, "$'");
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t adv = 1;
        if (c == '\\' || c == '\'') {
            shc_strbuf_putc(b, '\\');
            shc_strbuf_putc(b, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            shc_strbuf_printf(b, "\\x%02x", c);
        } else if (c >= 0x80 &&
                   shc_utf8_dec((const unsigned char *)s + i, n - i, &adv) == SHC_UTF8_OK) {
            shc_strbuf_put(b, s + i, adv);
        } else if (c >= 0x80) {
            shc_strbuf_printf(b, "\\x%02x", c);
            adv = 1;
        } else {
            shc_strbuf_putc(b, (char)c);
        }
        i += adv ? adv : 1;
    }
    shc_strbuf_putc(b, '\'');
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

char *shc_file_uri_path(const char *uri, size_t *len, bool *nul)
{
    const char *p;
    *len = 0;
    *nul = false;
    if (!uri)
        return NULL;
    if (!strncmp(uri, "file:///", 8))
        p = uri + 7;
    else if (!strncmp(uri, "file://localhost/", 17))
        p = uri + 16;
    else
        return NULL; /* another scheme, or file://host/ (another machine) */
    char *out = malloc(strlen(p) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; p[i] && p[i] != '?' && p[i] != '#'; i++) {
        int h, l;
        if (p[i] == '%' && (h = hexval(p[i + 1])) >= 0 && (l = hexval(p[i + 2])) >= 0) {
            out[n] = (char)(h * 16 + l);
            *nul |= out[n] == 0;
            n++;
            i += 2;
        } else {
            out[n++] = p[i];
        }
    }
    out[n] = 0;
    *len = n;
    return out;
}

/* Whether path is dir itself or inside it; *off is where the part relative to dir starts
 * (plen when path is dir). */
static bool inside(const char *path, size_t plen, const char *dir, size_t *off)
{
    size_t d = strlen(dir);
    while (d > 1 && dir[d - 1] == '/')
        d--;
    if (d <= 1 || plen < d || memcmp(path, dir, d) != 0)
        return false;
    if (plen == d) {
        *off = plen;
        return true;
    }
    if (path[d] != '/')
        return false;
    *off = d + 1;
    return true;
}

char *shc_mention_path(const char *uri, const char *cwd, size_t *len)
{
    size_t plen = 0;
    bool nul = false;
    char *path = shc_file_uri_path(uri, &plen, &nul);
    const char *word = path;
    size_t wlen = plen;
    if (!path || nul) { /* not a local file (or not a path): the URI's text */
        word = uri ? uri : "";
        wlen = strlen(word);
    } else if (cwd) {
        size_t off = 0;
        char real[PATH_MAX];
        bool in = inside(path, plen, cwd, &off) ||
                  (realpath(cwd, real) && inside(path, plen, real, &off)); /* a symlinked cwd */
        if (in) {
            word = off == plen ? "." : path + off;
            wlen = off == plen ? 1 : plen - off;
        }
    }
    char *out = malloc(wlen + 3);
    if (out) {
        size_t k = word[0] == '-' ? 2 : 0; /* only relative paths start so: never an option */
        memcpy(out, "./", k);
        memcpy(out + k, word, wlen);
        out[k + wlen] = 0;
        *len = k + wlen;
    }
    free(path);
    return out;
}

void shc_mention_word(shc_strbuf *b, const char *uri, const char *cwd)
{
    size_t n = 0;
    char *p = shc_mention_path(uri, cwd, &n);
    if (!p) {
        b->err = true;
        return;
    }
    shc_shell_quote(b, p, n);
    free(p);
}

/* ------------------------------------------------------------------ a prompt as lines */

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The prompt being laid out as lines, and whether the current line has typed text on it. */
typedef struct layout {
    shc_strbuf b;
    size_t line; /* where the current line starts in b */
    bool typed;
    size_t context_only;
} layout;

/* Ends the current line: one made only of mentions is taken out again. */
static void newline(layout *l)
{
    bool blank = true;
    for (size_t i = l->line; i < l->b.n && blank; i++)
        blank = space(l->b.p[i]);
    if (!blank && !l->typed) {
        l->b.n = l->line;
        l->b.p[l->b.n] = 0;
        l->context_only++;
    }
    shc_strbuf_putc(&l->b, '\n');
    l->line = l->b.n;
    l->typed = false;
}

char *shc_shell_prompt(const shc_prompt_part *parts, size_t n, const char *cwd,
                       size_t *context_only)
{
    layout l;
    memset(&l, 0, sizeof l);
    bool last_text = false, after_mention = false;
    for (size_t i = 0; i < n; i++) {
        const shc_prompt_part *p = &parts[i];
        if (p->kind == SHC_PROMPT_TEXT) {
            if (last_text) /* two text blocks: two pieces of text */
                newline(&l);
            else if (after_mention && p->len && !space(p->text[0]))
                shc_strbuf_putc(&l.b, ' ');
            for (size_t k = 0; k < p->len; k++) {
                if (p->text[k] == '\n') {
                    newline(&l);
                    continue;
                }
                l.typed |= !space(p->text[k]);
                shc_strbuf_putc(&l.b, p->text[k]);
            }
            last_text = true;
            after_mention = false;
        } else if (p->kind == SHC_PROMPT_LINK || p->kind == SHC_PROMPT_RESOURCE) {
            if (l.b.n > l.line && !space(l.b.p[l.b.n - 1]))
                shc_strbuf_putc(&l.b, ' ');
            shc_mention_word(&l.b, p->uri, cwd);
            last_text = false;
            after_mention = true;
        }
        /* images are for a model; the shell backend does not take them */
    }
    newline(&l);
    *context_only = l.context_only;
    char *out = shc_strbuf_take(&l.b);
    if (out) /* the last newline ends nothing */
        out[strlen(out) - 1] = 0;
    return out;
}
