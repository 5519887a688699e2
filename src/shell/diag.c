#include "shell/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *shc_err_kind(int code)
{
    switch (code) {
    case SHC_OK: return "ok";
    case SHC_E_SYNTAX: return "syntax";
    case SHC_E_UNSUPPORTED: return "unsupported";
    case SHC_E_LIMIT: return "limit";
    case SHC_E_NOMEM: return "nomem";
    case SHC_E_IO: return "io";
    case SHC_E_USAGE: return "usage";
    default: return "error";
    }
}

int shc__diag_set(shc_diag *d, int code, uint32_t start, uint32_t end, const char *fmt, ...)
{
    if (!d || d->code != 0)
        return code;
    d->code = code;
    d->span.start = start;
    d->span.end = end < start ? start : end;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->text, sizeof d->text, fmt, ap);
    va_end(ap);
    return code;
}

void shc__line_col(const char *src, size_t len, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1, c = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (src[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Appends to buf like snprintf and returns the new would-be length. */
static size_t put(char *buf, size_t cap, size_t at, const char *s, size_t n)
{
    if (at < cap) {
        size_t room = cap - at - 1;
        memcpy(buf + at, s, n < room ? n : room);
        buf[at + (n < room ? n : room)] = '\0';
    }
    return at + n;
}

size_t shc_diag_render(char *buf, size_t cap, const shc_diag *d, const char *src, size_t len)
{
    char head[256];
    unsigned line, col;
    size_t off = d->span.start <= len ? d->span.start : len;
    shc__line_col(src, len, off, &line, &col);
    int hn = snprintf(head, sizeof head, "input:%u:%u: %s error: %s\n", line, col,
                      shc_err_kind(d->code), d->text);
    size_t at = put(buf, cap, 0, head, hn > 0 ? (size_t)hn : 0);
    size_t ls = off;
    while (ls > 0 && src[ls - 1] != '\n')
        ls--;
    size_t le = off;
    while (le < len && src[le] != '\n')
        le++;
    /* the source line, with control bytes shown as '?' so the caret lines up */
    for (size_t i = ls; i < le; i++) {
        unsigned char ch = (unsigned char)src[i];
        char c = (ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : (char)ch;
        at = put(buf, cap, at, &c, 1);
    }
    at = put(buf, cap, at, "\n", 1);
    for (size_t i = ls; i < off; i++) {
        char c = src[i] == '\t' ? '\t' : ' ';
        /* continuation bytes of UTF-8 take no column */
        if (((unsigned char)src[i] & 0xC0) == 0x80)
            continue;
        at = put(buf, cap, at, &c, 1);
    }
    size_t end = d->span.end <= le ? d->span.end : le;
    size_t carets = end > off ? end - off : 1;
    at = put(buf, cap, at, "^", 1);
    for (size_t i = 1; i < carets; i++)
        at = put(buf, cap, at, "~", 1);
    at = put(buf, cap, at, "\n", 1);
    return at;
}
