/* Quoting client text into bash words (see quote.h). */
#include "agent/quote.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void shc_shell_quote(shc_strbuf *b, const char *s, size_t n)
{
    bool ctl = false;
    for (size_t i = 0; i < n && !ctl; i++)
        ctl = (unsigned char)s[i] < 0x20 || s[i] == 0x7f;
    if (!ctl) {
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
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            shc_strbuf_printf(b, "\\x%02x", c); /* always two digits: the next byte stays */
        else if (c == '\'' || c == '\\')
            shc_strbuf_printf(b, "\\%c", c);
        else
            shc_strbuf_putc(b, (char)c);
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

char *shc_file_uri_path(const char *uri)
{
    const char *p;
    if (!uri || strncmp(uri, "file://", 7))
        return NULL;
    p = uri + 7;
    if (!strncmp(p, "localhost/", 10))
        p += 9;
    if (*p != '/')
        return NULL; /* file://host/... names another machine */
    size_t n = strcspn(p, "?#");
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
            char c = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            if (c == 0) {
                free(out);
                return NULL;
            }
            out[k++] = c;
            i += 2;
        } else {
            out[k++] = p[i];
        }
    }
    out[k] = 0;
    return out;
}

/* s, with "./" in front when it would read as an option. */
static char *no_dash(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n + 3);
    if (out)
        snprintf(out, n + 3, "%s%s", s[0] == '-' ? "./" : "", s);
    return out;
}

char *shc_mention_path(const char *uri, const char *cwd)
{
    char *path = shc_file_uri_path(uri);
    if (!path)
        return no_dash(uri ? uri : "");
    size_t cl = cwd ? strlen(cwd) : 0;
    while (cl > 1 && cwd[cl - 1] == '/')
        cl--;
    const char *rel = NULL;
    if (cl > 1 && !strncmp(path, cwd, cl) && path[cl] == '/' && path[cl + 1])
        rel = path + cl + 1;
    char *out = no_dash(rel ? rel : path);
    free(path);
    return out;
}

void shc_mention_word(shc_strbuf *b, const char *uri, const char *cwd)
{
    char *p = shc_mention_path(uri, cwd);
    if (!p) {
        b->err = true;
        return;
    }
    shc_shell_quote(b, p, strlen(p));
    free(p);
}
