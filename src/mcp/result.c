/* What the model sees of an MCP server (and the transports' formatted failure): its tools' function names (mcp__SERVER__TOOL,
 * sanitised and unique), their schemas (bounded), and a tools/call result as text. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "base/utf8.h"

/* What a result may take before the model backend cuts it to its own limit. */
#define RESULT_MAX ((size_t)1 << 20)

static void sanitise(char *p)
{
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            *p = '_';
    }
}

static bool taken_by(const char *name, mcp_tool **taken, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (taken[i] && taken[i]->fname && !strcmp(taken[i]->fname, name))
            return true;
    return false;
}

char *shc__mcp_fname(const char *server, const char *tool, mcp_tool **taken, size_t n)
{
    char base[SHC_MCP_NAME_MAX + 1];
    snprintf(base, sizeof base, "mcp__%s__%s", server, tool);
    sanitise(base);
    if (!taken_by(base, taken, n))
        return strdup(base);
    for (unsigned k = 2; k < 100000; k++) {
        char suffix[16], out[SHC_MCP_NAME_MAX + 1];
        int sl = snprintf(suffix, sizeof suffix, "_%u", k);
        size_t keep = strlen(base);
        if (keep + (size_t)sl > SHC_MCP_NAME_MAX)
            keep = SHC_MCP_NAME_MAX - (size_t)sl;
        snprintf(out, sizeof out, "%.*s%s", (int)keep, base, suffix);
        if (!taken_by(out, taken, n))
            return strdup(out);
    }
    return NULL;
}

void shc__mcp_vfmt(char *dst, size_t cap, const char *fmt, va_list ap)
{
    char raw[2400];
    int k = vsnprintf(raw, sizeof raw, fmt, ap);
    size_t n = k < 0 ? 0 : (size_t)k < sizeof raw ? (size_t)k : sizeof raw - 1;
    shc_utf8_cut(dst, raw, n, cap - 1);
}

void shc__mcp_up_fail(mcp_server *s, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    shc__mcp_vfmt(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->up->fail(s, msg);
}

static shc_mcp_budget *log_budget(mcp_server *s)
{
    return s->m->env.budget ? s->m->env.budget : &s->m->own;
}

void shc__mcp_log_flush(mcp_server *s)
{
    shc_mcp_budget *b = log_budget(s);
    if (b->log_dropped)
        shc_log_info(s->m->env.log,
                     "mcp: %zu MCP log lines dropped (more than %d a second from one server, or "
                     "%d lines or %zu KiB a second from all)",
                     b->log_dropped, SHC_MCP_LOG_RATE, SHC_MCP_LOG_LINES,
                     SHC_MCP_LOG_BYTES / 1024);
    b->log_dropped = 0;
}

void shc__mcp_log_line(mcp_server *s, const char *fmt, ...)
{
    uint64_t sec = shc_loop_now_ms() / 1000;
    shc_mcp_budget *b = log_budget(s);
    if (sec != b->log_window) { /* a new second for every server: the last one's drops said */
        shc__mcp_log_flush(s);
        b->log_window = sec;
        b->log_lines = b->log_bytes = 0;
    }
    if (sec != s->log_window) {
        s->log_window = sec;
        s->log_lines = 0;
    }
    if (s->log_lines >= SHC_MCP_LOG_RATE || b->log_lines >= SHC_MCP_LOG_LINES) {
        b->log_dropped++;
        return;
    }
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    shc__mcp_vfmt(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t cost = strlen(line) + strlen(s->name) + 32; /* the line as written, about */
    if (cost > SHC_MCP_LOG_BYTES - b->log_bytes) {
        b->log_dropped++;
        return;
    }
    s->log_lines++;
    b->log_lines++;
    b->log_bytes += cost;
    shc_log_info(s->m->env.log, "mcp %s: %s", s->name, line);
}

/* A server's text onto the result: valid UTF-8 (a NUL or an invalid byte one U+FFFD), cut at a
 * character boundary when the result is full. */
static void add(shc_strbuf *b, const char *s, size_t n)
{
    if (b->n > 0 && b->n < RESULT_MAX && b->p[b->n - 1] != '\n')
        shc_strbuf_putc(b, '\n');
    size_t room = b->n < RESULT_MAX ? RESULT_MAX - b->n : 0;
    if (n <= room && !memchr(s, 0, n) && shc_utf8_valid(s, n)) {
        shc_strbuf_put(b, s, n);
        return;
    }
    char *c = shc_utf8_dup(s, n, room);
    if (c)
        shc_strbuf_puts(b, c);
    free(c);
}

/* A server's string cut to max bytes for a note (dst has max + 1). */
static const char *cut(char *dst, const char *s, size_t max)
{
    shc_utf8_cut(dst, s ? s : "", s ? strlen(s) : 0, max);
    return dst;
}

static void addf(shc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(shc_strbuf *b, const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    shc__mcp_vfmt(line, sizeof line, fmt, ap);
    va_end(ap);
    if (*line)
        add(b, line, strlen(line));
}

char *shc__mcp_result_text(json_t *result, bool *error, size_t *len)
{
    shc_strbuf b = {0};
    *error = json_is_true(json_object_get(result, "isError"));
    if (*error)
        shc_strbuf_puts(&b, "MCP error: the tool reported an error:\n");
    json_t *content = json_object_get(result, "content");
    size_t i, ntext = 0, nmedia = 0, nother = 0, left = 0;
    json_t *c;
    json_array_foreach(content, i, c)
    {
        const char *type = shc_rpc_str(json_object_get(c, "type"));
        const char *mime = shc_rpc_str(json_object_get(c, "mimeType"));
        if (!type)
            continue;
        /* a bounded number of blocks of each kind: a server's thousands of tiny blocks would
         * otherwise make a text (and a card) far larger than what it sent */
        bool media = !strcmp(type, "image") || !strcmp(type, "audio");
        if (media ? nmedia++ >= SHC_MCP_MEDIA_BLOCKS : nother++ >= SHC_MCP_TEXT_BLOCKS) {
            left++;
            continue;
        }
        if (!strcmp(type, "text") && json_is_string(json_object_get(c, "text"))) {
            json_t *t = json_object_get(c, "text");
            add(&b, json_string_value(t), json_string_length(t));
            ntext++;
        } else if (!strcmp(type, "image") || !strcmp(type, "audio")) {
            json_t *d = json_object_get(c, "data");
            char m[61];
            addf(&b, "[%s (%s, %zu bytes of base64) not shown to the model]", type,
                 mime ? cut(m, mime, 60) : "unknown type", json_string_length(d));
        } else if (!strcmp(type, "resource_link")) {
            const char *uri = shc_rpc_str(json_object_get(c, "uri"));
            const char *name = shc_rpc_str(json_object_get(c, "name"));
            char u[401], n[101];
            addf(&b, "[resource link: %s%s%s%s]", cut(u, uri, 400), name ? " (" : "",
                 cut(n, name, 100), name ? ")" : "");
        } else if (!strcmp(type, "resource")) {
            json_t *r = json_object_get(c, "resource");
            const char *uri = shc_rpc_str(json_object_get(r, "uri"));
            json_t *t = json_object_get(r, "text");
            char u[401];
            addf(&b, "[resource: %s]", cut(u, uri, 400));
            if (json_is_string(t))
                add(&b, json_string_value(t), json_string_length(t));
        } else {
            char ty[41];
            addf(&b, "[content of type %s not shown]", cut(ty, type, 40));
        }
    }
    if (left)
        addf(&b, "[%zu more content blocks left out: at most %d images or audio and %d other "
                 "blocks are shown]", left, SHC_MCP_MEDIA_BLOCKS, SHC_MCP_TEXT_BLOCKS);
    json_t *sc = json_object_get(result, "structuredContent");
    if (sc && ntext == 0) { /* the text form is optional for a structured result */
        char *s = json_dumps(sc, JSON_COMPACT);
        if (s)
            add(&b, s, strlen(s));
        free(s);
    }
    if (b.n == 0 || (*error && ntext == 0 && !sc))
        add(&b, "(no content)", 12);
    *len = b.n;
    return shc_strbuf_take(&b);
}

json_t *shc__mcp_result_images(json_t *result)
{
    json_t *out = NULL, *c;
    size_t i, total = 0, n = 0;
    json_array_foreach(json_object_get(result, "content"), i, c)
    {
        const char *type = shc_rpc_str(json_object_get(c, "type"));
        const char *mime = shc_rpc_str(json_object_get(c, "mimeType"));
        json_t *d = json_object_get(c, "data");
        if (!type || strcmp(type, "image") || !mime || !json_is_string(d) ||
            strncmp(mime, "image/", 6))
            continue;
        /* at most SHC_MCP_MEDIA_BLOCKS blocks, each counted with its type and the block's own
         * cost (one that does not fit is left to the text's note) */
        size_t cost = json_string_length(d) + strlen(mime) + SHC_MCP_BLOCK_COST;
        if (n >= SHC_MCP_MEDIA_BLOCKS)
            break;
        if (cost > SHC_MCP_IMAGES_MAX - total)
            continue;
        if (!out && !(out = json_array()))
            return NULL;
        n++;
        total += cost;
        json_array_append_new(out, json_pack("{s:s,s:O,s:s}", "type", "image", "data", d,
                                             "mimeType", mime));
    }
    return out;
}
