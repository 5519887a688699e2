/* Writing JSON straight into a shc_strbuf, without building a tree and without jansson (the
 * library's JSON answers are written through here where speed matters: `explain --batch`,
 * `parse --batch`; a build without jansson can use it too).  The bytes are the ones jansson's
 * json_dumps(JSON_COMPACT) writes for the same values, so the two paths can be compared
 * byte for byte: strings escape '"', '\\' and control characters (\b \f \n \r \t, others
 * \u00XX with upper-case hex), '/' and DEL stay as they are, and with SHC_JW_ASCII every
 * non-ASCII character is \uXXXX (a surrogate pair above U+FFFF), as JSON_ENSURE_ASCII does.
 * Invalid UTF-8 becomes U+FFFD, one per maximal invalid subpart, as shc_json_str() does. */
#ifndef SHC_BASE_JSONW_H
#define SHC_BASE_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"

enum { SHC_JW_ASCII = 1 };

/* s[0..n) (any bytes, NUL included) as a JSON string. */
void shc_jw_str(shc_strbuf *b, const char *s, size_t n, unsigned flags);
/* A NUL-terminated string, or null for NULL. */
void shc_jw_cstr(shc_strbuf *b, const char *s, unsigned flags);
/* The slow path of shc_jw_int (negative, or past 32 bits). */
void shc__jw_int(shc_strbuf *b, long long v);
/* Writes the decimal digits of v at o (room for 10 bytes); returns the end. */
static inline char *shc_jw_u32_at(char *o, uint32_t v)
{
    if (v < 10) {
        *o++ = (char)('0' + v);
        return o;
    }
    if (v < 1000) {
        if (v >= 100)
            *o++ = (char)('0' + v / 100);
        *o++ = (char)('0' + v / 10 % 10);
        *o++ = (char)('0' + v % 10);
        return o;
    }
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *o++ = tmp[--n];
    return o;
}
/* A decimal integer, as jansson prints json_int_t. */
static inline void shc_jw_int(shc_strbuf *b, long long v)
{
    char *o;
    if (v >= 0 && v <= (long long)UINT32_MAX && (o = shc_strbuf_reserve(b, 10)) != NULL)
        shc_strbuf_commit(b, (size_t)(shc_jw_u32_at(o, (uint32_t)v) - o));
    else
        shc__jw_int(b, v);
}
/* ,"start":S,"end":E} in one step (every node, word and part ends so in parse output). */
static inline void shc_jw_span_end(shc_strbuf *b, uint32_t start, uint32_t end)
{
    char *o = shc_strbuf_reserve(b, 40), *p = o;
    if (!o)
        return;
    memcpy(p, ",\"start\":", 9);
    p = shc_jw_u32_at(p + 9, start);
    memcpy(p, ",\"end\":", 7);
    p = shc_jw_u32_at(p + 7, end);
    *p++ = '}';
    shc_strbuf_commit(b, (size_t)(p - o));
}
/* A literal piece of JSON text (punctuation and keys written by the caller). */
#define shc_jw_raw(b, lit) shc_strbuf_put((b), "" lit, sizeof(lit) - 1) /* literals only */
/* One of two literals. */
#define shc_jw_pick(b, cond, lit1, lit2) ((cond) ? shc_jw_raw(b, lit1) : shc_jw_raw(b, lit2))

#endif
