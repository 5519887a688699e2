/* The model backend's sessions and their conversations: the table of sessions and their tools
 * besides bash (ops.set_tools), every change to a conversation (reported to the host so the
 * bridge can store it), the user message built from a prompt's blocks, and restoring a stored
 * conversation after a restart. */
#include "model/openai_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/quote.h"
#include "base/strbuf.h"
#include "shcard.h"

/* ------------------------------------------------------------------ sessions */

session *shc__oai_session(openai *be, const char *id, bool create)
{
    for (session *s = be->sessions; s; s = s->next)
        if (!strcmp(s->id, id))
            return s;
    if (!create)
        return NULL;
    session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->id = strdup(id);
    s->history = json_array();
    if (!s->id || !s->history) {
        free(s->id);
        json_decref(s->history);
        free(s);
        return NULL;
    }
    s->refs = 1;
    s->next = be->sessions;
    be->sessions = s;
    return s;
}

void shc__oai_session_unref(session *s)
{
    if (!s || --s->refs > 0)
        return;
    free(s->id);
    free(s->model);
    free(s->sandbox);
    json_decref(s->tools);
    json_decref(s->refused);
    shc_tools_snap_unref(s->snap);
    json_decref(s->history);
    free(s);
}

/* {"name","description","parameters"} objects become the request's function entries. */
int shc__oai_set_tools(shc_backend *base, const char *session_id, const char *tools_json,
                       shc_tools_snap *snap)
{
    session *s = shc__oai_session((openai *)base, session_id, true);
    if (!s)
        return SHC_E_NOMEM;
    json_t *in = tools_json ? json_loads(tools_json, 0, NULL) : NULL;
    json_t *out = json_array();
    size_t i;
    json_t *e;
    if (!out) {
        json_decref(in);
        return SHC_E_NOMEM;
    }
    json_array_foreach(in, i, e)
    {
        if (!json_is_string(json_object_get(e, "name")) ||
            !json_is_object(json_object_get(e, "parameters")) ||
            json_object_get(s->refused, json_string_value(json_object_get(e, "name"))))
            continue;
        json_array_append_new(out, json_pack("{s:s, s:O}", "type", "function", "function", e));
    }
    json_decref(in);
    json_decref(s->tools);
    s->tools = json_array_size(out) ? out : NULL;
    if (!s->tools)
        json_decref(out);
    shc_tools_snap_unref(s->snap);
    s->snap = s->tools ? shc_tools_snap_ref(snap) : NULL;
    return 0;
}

int shc__oai_refuse_tool(session *s, const char *name)
{
    if (!strcmp(name, "bash") || json_object_get(s->refused, name))
        return -1;
    if (!s->refused && !(s->refused = json_object()))
        return -1;
    if (json_object_set_new(s->refused, name, json_true()) != 0)
        return -1;
    /* a new array: the request in flight keeps a reference to the old one */
    json_t *out = json_array();
    size_t i;
    json_t *e;
    if (!out)
        return -1;
    json_array_foreach(s->tools, i, e)
    {
        const char *n = json_string_value(json_object_get(json_object_get(e, "function"), "name"));
        if (!n || strcmp(n, name))
            json_array_append(out, e);
    }
    json_decref(s->tools);
    s->tools = json_array_size(out) ? out : NULL;
    if (!s->tools) {
        json_decref(out);
        shc_tools_snap_unref(s->snap);
        s->snap = NULL;
    }
    return 0;
}

/* ------------------------------------------------------------------ changes */

static void report(shc_backend_turn *t, size_t index, const json_t *msg)
{
    if (!t->host.history)
        return;
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (msg && !text) {
        fprintf(stderr, "shcard: model: out of memory recording the conversation\n");
        return;
    }
    t->host.history(t->host.payload, index, text);
    free(text);
}

void shc__oai_hist_append(shc_backend_turn *t, json_t *msg)
{
    json_t *h = t->s->history;
    if (!msg || json_array_append_new(h, msg)) {
        fprintf(stderr, "shcard: model: out of memory recording the conversation\n");
        return;
    }
    report(t, json_array_size(h) - 1, msg);
}

void shc__oai_hist_cut(shc_backend_turn *t, size_t n)
{
    json_t *h = t->s->history;
    while (json_array_size(h) > n)
        json_array_remove(h, json_array_size(h) - 1);
    report(t, n, NULL);
}

/* ------------------------------------------------------------------ the user message */

/* A fence longer than any backtick run in s. */
static void fenced(shc_strbuf *b, const char *s, size_t n)
{
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    size_t f = longest >= 3 ? longest + 1 : 3;
    for (size_t i = 0; i < f; i++)
        shc_strbuf_putc(b, '`');
    shc_strbuf_putc(b, '\n');
    shc_strbuf_put(b, s, n);
    if (n && s[n - 1] != '\n')
        shc_strbuf_putc(b, '\n');
    for (size_t i = 0; i < f; i++)
        shc_strbuf_putc(b, '`');
}

json_t *shc__oai_user_message(const shc_prompt_part *parts, size_t n, const char *cwd,
                              bool images)
{
    shc_strbuf text = {0}, ctx = {0};
    json_t *pics = json_array();
    for (size_t i = 0; i < n; i++) {
        const shc_prompt_part *p = &parts[i];
        char last = text.n ? text.p[text.n - 1] : '\n';
        if (p->kind == SHC_PROMPT_TEXT) {
            if (i > 0 && parts[i - 1].kind == SHC_PROMPT_TEXT)
                shc_strbuf_putc(&text, '\n');
            shc_strbuf_put(&text, p->text, p->len);
            continue;
        }
        if (p->kind == SHC_PROMPT_IMAGE) {
            if (!images || !p->text || !p->mime)
                continue;
            size_t ml = strlen(p->mime), hl = ml + sizeof "data:;base64," - 1;
            char *full = malloc(hl + p->len + 1);
            if (!full)
                continue;
            snprintf(full, hl + 1, "data:%s;base64,", p->mime);
            memcpy(full + hl, p->text, p->len);
            json_t *url = json_pack("{s:s,s:{s:o}}", "type", "image_url", "image_url", "url",
                                    json_stringn(full, hl + p->len));
            free(full);
            json_array_append_new(pics, url);
            continue;
        }
        /* LINK / RESOURCE: the path where it appears */
        size_t plen;
        char *path = shc_mention_path(p->uri, cwd, &plen);
        if (last != ' ' && last != '\n' && last != '\t' && last != '(')
            shc_strbuf_putc(&text, ' ');
        shc_strbuf_puts(&text, path ? path : "");
        if (p->kind == SHC_PROMPT_RESOURCE) {
            shc_strbuf_printf(&ctx, "\n\n[attached: %s%s%s]\n", path ? path : "",
                              p->mime ? ", " : "", p->mime ? p->mime : "");
            if (p->text)
                fenced(&ctx, p->text, p->len);
            else
                shc_strbuf_puts(&ctx, "(binary content, not shown)");
        }
        free(path);
    }
    if (ctx.n)
        shc_strbuf_put(&text, ctx.p, ctx.n);
    shc_strbuf_free(&ctx);
    char *body = shc_strbuf_take(&text);
    json_t *msg = NULL;
    if (body && pics) {
        if (json_array_size(pics) == 0)
            msg = json_pack("{s:s,s:s}", "role", "user", "content", body);
        else if (json_array_insert_new(pics, 0, json_pack("{s:s,s:s}", "type", "text", "text",
                                                          body)) == 0)
            msg = json_pack("{s:s,s:O}", "role", "user", "content", pics);
    }
    free(body);
    json_decref(pics);
    return msg;
}

/* ------------------------------------------------------------------ restore */

static const char interrupted[] = "[not run: shcard stopped before this command finished]";

/* Answers every call still waiting in `pending` (ids of the last assistant message's calls). */
static void close_pending(json_t *out, json_t *pending)
{
    size_t i;
    json_t *id;
    json_array_foreach(pending, i, id)
    {
        json_array_append_new(out, json_pack("{s:s,s:O,s:s}", "role", "tool", "tool_call_id", id,
                                             "content", interrupted));
    }
    json_array_clear(pending);
}

int shc__oai_restore(shc_backend *base, const char *session_id, const char *const *entries,
                     size_t n)
{
    openai *be = (openai *)base;
    session *s = shc__oai_session(be, session_id, true);
    json_t *out = json_array(), *pending = json_array();
    if (!s || !out || !pending) {
        json_decref(out);
        json_decref(pending);
        return SHC_E_NOMEM;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *m = entries[i] ? json_loads(entries[i], JSON_ALLOW_NUL, NULL) : NULL;
        const char *role = json_string_value(json_object_get(m, "role"));
        if (!role) {
            bad++;
            json_decref(m);
            continue;
        }
        if (!strcmp(role, "tool")) {
            /* only an answer to a call that is waiting; anything else would be refused */
            json_t *id = json_object_get(m, "tool_call_id");
            size_t k;
            json_t *p;
            bool found = false;
            json_array_foreach(pending, k, p)
            {
                if (json_equal(p, id)) {
                    json_array_remove(pending, k);
                    found = true;
                    break;
                }
            }
            if (found)
                json_array_append_new(out, m);
            else
                json_decref(m);
            continue;
        }
        close_pending(out, pending);
        json_t *calls = json_object_get(m, "tool_calls");
        size_t k;
        json_t *c;
        json_array_foreach(calls, k, c)
        {
            json_t *id = json_object_get(c, "id");
            if (json_is_string(id))
                json_array_append(pending, id);
        }
        json_array_append_new(out, m);
    }
    close_pending(out, pending);
    json_decref(pending);
    if (bad)
        fprintf(stderr, "shcard: model: %zu stored message(s) of %s are not messages: skipped\n",
                bad, session_id);
    json_decref(s->history);
    s->history = out;
    return 0;
}
