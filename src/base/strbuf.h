/* A growable heap string.  Appends never fail visibly: an allocation failure sets err and
 * later appends are ignored, so callers check once at the end. */
#ifndef SHC_STRBUF_H
#define SHC_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct shc_strbuf {
    char *p; /* NUL-terminated when n > 0 or after shc_strbuf_take */
    size_t n, cap;
    bool err;
} shc_strbuf;

void shc_strbuf_put(shc_strbuf *b, const char *s, size_t n);
void shc_strbuf_puts(shc_strbuf *b, const char *s);
void shc_strbuf_putc(shc_strbuf *b, char c);
void shc_strbuf_printf(shc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Room for at least `more` bytes at the end: returns where to write them (then call
 * shc_strbuf_commit with how many were written), or NULL after an allocation failure.  For
 * writers that size their worst case once instead of checking every byte. */
char *shc_strbuf_reserve(shc_strbuf *b, size_t more);
void shc_strbuf_commit(shc_strbuf *b, size_t written);
/* Returns the owned string (free with free()), or NULL after an allocation failure. */
char *shc_strbuf_take(shc_strbuf *b);
void shc_strbuf_free(shc_strbuf *b);

#endif
