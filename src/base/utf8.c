#include "base/utf8.h"


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
