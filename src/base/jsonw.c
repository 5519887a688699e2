#include "base/jsonw.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/utf8.h"

/* Strings are written in chunks of this many input bytes, each into room reserved for its worst
 * case (6 output bytes per input byte: a control character or an invalid byte as \uXXXX). */
enum { CHUNK = 4096, SLACK = 16 };

static const char hex[] = "0123456789ABCDEF";

/* Whether any of the 8 bytes in x needs more than a copy: a control character, '"', '\\' or a
 * byte of a non-ASCII character (a false positive would only send the bytes the slow way). */
static inline bool special8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t q = x ^ (ones * '"'), s = x ^ (ones * '\\');
    uint64_t lt20 = (x - ones * 0x20) & ~x;
    uint64_t zq = (q - ones) & ~q, zs = (s - ones) & ~s;
    return ((lt20 | zq | zs | x) & highs) != 0;
}

/* Whether s[0..n) is all bytes that are copied as they are (the common case: one pass, then
 * one copy).  */
static bool all_plain(const unsigned char *u, size_t n)
{
    size_t i = 0;
    uint64_t x;
#ifdef __SSE2__
    /* 16 bytes a step: as signed bytes, < 0x20 is a control character or a non-ASCII byte */
    const __m128i sp = _mm_set1_epi8(0x20), q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
        __m128i m = _mm_or_si128(_mm_cmplt_epi8(v, sp),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
        if (_mm_movemask_epi8(m))
            return false;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, u + i, 8);
        if (special8(x))
            return false;
    }
    for (; i < n; i++) /* the tail, a byte at a time (a short memcpy would be a call) */
        if (u[i] < 0x20 || u[i] >= 0x80 || u[i] == '"' || u[i] == '\\')
            return false;
    return true;
}

static char *put_u(char *o, unsigned cp)
{
    o[0] = '\\';
    o[1] = 'u';
    o[2] = hex[(cp >> 12) & 15];
    o[3] = hex[(cp >> 8) & 15];
    o[4] = hex[(cp >> 4) & 15];
    o[5] = hex[cp & 15];
    return o + 6;
}

static char *put_ctl(char *o, unsigned char c)
{
    char e = 0;
    switch (c) {
    case '"': e = '"'; break;
    case '\\': e = '\\'; break;
    case '\b': e = 'b'; break;
    case '\f': e = 'f'; break;
    case '\n': e = 'n'; break;
    case '\r': e = 'r'; break;
    case '\t': e = 't'; break;
    default: return put_u(o, c);
    }
    o[0] = '\\';
    o[1] = e;
    return o + 2;
}

/* The code point of a valid sequence of adv bytes. */
static unsigned code_point(const unsigned char *u, size_t adv)
{
    switch (adv) {
    case 2: return (u[0] & 0x1fu) << 6 | (u[1] & 0x3fu);
    case 3: return (u[0] & 0x0fu) << 12 | (u[1] & 0x3fu) << 6 | (u[2] & 0x3fu);
    default:
        return (u[0] & 0x07u) << 18 | (u[1] & 0x3fu) << 12 | (u[2] & 0x3fu) << 6 | (u[3] & 0x3fu);
    }
}

void shc_jw_str(shc_strbuf *b, const char *s, size_t n, unsigned flags)
{
    const unsigned char *u = (const unsigned char *)s;
    bool ascii = (flags & SHC_JW_ASCII) != 0;
    if (n <= 8) { /* short (most words): check and copy in one pass, no call */
        char *o = shc_strbuf_reserve(b, n + 2);
        if (!o)
            return;
        size_t i = 0;
        for (; i < n; i++) {
            unsigned char c = u[i];
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                break;
            o[i + 1] = (char)c;
        }
        if (i == n) {
            o[0] = '"';
            o[n + 1] = '"';
            shc_strbuf_commit(b, n + 2);
            return;
        } /* else nothing is committed: the general path below writes it */
    }
    if (n <= CHUNK && all_plain(u, n)) {
        char *o = shc_strbuf_reserve(b, n + 2);
        if (!o)
            return;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        shc_strbuf_commit(b, n + 2);
        return;
    }
    size_t i = 0;
    do {
        size_t end = n - i > CHUNK ? i + CHUNK : n;
        char *o0 = shc_strbuf_reserve(b, (end - i) * 6 + SLACK);
        if (!o0)
            return;
        char *o = o0;
        if (i == 0)
            *o++ = '"';
        while (i < end) {
            size_t run = i;
            while (run + 8 <= end) {
                uint64_t x;
                memcpy(&x, u + run, 8);
                if (special8(x))
                    break;
                run += 8;
            }
            if (run > i) {
                memcpy(o, u + i, run - i);
                o += run - i;
                i = run;
                if (i >= end)
                    break;
            }
            unsigned char c = u[i];
            if (c < 0x80) {
                if (c >= 0x20 && c != '"' && c != '\\')
                    *o++ = (char)c;
                else
                    o = put_ctl(o, c);
                i++;
                continue;
            }
            size_t adv;
            if (shc_utf8_dec(u + i, n - i, &adv) != SHC_UTF8_OK) {
                if (ascii)
                    o = put_u(o, 0xfffd);
                else {
                    memcpy(o, "\xEF\xBF\xBD", 3);
                    o += 3;
                }
            } else if (!ascii) {
                memcpy(o, u + i, adv);
                o += adv;
            } else {
                unsigned cp = code_point(u + i, adv);
                if (cp >= 0x10000) {
                    cp -= 0x10000;
                    o = put_u(o, 0xd800 | (cp >> 10));
                    o = put_u(o, 0xdc00 | (cp & 0x3ff));
                } else {
                    o = put_u(o, cp);
                }
            }
            i += adv;
        }
        if (i >= n)
            *o++ = '"';
        shc_strbuf_commit(b, (size_t)(o - o0));
    } while (i < n);
}

void shc_jw_cstr(shc_strbuf *b, const char *s, unsigned flags)
{
    if (s)
        shc_jw_str(b, s, strlen(s), flags);
    else
        shc_jw_raw(b, "null");
}

void shc__jw_int(shc_strbuf *b, long long v)
{
    char buf[24], *e = buf + sizeof buf, *p = e;
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0)
        *--p = '-';
    shc_strbuf_put(b, p, (size_t)(e - p));
}
