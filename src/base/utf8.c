#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>


int shc_utf8_dec(const unsigned char *s, size_t n, size_t *adv)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;
    if (c < 0x80) {
        *adv = 1;
        return SHC_UTF8_OK;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;
    } else {
        *adv = 1;
        return SHC_UTF8_BAD;
    }
    for (size_t i = 1; i < len; i++) {
        if (i >= n) {
            *adv = i;
            return SHC_UTF8_SHORT;
        }
        unsigned b = s[i];
        unsigned l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xbf;
        if (b < l || b > h) {
            *adv = i;
            return SHC_UTF8_BAD;
        }
    }
    *adv = len;
    return SHC_UTF8_OK;
}

size_t shc_utf8_cut(char *dst, const char *s, size_t n, size_t max)
{
    static const char fffd[] = "\xEF\xBF\xBD";
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0, adv; i < n; i += adv) {
        int r = shc_utf8_dec(u + i, n - i, &adv);
        const char *from = s + i;
        size_t len = adv;
        if (r != SHC_UTF8_OK || u[i] == 0) {
            from = fffd;
            len = 3;
        }
        if (len > max - o)
            break;
        if (dst)
            memcpy(dst + o, from, len);
        o += len;
    }
    if (dst)
        dst[o] = '\0';
    return o;
}

char *shc_utf8_dup(const char *s, size_t n, size_t max)
{
    if (!s)
        s = "", n = 0;
    size_t len = shc_utf8_cut(NULL, s, n, max); /* counted first: allocated to the byte */
    char *out = malloc(len + 1);
    if (out)
        shc_utf8_cut(out, s, n, len);
    return out;
}
