#include "jsonutil.h"

#include <stdlib.h>
#include <string.h>

size_t shc_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

json_t *shc_json_str(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k = shc_utf8_seq(u + i, n - i);
        if (k == 0)
            break;
        i += k;
    }
    if (i == n)
        return json_stringn_nocheck(s, n);
    /* invalid bytes: each becomes U+FFFD (3 bytes) */
    char *buf = malloc(n * 3 + 1);
    if (!buf)
        return NULL;
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t k = shc_utf8_seq(u + i, n - i);
        if (k == 0) {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(buf + o, s + i, k);
            o += k;
            i += k;
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
