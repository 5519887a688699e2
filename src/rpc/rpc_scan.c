/* The tolerant pre-scan of one JSON-RPC line (rpc_scan.h).  It never allocates and never
 * recurses: it tracks string state, nesting, and at depth 1 which member it is in. */
#include "rpc/rpc_scan.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool key_is(const char *k, size_t n, const char *want)
{
    return n == strlen(want) && !memcmp(k, want, n);
}

void shc__rpc_scan(const char *p, size_t n, shc_rpc_scan *sc)
{
    memset(sc, 0, sizeof *sc);
    size_t i = 0, depth = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
        i++;
    sc->object = i < n && p[i] == '{';
    bool in_str = false, esc = false;
    bool expect_key = false; /* depth 1 of the top object: the next string is a key */
    bool in_key = false, id_next = false, in_id = false;
    size_t tok = 0; /* start of the current key or id token */
    const char *key = NULL;
    size_t key_len = 0;
    for (; i < n; i++) {
        char c = p[i];
        if (in_str) {
            if (esc) {
                esc = false;
            } else if (c == '\\') {
                esc = true;
            } else if (c == '"') {
                in_str = false;
                if (in_key) {
                    in_key = false;
                    key = p + tok + 1;
                    key_len = i - tok - 1;
                } else if (in_id) {
                    in_id = false;
                    sc->id_len = i + 1 - tok;
                    sc->id_complete = true;
                }
            }
            continue;
        }
        if (in_id && depth == 1 && (c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r')) {
            in_id = false; /* a number or literal ends */
            sc->id_len = i - tok;
            sc->id_complete = true;
        }
        switch (c) {
        case '"':
            in_str = true;
            if (depth == 1 && sc->object && expect_key) {
                in_key = true;
                expect_key = false;
                tok = i;
            } else if (id_next) {
                id_next = false;
                in_id = true;
                tok = i;
                sc->id = p + i;
                sc->id_complete = false;
            }
            break;
        case '{':
        case '[':
            sc->structural++;
            if (++depth > sc->depth)
                sc->depth = depth;
            if (id_next) { /* an object or array as id: unusable */
                id_next = false;
                sc->id = p + i;
                sc->id_len = 1;
                sc->id_complete = true;
            }
            if (depth == 1 && c == '{')
                expect_key = sc->object;
            break;
        case '}':
        case ']':
            if (depth)
                depth--;
            break;
        case ',':
            sc->structural++;
            if (depth == 1)
                expect_key = sc->object;
            break;
        case ':':
            sc->structural++;
            if (depth == 1 && key) {
                if (key_is(key, key_len, "id"))
                    id_next = true;
                else if (key_is(key, key_len, "method"))
                    sc->has_method = true;
                else if (key_is(key, key_len, "result") || key_is(key, key_len, "error"))
                    sc->has_reply = true;
                key = NULL;
            }
            break;
        case ' ':
        case '\t':
        case '\r':
        case '\n':
            break;
        default:
            if (id_next) { /* a number or a literal */
                id_next = false;
                in_id = true;
                tok = i;
                sc->id = p + i;
                sc->id_complete = false;
            }
            break;
        }
    }
    if (in_id && !in_str) { /* a number at the very end (the line is broken anyway) */
        sc->id_len = n - tok;
        sc->id_complete = true;
    }
}

/* The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s, size_t n, bool *integral)
{
    size_t i = 0;
    *integral = true;
    if (i < n && s[i] == '-')
        i++;
    if (i == n)
        return false;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return false;
    if (i < n && s[i] == '.') {
        *integral = false;
        if (++i == n || s[i] < '0' || s[i] > '9')
            return false;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *integral = false;
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i == n || s[i] < '0' || s[i] > '9')
            return false;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return i == n;
}

shc_rpc_idkind shc__rpc_scan_id(const shc_rpc_scan *sc, json_t **value)
{
    *value = NULL;
    if (!sc->id)
        return SHC_RPC_ID_NONE;
    if (!sc->id_complete || sc->id_len == 0)
        return SHC_RPC_ID_INVALID;
    const char *s = sc->id;
    size_t n = sc->id_len;
    if (s[0] == '"') {
        json_error_t e;
        json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        if (json_is_string(v)) {
            *value = v;
            return SHC_RPC_ID_VALUE;
        }
        json_decref(v);
        return SHC_RPC_ID_INVALID; /* e.g. invalid UTF-8 inside: it cannot be echoed */
    }
    if (n == 4 && !memcmp(s, "null", 4)) {
        *value = json_null();
        return SHC_RPC_ID_VALUE;
    }
    bool integral;
    if (!json_number(s, n, &integral))
        return SHC_RPC_ID_INVALID;
    if (n > 64)
        return SHC_RPC_ID_INVALID; /* valid, but too long to be worth echoing */
    if (integral) {
        char buf[72];
        memcpy(buf, s, n);
        buf[n] = 0;
        errno = 0;
        char *end;
        long long v = strtoll(buf, &end, 10);
        if (errno == 0 && *end == 0) {
            *value = json_integer((json_int_t)v);
            return *value ? SHC_RPC_ID_VALUE : SHC_RPC_ID_INVALID;
        }
    }
    return SHC_RPC_ID_NUMBER;
}

/* Where the first complete object or array of s[0..n) ends (just past its closing bracket), or
 * n when s does not start with one, it does not end inside s, its brackets do not match or it
 * nests deeper than 65 levels (the parser accepts 64). */
size_t shc__rpc_value_end(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    if (i == n || (s[i] != '{' && s[i] != '['))
        return n;
    char open[64 + 1];
    size_t depth = 0;
    bool str = false;
    for (; i < n; i++) {
        char c = s[i];
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{' || c == '[') {
            if (depth == sizeof open)
                return n;
            open[depth++] = c;
        } else if (c == '}' || c == ']') {
            if (!depth || open[depth - 1] != (c == '}' ? '{' : '['))
                return n;
            if (--depth == 0)
                return i + 1;
        }
    }
    return n;
}
