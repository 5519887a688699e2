/* A session/prompt's content blocks as the text a backend gets (bridge.c calls it; it uses
 * nothing else of the bridge).
 *
 * Only the user's typed text may be shell syntax.  Everything else the client supplies is data:
 * an @-mention (resource_link) becomes exactly one shell word naming the file - relative to the
 * session cwd when it is inside it, quoted so that no character of it means anything to bash
 * ($, `, ;, quotes, spaces, globs, newlines and other control characters), and never an option
 * (a name that starts with '-' gets "./").  A link that is not a local file URI is one quoted
 * word of its text.  Consecutive text blocks are separate lines; a mention joins the text around
 * it on the same line, separated by a space. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/utf8.h"

static bool safe_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_@%+=:,./-", c) != NULL;
}

/* s[0..n) as one bash word: bare when every byte is plainly safe, '...' when it holds no
 * control character and is valid UTF-8, else $'...' with \xHH escapes. */
static void quote_word(shc_strbuf *b, const char *s, size_t n)
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
    if (bare) {
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
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The local path of a file URI (file:///p, file://localhost/p), percent-decoded; NULL for any
 * other URI.  *nul is set when the path would hold a NUL byte. */
static char *file_path(const char *uri, size_t *len, bool *nul)
{
    const char *p;
    if (!strncmp(uri, "file:///", 8))
        p = uri + 7;
    else if (!strncmp(uri, "file://localhost/", 17))
        p = uri + 16;
    else
        return NULL;
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

/* One mention as one shell word. */
static int mention(shc_strbuf *b, const char *uri, const char *cwd, const char **why)
{
    size_t plen = 0;
    bool nul = false;
    char *path = file_path(uri, &plen, &nul);
    if (!path) {
        quote_word(b, uri, strlen(uri));
        return 0;
    }
    if (nul) {
        free(path);
        *why = "session/prompt: a resource_link's path holds a NUL character";
        return -1;
    }
    size_t off = 0;
    char real[PATH_MAX];
    bool in = inside(path, plen, cwd, &off) ||
              (realpath(cwd, real) && inside(path, plen, real, &off)); /* cwd may be a symlink */
    const char *word = in ? path + off : path;
    size_t wlen = in ? plen - off : plen;
    if (in && wlen == 0) {
        word = ".";
        wlen = 1;
    }
    if (word[0] == '-') /* only relative paths can start so: never let one be an option */
        shc_strbuf_puts(b, "./");
    quote_word(b, word, wlen);
    free(path);
    return 0;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char *shc__prompt_text(json_t *prompt, const char *cwd, const char **why)
{
    shc_strbuf b = {0};
    size_t i;
    json_t *blk;
    bool last_text = false, after_mention = false;
    json_array_foreach(prompt, i, blk)
    {
        const char *type = shc_rpc_str(json_object_get(blk, "type"));
        if (type && !strcmp(type, "text")) {
            json_t *t = json_object_get(blk, "text");
            const char *text = shc_rpc_str(t);
            if (!text) {
                *why = json_is_string(t) ? "session/prompt: a text block holds a NUL character"
                                         : "session/prompt: a text block needs a string \"text\"";
                goto fail;
            }
            if (last_text)
                shc_strbuf_putc(&b, '\n');
            else if (after_mention && *text && !space(*text))
                shc_strbuf_putc(&b, ' ');
            shc_strbuf_puts(&b, text);
            last_text = true;
            after_mention = false;
        } else if (type && !strcmp(type, "resource_link")) {
            json_t *u = json_object_get(blk, "uri");
            const char *uri = shc_rpc_str(u);
            if (!uri || !*uri) {
                *why = json_is_string(u) && *json_string_value(u)
                           ? "session/prompt: a resource_link's uri holds a NUL character"
                           : "session/prompt: a resource_link block needs a string \"uri\"";
                goto fail;
            }
            if (b.n && !space(b.p[b.n - 1]))
                shc_strbuf_putc(&b, ' ');
            if (mention(&b, uri, cwd, why) != 0)
                goto fail;
            last_text = false;
            after_mention = true;
        } else {
            *why = "session/prompt: unsupported content block (only text and resource_link are "
                   "accepted)";
            goto fail;
        }
    }
    char *out = shc_strbuf_take(&b);
    if (!out && !b.err)
        out = strdup("");
    if (!out)
        *why = "out of memory";
    return out;
fail:
    shc_strbuf_free(&b);
    return NULL;
}
