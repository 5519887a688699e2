#include "base/json.h"

#include "base/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t shc_utf8_seq(const unsigned char *s, size_t n)
{
    size_t adv;
    return shc_utf8_dec(s, n, &adv) == SHC_UTF8_OK ? adv : 0;
}

/* Length of the valid UTF-8 prefix of u[0..n): ASCII eight bytes at a time, the rest through
 * the decoder. */
static size_t valid_prefix(const unsigned char *u, size_t n)
{
    size_t i = 0, adv;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t x;
            memcpy(&x, u + i, 8);
            if ((x & 0x8080808080808080u) == 0) {
                i += 8;
                continue;
            }
        }
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        if (shc_utf8_dec(u + i, n - i, &adv) != SHC_UTF8_OK)
            break;
        i += adv;
    }
    return i;
}

bool shc_utf8_valid(const char *s, size_t n)
{
    return valid_prefix((const unsigned char *)s, n) == n;
}

json_t *shc_json_str(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = valid_prefix(u, n), adv;
    if (i == n)
        return json_stringn_nocheck(s, n);
    /* invalid or cut-off bytes: each maximal invalid subpart becomes one U+FFFD (3 bytes) */
    char *buf = malloc(n * 3 + 1);
    if (!buf)
        return NULL;
    size_t o = 0;
    for (i = 0; i < n; i += adv) {
        if (shc_utf8_dec(u + i, n - i, &adv) == SHC_UTF8_OK) {
            memcpy(buf + o, s + i, adv);
            o += adv;
        } else {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
        }
    }
    json_t *j = json_stringn_nocheck(buf, o);
    free(buf);
    return j;
}

json_t *shc_json_cstr(const char *s)
{
    return s ? shc_json_str(s, strlen(s)) : json_null();
}

/* Bytes that need an escape inside a JSON string: controls, '"' and '\\'. */
static const unsigned char needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

static int write_string(const char *s, size_t n, shc_json_put_fn put, void *ctx)
{
    if (put("\"", 1, ctx))
        return -1;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        /* eight bytes at a time while none is a control character, '"' or '\\' (terminal
         * output streams through here in chunks of kilobytes) */
        while (i + 8 <= n) {
            uint64_t x;
            memcpy(&x, s + i, 8);
            const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
            uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
            if ((((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x & highs) != 0)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned char c = (unsigned char)s[i];
        if (!needs_escape[c])
            continue;
        if (i > run && put(s + run, i - run, ctx))
            return -1;
        char esc[8];
        size_t k = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            k = 6;
            break;
        }
        if (put(esc, k, ctx))
            return -1;
        run = i + 1;
    }
    if (n > run && put(s + run, n - run, ctx))
        return -1;
    return put("\"", 1, ctx);
}

int shc_json_write(const json_t *j, shc_json_put_fn put, void *ctx)
{
    char num[64];
    int k;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *v;
        bool first = true;
        if (put("{", 1, ctx))
            return -1;
        json_object_foreach((json_t *)(uintptr_t)j, key, v)
        {
            if ((!first && put(",", 1, ctx)) || write_string(key, strlen(key), put, ctx) ||
                put(":", 1, ctx) || shc_json_write(v, put, ctx))
                return -1;
            first = false;
        }
        return put("}", 1, ctx);
    }
    case JSON_ARRAY: {
        if (put("[", 1, ctx))
            return -1;
        for (size_t i = 0; i < json_array_size(j); i++)
            if ((i && put(",", 1, ctx)) || shc_json_write(json_array_get(j, i), put, ctx))
                return -1;
        return put("]", 1, ctx);
    }
    case JSON_STRING: return write_string(json_string_value(j), json_string_length(j), put, ctx);
    case JSON_INTEGER:
        k = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        return put(num, (size_t)k, ctx);
    case JSON_REAL:
        k = snprintf(num, sizeof num, "%.17g", json_real_value(j));
        if (!strpbrk(num, ".eE") && k + 2 < (int)sizeof num) {
            memcpy(num + k, ".0", 3); /* keep it a real, as jansson does */
            k += 2;
        }
        return put(num, (size_t)k, ctx);
    case JSON_TRUE: return put("true", 4, ctx);
    case JSON_FALSE: return put("false", 5, ctx);
    case JSON_NULL: return put("null", 4, ctx);
    }
    return -1;
}

/* ------------------------------------------------------------------ allocation failures */

/* jansson's hook is process-wide, so its state is too (one thread parses).  jansson 2.14 goes
 * on after a failed allocation inside a string (the byte is dropped, and every later byte tries
 * a large allocation again): the result is a truncated value or a misleading syntax error, and
 * millions of failing malloc calls.  Inside a guarded window the first failure makes every
 * later allocation fail at once, and the window reports it. */
static _Thread_local struct {
    bool armed, failed;
} jmem;

static void *guarded_malloc(size_t n)
{
    if (jmem.armed && jmem.failed)
        return NULL;
    void *p = malloc(n);
    if (!p)
        jmem.failed = true;
    return p;
}

void shc_json_guard_install(void)
{
    json_set_alloc_funcs(guarded_malloc, free);
}

void shc_json_guard_begin(void)
{
    jmem.armed = true;
    jmem.failed = false;
}

bool shc_json_guard_end(void)
{
    bool failed = jmem.failed;
    jmem.armed = false;
    jmem.failed = false;
    return failed;
}

json_t *shc_json_load_guarded(const char *buf, size_t len, size_t flags, json_error_t *jerr,
                              bool *oom)
{
    shc_json_guard_begin();
    json_t *v = json_loadb(buf, len, flags, jerr);
    *oom = shc_json_guard_end();
    if (*oom) {
        json_decref(v); /* perhaps a truncated string: never acted upon */
        v = NULL;
    }
    return v;
}
