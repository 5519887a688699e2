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
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s: %s\n", log && log->prefix ? log->prefix : "shcard",
            level_names[level], msg);
}
