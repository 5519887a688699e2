/* stderr logging: one line per message, written with a single fprintf so lines don't tear. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    /* Messages quote client text (commands, method names, paths): one line each, whatever it
     * holds.  Control characters are escaped (no forged lines, no terminal escape sequences in
     * the editor's log view) and the length is capped. */
    char out[sizeof msg * 4 + 32];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02x", *p);
        else
            out[n++] = (char)*p;
    }
    out[n] = 0;
    if (full >= (int)sizeof msg)
        snprintf(out + n, sizeof out - n, "... (%d bytes)", full);
    fprintf(stderr, "%s: %s: %s\n", log && log->prefix ? log->prefix : "shcard",
            level_names[level], out);
}
