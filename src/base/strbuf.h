/* A growable heap string.  Appends never fail visibly: an allocation failure sets err and
 * later appends are ignored, so callers check once at the end. */
#ifndef SHC_STRBUF_H
#define SHC_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct shc_strbuf {
    char *p; /* NUL-terminated when n > 0 or after shc_strbuf_take */
    size_t n, cap;
    bool err;
} shc_strbuf;

/* The out-of-line half of shc_strbuf_put: grows the buffer first. */
void shc__strbuf_put_grow(shc_strbuf *b, const char *s, size_t n);

/* Appends are inline while there is room (the JSON writers append many short pieces; after an
 * allocation failure cap is 0, so every append takes the slow path, which ignores it). */
static inline void shc_strbuf_put(shc_strbuf *b, const char *s, size_t n)
{
    if (b->n + n < b->cap) {
        if (n)
            memcpy(b->p + b->n, s, n);
        b->n += n;
        b->p[b->n] = '\0';
    } else {
        shc__strbuf_put_grow(b, s, n);
    }
}

static inline void shc_strbuf_putc(shc_strbuf *b, char c)
{
    if (b->n + 1 < b->cap) {
        b->p[b->n++] = c;
        b->p[b->n] = '\0';
    } else {
        shc__strbuf_put_grow(b, &c, 1);
    }
}

void shc_strbuf_puts(shc_strbuf *b, const char *s);
void shc_strbuf_printf(shc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Room for at least `more` bytes at the end: returns where to write them (then call
 * shc_strbuf_commit with how many were written), or NULL after an allocation failure.  For
 * writers that size their worst case once instead of checking every byte. */
char *shc__strbuf_reserve_grow(shc_strbuf *b, size_t more);

/* Room for `more` bytes (and the NUL) at the end, or NULL after an allocation failure; write
 * into it, then shc_strbuf_commit what was written. */
static inline char *shc_strbuf_reserve(shc_strbuf *b, size_t more)
{
    return b->n + more < b->cap ? b->p + b->n : shc__strbuf_reserve_grow(b, more);
}

static inline void shc_strbuf_commit(shc_strbuf *b, size_t written)
{
    if (b->err)
        return;
    b->n += written;
    b->p[b->n] = '\0';
}

/* Appends again what b holds at [from, to) (a string written once, escaped, and needed twice). */
static inline void shc_strbuf_repeat(shc_strbuf *b, size_t from, size_t to)
{
    char *o = shc_strbuf_reserve(b, to - from);
    if (!o)
        return;
    memcpy(o, b->p + from, to - from);
    shc_strbuf_commit(b, to - from);
}
/* Returns the owned string (free with free()), or NULL after an allocation failure. */
char *shc_strbuf_take(shc_strbuf *b);
void shc_strbuf_free(shc_strbuf *b);

#endif
