/* The verdict as JSON without jansson: the bytes `shcard explain --json` prints (jansson's
 * compact, ASCII-only, insertion-ordered form of shc_verdict_json_n, verdict_jansson.c), written
 * in one pass.  The library and the WebAssembly build use this one; tests/test_verdict_json.c
 * and the bindings' suites hold the two byte-identical. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/utf8.h"
#include "shcard.h"

static const char hex[] = "0123456789ABCDEF";

static void put_u(shc_strbuf *b, unsigned cp)
{
    char e[6] = {'\\', 'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
                 hex[cp & 15]};
    shc_strbuf_put(b, e, sizeof e);
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

/* A JSON string for s[0..n): '"', '\\' and controls escaped as jansson does (\b \f \n \r \t,
 * else \u00XX), everything past ASCII as \uXXXX (a surrogate pair past U+FFFF), each maximal
 * invalid UTF-8 subpart as \uFFFD (shc_json_str's cleaning, then JSON_ENSURE_ASCII). */
static void put_str(shc_strbuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0, i = 0, adv;
    shc_strbuf_putc(b, '"');
    while (i < n) {
        unsigned char c = u[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (i > run)
            shc_strbuf_put(b, s + run, i - run);
        if (c < 0x80) {
            const char *esc = NULL;
            switch (c) {
            case '"': esc = "\\\""; break;
            case '\\': esc = "\\\\"; break;
            case '\b': esc = "\\b"; break;
            case '\f': esc = "\\f"; break;
            case '\n': esc = "\\n"; break;
            case '\r': esc = "\\r"; break;
            case '\t': esc = "\\t"; break;
            default: break;
            }
            if (esc)
                shc_strbuf_put(b, esc, 2);
            else
                put_u(b, c);
            adv = 1;
        } else if (shc_utf8_dec(u + i, n - i, &adv) == SHC_UTF8_OK) {
            unsigned cp = decode(u + i, adv);
            if (cp < 0x10000) {
                put_u(b, cp);
            } else {
                cp -= 0x10000;
                put_u(b, 0xD800u | (cp >> 10));
                put_u(b, 0xDC00u | (cp & 0x3FFu));
            }
        } else {
            put_u(b, 0xFFFDu);
        }
        i += adv;
        run = i;
    }
    if (n > run)
        shc_strbuf_put(b, s + run, n - run);
    shc_strbuf_putc(b, '"');
}

static void put_cstr(shc_strbuf *b, const char *s)
{
    if (s)
        put_str(b, s, strlen(s));
    else
        shc_strbuf_put(b, "null", 4);
}

static void put_long(shc_strbuf *b, long long x)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%lld", x);
    shc_strbuf_put(b, num, (size_t)k);
}

static void put_line(shc_strbuf *b, long line)
{
    if (line > 0)
        put_long(b, line);
    else
        shc_strbuf_put(b, "null", 4);
}

#define KEY(b, k) shc_strbuf_put((b), k, sizeof k - 1)

char *shc_verdict_to_json(const shc_verdict *v, const char *cmd, size_t len, size_t *out_len)
{
    shc_strbuf b = {0};
    KEY(&b, "{\"cmd\":");
    if (cmd)
        put_str(&b, cmd, len);
    else
        put_cstr(&b, v->script);
    KEY(&b, ",\"kind\":\"");
    shc_strbuf_puts(&b, shc_kind_name(v->kind));
    KEY(&b, "\",\"title\":");
    put_cstr(&b, v->title);
    KEY(&b, ",\"path\":");
    put_cstr(&b, v->path);
    KEY(&b, ",\"query\":");
    put_cstr(&b, v->query);
    KEY(&b, ",\"line\":");
    put_line(&b, v->line);
    KEY(&b, ",\"locations\":[");
    for (size_t i = 0; i < v->nlocations; i++) {
        if (i)
            shc_strbuf_putc(&b, ',');
        KEY(&b, "{\"path\":");
        put_cstr(&b, v->locations[i].path);
        KEY(&b, ",\"line\":");
        put_line(&b, v->locations[i].line);
        shc_strbuf_putc(&b, '}');
    }
    KEY(&b, "],\"reason\":");
    put_cstr(&b, v->reason);
    KEY(&b, ",\"span\":{\"start\":");
    put_long(&b, v->reason_span.start);
    KEY(&b, ",\"end\":");
    put_long(&b, v->reason_span.end);
    KEY(&b, "},\"script\":");
    put_cstr(&b, v->script);
    KEY(&b, ",\"wrapped\":");
    if (v->wrapped)
        KEY(&b, "true");
    else
        KEY(&b, "false");
    KEY(&b, ",\"argv\":");
    if (v->argv) {
        shc_strbuf_putc(&b, '[');
        for (size_t i = 0; i < v->argc; i++) {
            if (i)
                shc_strbuf_putc(&b, ',');
            put_cstr(&b, v->argv[i]);
        }
        shc_strbuf_putc(&b, ']');
    } else {
        KEY(&b, "null");
    }
    shc_strbuf_putc(&b, '}');
    size_t n = b.n;
    char *s = shc_strbuf_take(&b);
    if (s && out_len)
        *out_len = n;
    return s;
}

void shc_free(void *p)
{
    free(p);
}
