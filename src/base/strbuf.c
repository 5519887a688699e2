#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(shc_strbuf *b, size_t more)
{
    if (b->err)
        return false;
    if (b->n + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->err = true;
        b->cap = 0; /* the inline appends now always take the slow path */
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void shc__strbuf_put_grow(shc_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

char *shc__strbuf_reserve_grow(shc_strbuf *b, size_t more)
{
    return reserve(b, more) ? b->p + b->n : NULL;
}

void shc_strbuf_puts(shc_strbuf *b, const char *s)
{
    shc_strbuf_put(b, s, strlen(s));
}


void shc_strbuf_printf(shc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

char *shc_strbuf_take(shc_strbuf *b)
{
    if (b->err) {
        shc_strbuf_free(b);
        return NULL;
    }
    if (!reserve(b, 0))
        return NULL;
    char *p = b->p;
    p[b->n] = '\0';
    b->p = NULL;
    b->n = b->cap = 0;
    return p;
}

void shc_strbuf_free(shc_strbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
    b->err = false;
}
