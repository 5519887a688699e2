#include "classify/verdict_write.h"

#include <string.h>

static void line_or_null(shc_strbuf *b, long line)
{
    if (line > 0)
        shc_jw_int(b, line);
    else
        shc_jw_raw(b, "null");
}

void shc_verdict_write(
    shc_strbuf *b, const shc_verdict *v, const char *cmd, size_t len, unsigned flags)
{
    shc_jw_raw(b, "{\"cmd\":");
    size_t cmd_at = b->n;
    if (cmd)
        shc_jw_str(b, cmd, len, flags);
    else
        shc_jw_cstr(b, v->script, flags);
    size_t cmd_end = b->n;
    shc_jw_raw(b, ",\"kind\":\"");
    shc_strbuf_puts(b, shc_kind_name(v->kind));
    shc_jw_raw(b, "\",\"title\":");
    shc_jw_cstr(b, v->title, flags);
    shc_jw_raw(b, ",\"path\":");
    shc_jw_cstr(b, v->path, flags);
    shc_jw_raw(b, ",\"query\":");
    shc_jw_cstr(b, v->query, flags);
    shc_jw_raw(b, ",\"line\":");
    line_or_null(b, v->line);
    shc_jw_raw(b, ",\"locations\":[");
    for (size_t i = 0; i < v->nlocations; i++) {
        shc_jw_pick(b, i, ",{\"path\":", "{\"path\":");
        shc_jw_cstr(b, v->locations[i].path, flags);
        shc_jw_raw(b, ",\"line\":");
        line_or_null(b, v->locations[i].line);
        shc_strbuf_putc(b, '}');
    }
    shc_jw_raw(b, "],\"reason\":");
    shc_jw_cstr(b, v->reason, flags);
    shc_jw_raw(b, ",\"span\":{\"start\":");
    shc_jw_int(b, v->reason_span.start);
    shc_jw_raw(b, ",\"end\":");
    shc_jw_int(b, v->reason_span.end);
    shc_jw_raw(b, "},\"script\":");
    size_t sn = strlen(v->script);
    if ((!cmd || (sn == len && !memcmp(v->script, cmd, len))) && !b->err)
        shc_strbuf_repeat(b, cmd_at, cmd_end); /* the script is the command (not wrapped): once escaped */
    else
        shc_jw_str(b, v->script, sn, flags);
    if (v->wrapped)
        shc_jw_raw(b, ",\"wrapped\":true,\"argv\":");
    else
        shc_jw_raw(b, ",\"wrapped\":false,\"argv\":");
    if (v->argv) {
        shc_strbuf_putc(b, '[');
        for (size_t i = 0; i < v->argc; i++) {
            if (i)
                shc_strbuf_putc(b, ',');
            shc_jw_cstr(b, v->argv[i], flags);
        }
        shc_jw_raw(b, "]}");
    } else {
        shc_jw_raw(b, "null}");
    }
}
