/* The verdict as JSON without jansson: the bytes `shcard explain --json` prints (jansson's
 * compact, ASCII-only, insertion-ordered form of shc_verdict_json_n, verdict_jansson.c), written
 * in one pass.  The library and the WebAssembly build use this one; tests/test_verdict_json.c
 * and the bindings' suites hold the two byte-identical. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "shcard.h"

static const char hex[] = "0123456789ABCDEF";

/* The output is written into one allocation sized from the strings' lengths: a byte becomes at
 * most 6 output bytes (a control byte as \u00XX; a 4-byte character as two 6-byte escapes). */
#define WORST 6u

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

/* The code point of a valid sequence of n bytes. */
static unsigned decode(const unsigned char *s, size_t n)
{
    switch (n) {
    case 1: return s[0];
    case 2: return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
    case 3: return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
    default:
        return ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
               (s[3] & 0x3Fu);
    }
}

/* Bytes that are copied as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain[256] = {
#define R4(x) x, x, x, x
#define R16(x) R4(x), R4(x), R4(x), R4(x)
    R16(0), R16(0),                             /* 0x00-0x1f: controls */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20-0x2f: '"' escaped */
    R16(1), R16(1),                             /* 0x30-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50-0x5f: '\\' escaped */
    R16(1), R16(1),                             /* 0x60-0x7f (DEL as it is, like jansson) */
    /* 0x80-0xff: 0 */
#undef R16
#undef R4
};

/* A JSON string for s[0..n): '"', '\\' and controls escaped as jansson does (\b \f \n \r \t,
 * else \u00XX), everything past ASCII as \uXXXX (a surrogate pair past U+FFFF), each maximal
 * invalid UTF-8 subpart as \uFFFD (shc_json_str's cleaning, then JSON_ENSURE_ASCII).  Writes at
 * most 2 + WORST * n bytes. */
static char *put_str(char *o, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, adv;
    *o++ = '"';
    while (i < n) {
        size_t run = i;
        while (i < n && plain[u[i]])
            i++;
        memcpy(o, s + run, i - run);
        o += i - run;
        if (i == n)
            break;
        unsigned char c = u[i];
        if (c < 0x80) {
            char e = 0;
            switch (c) {
            case '"': e = '"'; break;
            case '\\': e = '\\'; break;
            case '\b': e = 'b'; break;
            case '\f': e = 'f'; break;
            case '\n': e = 'n'; break;
            case '\r': e = 'r'; break;
            case '\t': e = 't'; break;
            default: break;
            }
            if (e) {
                *o++ = '\\';
                *o++ = e;
            } else {
                o = put_u(o, c);
            }
            adv = 1;
        } else if (shc_utf8_dec(u + i, n - i, &adv) == SHC_UTF8_OK) {
            unsigned cp = decode(u + i, adv);
            if (cp < 0x10000) {
                o = put_u(o, cp);
            } else {
                cp -= 0x10000;
                o = put_u(o, 0xD800u | (cp >> 10));
                o = put_u(o, 0xDC00u | (cp & 0x3FFu));
            }
        } else {
            o = put_u(o, 0xFFFDu);
        }
        i += adv;
    }
    *o++ = '"';
    return o;
}

static size_t cstr_len(const char *s)
{
    return s ? strlen(s) : 0;
}

static char *put_cstr(char *o, const char *s)
{
    if (s)
        return put_str(o, s, strlen(s));
    memcpy(o, "null", 4);
    return o + 4;
}

static char *put_lit(char *o, const char *lit)
{
    size_t n = strlen(lit);
    memcpy(o, lit, n);
    return o + n;
}

static char *put_long(char *o, long long x)
{
    char num[24];
    int k = snprintf(num, sizeof num, "%lld", x);
    memcpy(o, num, (size_t)k);
    return o + k;
}

static char *put_line(char *o, long line)
{
    return line > 0 ? put_long(o, line) : put_lit(o, "null");
}

char *shc_verdict_to_json(const shc_verdict *v, const char *cmd, size_t len, size_t *out_len)
{
    /* the bound: every string at its worst, plus keys, numbers and punctuation */
    size_t strs = (cmd ? len : cstr_len(v->script)) + cstr_len(v->title) + cstr_len(v->path) +
                  cstr_len(v->query) + cstr_len(v->reason) + cstr_len(v->script);
    size_t items = 16 + v->nlocations + (v->argv ? v->argc : 0);
    for (size_t i = 0; i < v->nlocations; i++)
        strs += cstr_len(v->locations[i].path);
    for (size_t i = 0; v->argv && i < v->argc; i++)
        strs += cstr_len(v->argv[i]);
    if (strs > (SIZE_MAX - 64 * items - 256) / WORST)
        return NULL;
    char *buf = malloc(WORST * strs + 64 * items + 256);
    if (!buf)
        return NULL;
    char *o = put_lit(buf, "{\"cmd\":");
    o = cmd ? put_str(o, cmd, len) : put_cstr(o, v->script);
    o = put_lit(o, ",\"kind\":\"");
    o = put_lit(o, shc_kind_name(v->kind));
    o = put_lit(o, "\",\"title\":");
    o = put_cstr(o, v->title);
    o = put_lit(o, ",\"path\":");
    o = put_cstr(o, v->path);
    o = put_lit(o, ",\"query\":");
    o = put_cstr(o, v->query);
    o = put_lit(o, ",\"line\":");
    o = put_line(o, v->line);
    o = put_lit(o, ",\"locations\":[");
    for (size_t i = 0; i < v->nlocations; i++) {
        o = put_lit(o, i ? ",{\"path\":" : "{\"path\":");
        o = put_cstr(o, v->locations[i].path);
        o = put_lit(o, ",\"line\":");
        o = put_line(o, v->locations[i].line);
        *o++ = '}';
    }
    o = put_lit(o, "],\"reason\":");
    o = put_cstr(o, v->reason);
    o = put_lit(o, ",\"span\":{\"start\":");
    o = put_long(o, v->reason_span.start);
    o = put_lit(o, ",\"end\":");
    o = put_long(o, v->reason_span.end);
    o = put_lit(o, "},\"script\":");
    o = put_cstr(o, v->script);
    o = put_lit(o, v->wrapped ? ",\"wrapped\":true" : ",\"wrapped\":false");
    o = put_lit(o, ",\"argv\":");
    if (v->argv) {
        *o++ = '[';
        for (size_t i = 0; i < v->argc; i++) {
            if (i)
                *o++ = ',';
            o = put_cstr(o, v->argv[i]);
        }
        *o++ = ']';
    } else {
        o = put_lit(o, "null");
    }
    *o++ = '}';
    *o = '\0';
    if (out_len)
        *out_len = (size_t)(o - buf);
    return buf;
}

void shc_free(void *p)
{
    free(p);
}
