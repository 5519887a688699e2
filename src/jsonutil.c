#include "jsonutil.h"

#include "utf8.h"

#include <stdlib.h>
#include <string.h>

size_t shc_utf8_seq(const unsigned char *s, size_t n)
{
    size_t adv;
    return shc_utf8_dec(s, n, &adv) == SHC_UTF8_OK ? adv : 0;
}

json_t *shc_json_str(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, adv;
    while (i < n && shc_utf8_dec(u + i, n - i, &adv) == SHC_UTF8_OK)
        i += adv;
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
