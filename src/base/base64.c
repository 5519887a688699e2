/* RFC 4648 section 4 base64. */
#include "base/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t shc_base64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void shc_base64_encode(const void *in, size_t n, char *out)
{
    const unsigned char *p = in;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = '=';
        *out++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = '=';
    }
    *out = 0;
}

char *shc_base64(const void *in, size_t n)
{
    if (n > (SIZE_MAX - 4) / 4 * 3)
        return NULL;
    char *out = malloc(shc_base64_len(n) + 1);
    if (out)
        shc_base64_encode(in, n, out);
    return out;
}
