/* The fast reader of a --batch request line (see batch.h).  It accepts only the one shape every
 * client sends and leaves everything else, however valid, to jansson: a line it accepts must
 * decode to exactly the bytes jansson's json_loadb(JSON_ALLOW_NUL) gives for "cmd", which
 * fuzz/fuzz_batch.c checks. */
#include <stdint.h>
#include <string.h>

#include "base/json.h"
#include "cli/batch.h"

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hex4(const char *p, const char *e)
{
    if (e - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* Decodes the escapes of s[0..n) (a string body already checked for quotes and controls) into
 * scratch; false for an escape jansson would reject. */
static bool unescape(const char *s, size_t n, shc_strbuf *scratch, const char **cmd, size_t *cmdlen)
{
    scratch->n = 0;
    char *o0 = shc_strbuf_reserve(scratch, n); /* decoding never makes a string longer */
    if (!o0)
        return false;
    char *o = o0;
    const char *p = s, *e = s + n;
    while (p < e) {
        const char *bs = memchr(p, '\\', (size_t)(e - p));
        if (!bs) {
            memcpy(o, p, (size_t)(e - p));
            o += e - p;
            break;
        }
        memcpy(o, p, (size_t)(bs - p));
        o += bs - p;
        p = bs + 1;
        if (p >= e)
            return false;
        switch (*p++) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            int v = hex4(p, e);
            if (v < 0)
                return false;
            p += 4;
            uint32_t cp = (uint32_t)v;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return false; /* a low surrogate alone */
            if (cp >= 0xd800 && cp <= 0xdbff) {
                int lo = e - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, e) : -1;
                if (lo < 0xdc00 || lo > 0xdfff)
                    return false; /* a high surrogate without its low half */
                p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
            }
            o = put_utf8(o, cp); /* \uXXXX is 6 bytes, at most 3 out; a pair 12, 4 out */
            break;
        }
        default: return false;
        }
    }
    shc_strbuf_commit(scratch, (size_t)(o - o0));
    *cmd = scratch->p;
    *cmdlen = scratch->n;
    return true;
}

bool shc__batch_request(
    const char *line, size_t len, shc_strbuf *scratch, const char **cmd, size_t *cmdlen)
{
    const char *p = line, *e = line + len;
    p = skip_ws(p, e);
    if (p == e || *p != '{')
        return false;
    p = skip_ws(p + 1, e);
    if (e - p < 5 || memcmp(p, "\"cmd\"", 5) != 0)
        return false;
    p = skip_ws(p + 5, e);
    if (p == e || *p != ':')
        return false;
    p = skip_ws(p + 1, e);
    if (p == e || *p != '"')
        return false;
    const char *s = ++p;
    bool escapes = false;
    /* eight bytes at a time while none is '"', '\\' or a control character */
    while (e - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
        if ((((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x & highs) != 0)
            break;
        p += 8;
    }
    while (p < e && *p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20)
            return false; /* jansson: "control character in string" */
        if (c == '\\') {
            escapes = true;
            p++; /* the escaped byte (checked by unescape) cannot end the string */
        }
        p++;
    }
    if (p >= e)
        return false;
    const char *q = p;
    p = skip_ws(p + 1, e);
    if (p == e || *p != '}')
        return false;
    if (skip_ws(p + 1, e) != e)
        return false;
    size_t n = (size_t)(q - s);
    if (!shc_utf8_valid(s, n)) /* escapes are ASCII: the raw bytes must be valid UTF-8 */
        return false;
    if (!escapes) {
        *cmd = s;
        *cmdlen = n;
        return true;
    }
    return unescape(s, n, scratch, cmd, cmdlen);
}
