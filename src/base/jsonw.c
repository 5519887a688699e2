#include "base/jsonw.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

/* Strings are written in chunks of this many input bytes, each into room reserved for its worst
 * case (6 output bytes per input byte: a control character or an invalid byte as \uXXXX). */
enum { CHUNK = 4096, SLACK = 16 };

static const char hex[] = "0123456789ABCDEF";

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

void shc_jw_int(shc_strbuf *b, long long v)
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
