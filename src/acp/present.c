/* The presenter (acp-protocol.md §4, §9): verdict + client capabilities -> card JSON.
 * Decisions recorded here:
 *  - list commands get kind "read" (the choice), searches "search";
 *  - locations carry 1-based lines, as the spec says (Zed's 0-based reading is its divergence);
 *  - a terminal card's updates never carry `content` (it would replace the terminal block);
 *  - signal deaths report exit_code null and the signal name. */
#include "acp/present.h"
#include "base/json.h"
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ small helpers */

const char *shc_card_name(shc_card card)
{
    switch (card) {
    case SHC_CARD_CLASSIFIED: return "classified";
    case SHC_CARD_TERMINAL: return "terminal";
    case SHC_CARD_CLIENT_TERMINAL: return "client-terminal";
    case SHC_CARD_CONSOLE: return "console";
    }
    return "?";
}

shc_card shc_present_card(const shc_verdict *v, const shc_client_caps *caps)
{
    if (v) {
        switch (v->kind) {
        case SHC_KIND_READ:
        case SHC_KIND_SEARCH:
        case SHC_KIND_LIST: return SHC_CARD_CLASSIFIED;
        case SHC_KIND_TERMINAL: break;
        }
    }
    if (caps && (caps->terminal_output || caps->terminal_output_delta || caps->display_terminals))
        return SHC_CARD_TERMINAL;
    if (caps && caps->client_terminals && caps->terminal)
        return SHC_CARD_CLIENT_TERMINAL;
    return SHC_CARD_CONSOLE;
}

static const char *acp_kind(const shc_verdict *v, shc_card card)
{
    if (card != SHC_CARD_CLASSIFIED || !v)
        return "execute";
    return v->kind == SHC_KIND_SEARCH ? "search" : "read";
}

char *shc_present_abs_path(const char *cwd, const char *path)
{
    if (!path || !*path || !strcmp(path, "."))
        return strdup(cwd ? cwd : "/");
    if (path[0] == '/' || !cwd)
        return strdup(path);
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    if (!*path)
        return strdup(cwd);
    size_t a = strlen(cwd), b = strlen(path);
    while (a > 1 && cwd[a - 1] == '/')
        a--;
    char *out = malloc(a + b + 2);
    if (!out)
        return NULL;
    memcpy(out, cwd, a);
    if (cwd[a - 1] != '/')
        out[a++] = '/';
    memcpy(out + a, path, b + 1);
    return out;
}

const char *shc_present_lang(const char *path)
{
    static const struct {
        const char *ext, *lang;
    } tab[] = {
        {"c", "c"},          {"h", "c"},           {"cc", "cpp"},       {"cpp", "cpp"},
        {"hpp", "cpp"},      {"cxx", "cpp"},       {"py", "python"},    {"js", "javascript"},
        {"mjs", "javascript"}, {"cjs", "javascript"}, {"ts", "typescript"}, {"tsx", "tsx"},
        {"jsx", "jsx"},      {"rs", "rust"},       {"go", "go"},        {"java", "java"},
        {"rb", "ruby"},      {"sh", "sh"},         {"bash", "bash"},    {"zsh", "zsh"},
        {"md", "markdown"},  {"json", "json"},     {"yml", "yaml"},     {"yaml", "yaml"},
        {"toml", "toml"},    {"html", "html"},     {"css", "css"},      {"sql", "sql"},
        {"txt", "text"},     {"re", "c"},          {"y", "yacc"},       {"mk", "make"},
        {"lua", "lua"},      {"php", "php"},       {"swift", "swift"},  {"kt", "kotlin"},
        {"xml", "xml"},      {"ini", "ini"},       {"diff", "diff"},    {"patch", "diff"},
    };
    if (!path)
        return "text";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strcmp(base, "Makefile") || !strcmp(base, "GNUmakefile") || !strcmp(base, "makefile"))
        return "make";
    if (!strcmp(base, "Dockerfile"))
        return "dockerfile";
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return "text";
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(dot + 1, tab[i].ext))
            return tab[i].lang;
    return "text";
}

char *shc_present_fence(const char *text, size_t len, const char *info)
{
    if (!text)
        len = 0;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
                       text[len - 1] == '\t'))
        len--;
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < len; i++) {
        run = text[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest >= 3 ? longest + 1 : 3;
    size_t ilen = info ? strlen(info) : 0;
    size_t total = fence + ilen + 1 + len + (len ? 1 : 0) + fence + 1;
    char *out = malloc(total);
    if (!out)
        return NULL;
    char *p = out;
    memset(p, '`', fence);
    p += fence;
    if (ilen) {
        memcpy(p, info, ilen);
        p += ilen;
    }
    *p++ = '\n';
    if (len) {
        memcpy(p, text, len);
        p += len;
        *p++ = '\n';
    }
    memset(p, '`', fence);
    p += fence;
    *p = 0;
    return out;
}

/* ------------------------------------------------------------------ UTF-8 */


static int grow(char **buf, size_t *cap, size_t want)
{
    if (want <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < want)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return SHC_E_NOMEM;
    *buf = p;
    *cap = c;
    return 0;
}

static const char fffd[3] = {(char)0xEF, (char)0xBF, (char)0xBD};

static int clean_into(shc_utf8_stream *st, const unsigned char *p, size_t len, bool final,
                      char **buf, size_t *n, size_t *cap)
{
    /* worst case every byte becomes 3 */
    if (grow(buf, cap, *n + len * 3 + 4))
        return SHC_E_NOMEM;
    char *o = *buf + *n;
    size_t i = 0;
    while (i < len) {
        if (p[i] < 0x80) { /* fast path */
            *o++ = (char)p[i++];
            continue;
        }
        size_t k;
        int r = shc_utf8_dec(p + i, len - i, &k);
        if (r == SHC_UTF8_OK) {
            memcpy(o, p + i, k);
            o += k;
            i += k;
        } else if (r == SHC_UTF8_SHORT && !final) {
            memcpy(st->pend, p + i, len - i);
            st->npend = len - i;
            i = len;
        } else {
            memcpy(o, fffd, 3);
            o += 3;
            i += k;
        }
    }
    *n = (size_t)(o - *buf);
    return 0;
}

int shc_utf8_stream_push(shc_utf8_stream *st, const char *in, size_t len, bool final, char **buf,
                         size_t *n, size_t *cap)
{
    const unsigned char *p = (const unsigned char *)in;
    if (st->npend == 0)
        return clean_into(st, p, len, final, buf, n, cap);
    /* re-join the held bytes (at most 3) with this chunk */
    unsigned char *w = malloc(st->npend + len + 1);
    if (!w)
        return SHC_E_NOMEM;
    memcpy(w, st->pend, st->npend);
    if (len)
        memcpy(w + st->npend, p, len);
    size_t wl = st->npend + len;
    st->npend = 0;
    int rc = clean_into(st, w, wl, final, buf, n, cap);
    free(w);
    return rc;
}

/* ------------------------------------------------------------------ console text */

typedef struct line {
    char *b;
    size_t n, cap, cur; /* bytes, capacity, cursor (byte offset at a character start) */
} line;

static size_t charlen(const char *s, size_t avail)
{
    unsigned char c = (unsigned char)s[0];
    size_t k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return k > avail ? avail : k;
}

/* Writes one character at the cursor, overwriting the character there. */
static int line_put(line *l, const char *ch, size_t k)
{
    size_t old = l->cur < l->n ? charlen(l->b + l->cur, l->n - l->cur) : 0;
    if (grow(&l->b, &l->cap, l->n + k + 1))
        return SHC_E_NOMEM;
    memmove(l->b + l->cur + k, l->b + l->cur + old, l->n - l->cur - old);
    memcpy(l->b + l->cur, ch, k);
    l->n = l->n - old + k;
    l->cur += k;
    return 0;
}

char *shc_console_text(const char *in, size_t len, size_t *out_len)
{
    char *raw = NULL, *out = NULL;
    size_t rn = 0, rcap = 0, on = 0, ocap = 0;
    line l = {0};
    shc_utf8_stream st = {{0}, 0};
    /* first make it valid UTF-8, so the line editor works on whole characters */
    if (shc_utf8_stream_push(&st, in ? in : "", in ? len : 0, true, &raw, &rn, &rcap))
        goto fail;
    if (grow(&out, &ocap, rn + 1))
        goto fail;
    for (size_t i = 0; i < rn;) {
        unsigned char c = (unsigned char)raw[i];
        if (c == 0x1b) { /* escape sequences */
            if (i + 1 >= rn) {
                i++;
                continue;
            }
            unsigned char t = (unsigned char)raw[i + 1];
            i += 2;
            if (t == '[') { /* CSI: params, intermediates, final 0x40-0x7e */
                size_t s = i;
                while (i < rn && ((unsigned char)raw[i] < 0x40 || (unsigned char)raw[i] > 0x7e))
                    i++;
                if (i < rn) {
                    if (raw[i] == 'K' && (i == s || raw[s] == '0')) /* erase to end of line */
                        l.n = l.cur;
                    i++;
                }
            } else if (t == ']' || t == 'P' || t == 'X' || t == '^' || t == '_') {
                /* OSC / DCS / SOS / PM / APC: until BEL or ST (ESC \) */
                while (i < rn && raw[i] != 0x07 && !(raw[i] == 0x1b && i + 1 < rn && raw[i + 1] == '\\'))
                    i++;
                i += i < rn && raw[i] == 0x07 ? 1 : 2;
            } else if (t >= 0x20 && t <= 0x2f) { /* ESC ( B and friends: one more byte */
                i++;
            }
            continue;
        }
        if (c == '\r') {
            if (i + 1 < rn && raw[i + 1] == '\n') {
                i++;
                continue; /* CRLF: the LF below ends the line */
            }
            l.cur = 0;
            i++;
            continue;
        }
        if (c == '\n') {
            if (grow(&out, &ocap, on + l.n + 2))
                goto fail;
            memcpy(out + on, l.b, l.n);
            on += l.n;
            out[on++] = '\n';
            l.n = l.cur = 0;
            i++;
            continue;
        }
        if (c == '\b') {
            while (l.cur > 0 && ((unsigned char)l.b[--l.cur] & 0xC0) == 0x80)
                ;
            i++;
            continue;
        }
        if (c < 0x20 && c != '\t') {
            i++;
            continue;
        }
        size_t k = charlen(raw + i, rn - i);
        if (line_put(&l, raw + i, k))
            goto fail;
        i += k;
    }
    if (grow(&out, &ocap, on + l.n + 1))
        goto fail;
    memcpy(out + on, l.b, l.n);
    on += l.n;
    out[on] = 0;
    free(raw);
    free(l.b);
    if (out_len)
        *out_len = on;
    return out;
fail:
    free(raw);
    free(l.b);
    free(out);
    return NULL;
}

/* ------------------------------------------------------------------ cards */

static json_t *raw_input(const shc_call_info *c)
{
    return json_pack("{s:s,s:s}", "command", c->command ? c->command : "", "cwd",
                     c->cwd ? c->cwd : "/");
}

static json_t *text_block(const char *text)
{
    return json_pack("{s:s,s:{s:s,s:s}}", "type", "content", "content", "type", "text", "text",
                     text ? text : "");
}

static json_t *locations(const shc_call_info *c)
{
    json_t *arr = json_array();
    const shc_verdict *v = c->verdict;
    if (!arr || !v)
        return arr;
    for (size_t i = 0; i < v->nlocations; i++) {
        char *abs = shc_present_abs_path(c->cwd, v->locations[i].path);
        if (!abs)
            continue;
        json_t *loc = json_pack("{s:s}", "path", abs);
        free(abs);
        if (loc && v->locations[i].line > 0)
            json_object_set_new(loc, "line", json_integer(v->locations[i].line));
        json_array_append_new(arr, loc);
    }
    if (v->nlocations == 0 && (v->path || v->kind == SHC_KIND_LIST)) {
        char *abs = shc_present_abs_path(c->cwd, v->path);
        if (abs) {
            json_t *loc = json_pack("{s:s}", "path", abs);
            if (loc && v->line > 0)
                json_object_set_new(loc, "line", json_integer(v->line));
            json_array_append_new(arr, loc);
            free(abs);
        }
    }
    return arr;
}

/* Classified cards use the classifier's title; terminal cards the command, with an agent's
 * `bash -lc '...'` wrapper removed (the verdict's title), as Zed labels the terminal with it.
 * rawInput always keeps the exact command. */
static const char *title_of(const shc_call_info *c)
{
    if (c->verdict && c->verdict->title && *c->verdict->title)
        return c->verdict->title;
    return c->command ? c->command : "";
}

/* The title as a JSON string, at most SHC_PRESENT_TITLE_MAX characters: a longer one keeps its
 * first characters (cut on a character boundary) and ends with an ellipsis.  A 1 MB command is
 * a 1 MB rawInput, never a 1 MB title. */
static json_t *title_json(const shc_call_info *c)
{
    const char *t = title_of(c);
    size_t chars = 0, i = 0, cut = 0;
    for (; t[i]; i++) {
        if (((unsigned char)t[i] & 0xC0) == 0x80)
            continue; /* a continuation byte */
        if (chars == SHC_PRESENT_TITLE_MAX - 1)
            cut = i;
        if (++chars > SHC_PRESENT_TITLE_MAX)
            break;
    }
    if (chars <= SHC_PRESENT_TITLE_MAX)
        return json_string(t);
    char *s = malloc(cut + sizeof "\xe2\x80\xa6");
    if (!s)
        return NULL;
    memcpy(s, t, cut);
    memcpy(s + cut, "\xe2\x80\xa6", sizeof "\xe2\x80\xa6"); /* U+2026 and the NUL */
    json_t *j = json_string(s);
    free(s);
    return j;
}

json_t *shc_present_tool_call(const shc_call_info *c, const char *status)
{
    json_t *u = json_pack("{s:s,s:s,s:o,s:s,s:s}", "sessionUpdate", "tool_call", "toolCallId",
                          c->call_id, "title", title_json(c), "kind", acp_kind(c->verdict, c->card),
                          "status", status ? status : "in_progress");
    if (!u)
        return NULL;
    json_object_set_new(u, "rawInput", raw_input(c));
    switch (c->card) {
    case SHC_CARD_CLASSIFIED:
        json_object_set_new(u, "locations", locations(c));
        break;
    case SHC_CARD_TERMINAL: {
        json_t *content = json_array();
        if (c->description && *c->description)
            json_array_append_new(content, text_block(c->description));
        json_array_append_new(content,
                              json_pack("{s:s,s:s}", "type", "terminal", "terminalId", c->call_id));
        json_object_set_new(u, "content", content);
        json_object_set_new(u, "_meta",
                            json_pack("{s:{s:s,s:s}}", "terminal_info", "terminal_id", c->call_id,
                                      "cwd", c->cwd ? c->cwd : "/"));
        break;
    }
    case SHC_CARD_CLIENT_TERMINAL:
    case SHC_CARD_CONSOLE:
        if (c->description && *c->description)
            json_object_set_new(u, "content", json_pack("[o]", text_block(c->description)));
        break;
    }
    return u;
}

json_t *shc_present_flip(const shc_call_info *c, const char *notice)
{
    shc_call_info t = *c;
    t.verdict = NULL; /* the title is the command, the kind `execute` */
    json_t *u = shc_present_tool_call(&t, "in_progress");
    if (!u)
        return NULL;
    json_t *content = json_object_get(u, "content");
    if (!content) {
        content = json_array();
        json_object_set_new(u, "content", content);
    }
    json_array_insert_new(content, 0, text_block(notice));
    return u;
}

json_t *shc_present_permission_call(const shc_call_info *c)
{
    return json_pack("{s:s,s:o,s:s,s:s,s:o}", "toolCallId", c->call_id, "title", title_json(c),
                     "kind", acp_kind(c->verdict, c->card), "status", "pending", "rawInput",
                     raw_input(c));
}

json_t *shc_present_status(const shc_call_info *c, const char *status)
{
    return json_pack("{s:s,s:s,s:s}", "sessionUpdate", "tool_call_update", "toolCallId",
                     c->call_id, "status", status);
}

json_t *shc_present_attach_terminal(const shc_call_info *c)
{
    if (c->card != SHC_CARD_CLIENT_TERMINAL || !c->client_terminal_id)
        return NULL;
    json_t *content = json_array();
    if (c->description && *c->description)
        json_array_append_new(content, text_block(c->description));
    json_array_append_new(content, json_pack("{s:s,s:s}", "type", "terminal", "terminalId",
                                             c->client_terminal_id));
    return json_pack("{s:s,s:s,s:o}", "sessionUpdate", "tool_call_update", "toolCallId",
                     c->call_id, "content", content);
}

json_t *shc_present_output(const shc_call_info *c, const char *data, size_t len)
{
    if (c->card != SHC_CARD_TERMINAL)
        return NULL;
    if (!shc_utf8_valid(data, len))
        return NULL; /* the caller must clean it first (the executor's chunks are clean) */
    json_t *s = json_stringn_nocheck(data, len);
    if (!s)
        return NULL;
    return json_pack("{s:s,s:s,s:{s:{s:s,s:o}}}", "sessionUpdate", "tool_call_update",
                     "toolCallId", c->call_id, "_meta", "terminal_output", "terminal_id",
                     c->call_id, "data", s);
}

const char *shc_present_end_status(const shc_call_end *end)
{
    return end->ran && !end->signal && end->exit_code == 0 ? "completed" : "failed";
}

static json_t *exit_fields(const shc_call_end *end)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (end->ran && !end->signal)
        json_object_set_new(o, "exit_code", json_integer(end->exit_code));
    else
        json_object_set_new(o, "exit_code", json_null());
    json_object_set_new(o, "signal", end->signal ? json_string(end->signal) : json_null());
    return o;
}

json_t *shc_present_final(const shc_call_info *c, const shc_call_end *end)
{
    json_t *u = json_pack("{s:s,s:s,s:s}", "sessionUpdate", "tool_call_update", "toolCallId",
                          c->call_id, "status", shc_present_end_status(end));
    if (!u)
        return NULL;
    json_t *raw = exit_fields(end);
    if (!end->ran) {
        const char *why = end->error ? end->error : "not run";
        json_object_set_new(raw, "error", json_string(why));
        json_object_set_new(u, "rawOutput", raw);
        json_object_set_new(u, "content", json_pack("[o]", text_block(why)));
        if (c->card == SHC_CARD_TERMINAL)
            json_object_set_new(u, "_meta",
                                json_pack("{s:{s:s,s:n,s:n}}", "terminal_exit", "terminal_id",
                                          c->call_id, "exit_code", "signal"));
        return u;
    }
    json_object_set_new(u, "rawOutput", raw);
    switch (c->card) {
    case SHC_CARD_TERMINAL: {
        json_t *ex = exit_fields(end);
        json_object_set_new(ex, "terminal_id", json_string(c->call_id));
        json_object_set_new(u, "_meta", json_pack("{s:o}", "terminal_exit", ex));
        break;
    }
    case SHC_CARD_CLIENT_TERMINAL:
        if (c->client_terminal_id) {
            json_t *content = json_array();
            if (c->description && *c->description)
                json_array_append_new(content, text_block(c->description));
            json_array_append_new(content, json_pack("{s:s,s:s}", "type", "terminal",
                                                     "terminalId", c->client_terminal_id));
            json_object_set_new(u, "content", content);
            break;
        }
        /* no client terminal was created: show the text like the fallback (the attribute, not
         * a comment, is what both gcc and clang read as a deliberate fall-through) */
        __attribute__((fallthrough));
    case SHC_CARD_CLASSIFIED:
    case SHC_CARD_CONSOLE: {
        const char *info = "console";
        if (c->card == SHC_CARD_CLASSIFIED && c->verdict && c->verdict->kind == SHC_KIND_READ)
            info = shc_present_lang(c->verdict->path);
        char *fenced = shc_present_fence(end->text, end->text_len, info);
        json_t *content = json_array();
        if (c->card != SHC_CARD_CLASSIFIED && c->description && *c->description)
            json_array_append_new(content, text_block(c->description));
        json_array_append_new(content, text_block(fenced));
        free(fenced);
        json_object_set_new(u, "content", content);
        break;
    }
    }
    return u;
}
