/* stderr logging: one line per message, written with a single fprintf so lines don't tear. */
#include "base/log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "shcard.h"

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int shc_log_parse_level(shc_log_level *out, const char *s)
{
    if (!s)
        return SHC_E_USAGE;
    for (int i = 0; i < 4; i++) {
        char digit[2] = {(char)('0' + i), 0};
        if (!strcmp(s, level_names[i]) || !strcmp(s, digit)) {
            *out = (shc_log_level)i;
            return 0;
        }
    }
    if (!strcmp(s, "warning")) {
        *out = SHC_LOG_WARN;
        return 0;
    }
    return SHC_E_USAGE;
}

/* The code point of a valid sequence of adv bytes. */
static unsigned utf8_cp(const unsigned char *p, size_t adv)
{
    if (adv == 1)
        return p[0];
    unsigned cp = p[0] & (0x7f >> adv);
    for (size_t k = 1; k < adv; k++)
        cp = (cp << 6) | (p[k] & 0x3f);
    return cp;
}

/* A code point a log line shows escaped: C1 controls, line and paragraph separators, and the
 * format characters (Unicode category Cf: bidi controls, zero-width characters, tags...) that
 * change how the rest of a line reads without being seen. */
static bool log_unsafe(unsigned cp)
{
    static const unsigned ranges[][2] = {
        {0x80, 0x9f},     {0xad, 0xad},       {0x600, 0x605},   {0x61c, 0x61c},
        {0x6dd, 0x6dd},   {0x70f, 0x70f},     {0x890, 0x891},   {0x8e2, 0x8e2},
        {0x180e, 0x180e}, {0x200b, 0x200f},   {0x2028, 0x202e}, {0x2060, 0x2064},
        {0x2066, 0x206f}, {0xfeff, 0xfeff},   {0xfff9, 0xfffb}, {0x110bd, 0x110bd},
        {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
        {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1])
            return true;
    return false;
}

void shc_log_msg(const shc_log *log, shc_log_level level, const char *fmt, ...)
{
    shc_log_level max = log ? log->level : SHC_LOG_WARN;
    if (level > max)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int full = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Messages quote client and server text (commands, method names, paths, a server's
     * stderr): one line each, whatever it holds.  Escaped by code point (log_unsafe): no forged
     * lines, no terminal escape sequences, no text reordered in the editor's log view; invalid
     * UTF-8 bytes as \\xHH.  The length is capped. */
    char out[sizeof msg * 4 + 32];
    size_t n = 0, len = strlen(msg);
    for (size_t i = 0; i < len;) {
        size_t adv = 1;
        const unsigned char *p = (const unsigned char *)msg + i;
        int r = shc_utf8_dec(p, len - i, &adv);
        unsigned cp = r == SHC_UTF8_OK ? utf8_cp(p, adv) : 0;
        if (r != SHC_UTF8_OK) {
            for (size_t k = 0; k < adv; k++) /* each byte of the invalid or cut sequence */
                n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02x", p[k]);
        } else if (adv == 1 && (*p < 0x20 || *p == 0x7f)) {
            n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02x", *p);
        } else if (log_unsafe(cp)) {
            n += (size_t)snprintf(out + n, sizeof out - n, cp > 0xffff ? "\\U%08x" : "\\u%04x",
                                  cp);
        } else {
            memcpy(out + n, p, adv);
            n += adv;
        }
        i += adv;
    }
    out[n] = 0;
    if (full >= (int)sizeof msg)
        snprintf(out + n, sizeof out - n, "... (%d bytes)", full);
    fprintf(stderr, "%s: %s: %s\n", log && log->prefix ? log->prefix : "shcard",
            level_names[level], out);
}
