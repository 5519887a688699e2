/* The journal (journal.h): builds the records of what happened and appends them to the
 * session's store file; and the backend callbacks for the conversation, usage and notices. */
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/strbuf.h"

/* The session's file, created with its first record (so a session nothing happened in leaves
 * no file): the meta record, then the mode it has.  False when there is no store, or creating
 * failed (said once; the session goes on unrecorded). */
static bool on(br_session *s)
{
    if (s->file)
        return true;
    br_bridge *br = s->br;
    if (!br->store || s->unrecorded)
        return false;
    s->unrecorded = true; /* until it worked */
    char created[40];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *meta = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s}", "t", "session", "v", 1, "id", s->id,
                             "cwd", s->cwd, "created", created, "agent", s->be->ops->name);
    json_t *mode = json_pack("{s:s,s:s,s:s,s:s}", "t", "config", "id", "mode", "value",
                             s->approve == SHC_APPROVE_ASK ? "ask" : "all", "by",
                             br->cfg.approve == SHC_APPROVE_DEFAULT ? "default" : "flag");
    if (meta && mode && shc_store_create(&s->file, br->store, s->id, meta) == 0) {
        s->unrecorded = false;
        shc_store_append(s->file, mode);
    } else {
        shc_log_warn(br->log, "%s: cannot create its file in the session store: it is not "
                              "recorded",
                     s->id);
    }
    json_decref(meta);
    json_decref(mode);
    return s->file != NULL;
}

static void put(br_session *s, json_t *rec /* steals */)
{
    if (rec && on(s))
        shc_store_append(s->file, rec);
    json_decref(rec);
}

void shc__rec_put(br_session *s, json_t *rec)
{
    put(s, rec);
}

void shc__rec_title(br_session *s, const char *title, const char *at)
{
    put(s, json_pack("{s:s,s:s,s:s}", "t", "title", "title", title, "at", at));
}

void shc__rec_prompt(br_session *s, json_t *blocks, const char *mid)
{
    json_t *r = on(s) ? json_pack("{s:s,s:O}", "t", "prompt", "blocks", blocks) : NULL;
    if (r && mid)
        json_object_set_new(r, "mid", json_string(mid));
    if (r)
        put(s, r);
}

void shc__rec_text(br_session *s, const char *kind, const char *text, size_t len)
{
    if (on(s))
        put(s, json_pack("{s:s,s:s,s:o}", "t", "text", "kind", kind, "text",
                         shc_json_str(text, len)));
}

void shc__rec_call(br_call *c, const char *status)
{
    br_session *s = c->turn->sess;
    if (!on(s))
        return;
    const shc_verdict *v = c->verdict;
    json_t *r = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:s}", "t", "call", "id", c->id,
                          "command", shc_json_cstr(c->command), "cwd", s->cwd, "card",
                          shc_card_name(c->info.card), "status", status, "kind",
                          shc_kind_name(v ? v->kind : SHC_KIND_TERMINAL), "title",
                          v && v->title ? v->title : c->command);
    if (!r)
        return;
    if (c->description)
        json_object_set_new(r, "description", shc_json_cstr(c->description));
    if (v && v->path)
        json_object_set_new(r, "path", shc_json_cstr(v->path));
    if (v && v->line > 0)
        json_object_set_new(r, "line", json_integer(v->line));
    json_t *locs = json_array();
    for (size_t i = 0; v && locs && i < v->nlocations; i++) {
        json_t *l = json_pack("{s:o}", "path", shc_json_cstr(v->locations[i].path));
        if (l && v->locations[i].line > 0)
            json_object_set_new(l, "line", json_integer(v->locations[i].line));
        json_array_append_new(locs, l);
    }
    json_object_set_new(r, "locations", locs);
    put(s, r);
}

void shc__rec_flip(br_call *c, const char *notice, json_t *events)
{
    br_session *s = c->turn->sess;
    if (on(s))
        put(s, json_pack("{s:s,s:s,s:s,s:O}", "t", "flip", "id", c->id, "notice", notice,
                         "events", events));
}

void shc__rec_status(br_call *c, const char *status)
{
    put(c->turn->sess, json_pack("{s:s,s:s,s:s}", "t", "status", "id", c->id, "status", status));
}

/* The output cap of one call in the store: the console fallback's (--output-limit). */
static size_t out_cap(const br_call *c)
{
    size_t cap = c->turn->br->cfg.output_byte_limit;
    return cap ? cap : (size_t)1 << 20;
}

void shc__rec_out(br_call *c, const char *data, size_t len)
{
    br_session *s = c->turn->sess;
    if (len == 0 || !on(s))
        return;
    size_t head = out_cap(c) / 2;
    c->out_seen += len;
    if (c->out_stored < head) {
        /* a chunk that straddles the head's end is cut at a character boundary */
        size_t k = len;
        if (c->out_stored + k > head) {
            k = shc_utf8_boundary(data, head - c->out_stored);
        }
        if (k) {
            put(s, json_pack("{s:s,s:s,s:o}", "t", "out", "id", c->id, "data",
                             json_stringn_nocheck(data, k)));
            c->out_stored += k;
        }
        data += k;
        len -= k;
        if (!len)
            return;
        c->out_stored = head; /* closed: the rest is the tail */
    }
    if (!c->out_tail.p && shc_ring_init(&c->out_tail, out_cap(c) - head) != 0)
        return;
    shc_ring_push(&c->out_tail, data, len);
}

void shc__rec_end(br_call *c, const shc_call_end *end, const char *text, size_t len)
{
    br_session *s = c->turn->sess;
    if (!on(s))
        return;
    json_t *r = json_pack("{s:s,s:s,s:b,s:o,s:o,s:o,s:o}", "t", "end", "id", c->id, "ran",
                          end->ran, "exit_code",
                          end->ran && !end->signal ? json_integer(end->exit_code) : json_null(),
                          "signal", shc_json_cstr(end->signal), "error",
                          shc_json_cstr(end->error), "text", shc_json_str(text ? text : "", len));
    if (r && c->out_tail.p && c->out_tail.total) {
        size_t tl = 0;
        bool cut = false;
        uint64_t dropped = 0;
        char *tail = shc_ring_copy(&c->out_tail, &tl, &cut, &dropped);
        if (tail) {
            char marker[64];
            int mk = snprintf(marker, sizeof marker, "\r\n\xe2\x80\xa6 %llu bytes omitted \xe2\x80\xa6\r\n",
                              (unsigned long long)dropped);
            shc_strbuf b = {0};
            if (cut)
                shc_strbuf_put(&b, marker, (size_t)mk);
            shc_strbuf_put(&b, tail, tl);
            char *all = shc_strbuf_take(&b);
            if (all)
                json_object_set_new(r, "tail", shc_json_str(all, strlen(all)));
            free(all);
            free(tail);
        }
    }
    put(s, r);
}

void shc__rec_turn(br_turn *t, const char *stop, const char *error)
{
    json_t *r = json_pack("{s:s,s:s}", "t", "turn", "stop", stop);
    if (r && error)
        json_object_set_new(r, "error", shc_json_cstr(error));
    put(t->sess, r);
}

void shc__rec_config(br_session *s, const char *id, const char *value)
{
    put(s, json_pack("{s:s,s:s,s:s}", "t", "config", "id", id, "value", value));
}

/* ------------------------------------------------------------------ backend callbacks */

void shc__journal_history(void *payload, size_t index, const char *entry)
{
    br_turn *t = payload;
    br_session *s = t->sess;
    if (!on(s))
        return;
    json_t *r = json_pack("{s:s,s:I}", "t", "model", "i", (json_int_t)index);
    if (r && entry) {
        json_t *e = json_loads(entry, JSON_ALLOW_NUL, NULL);
        if (!e) {
            json_decref(r);
            return;
        }
        json_object_set_new(r, "entry", e);
    }
    put(s, r);
}

void shc__journal_usage(void *payload, uint64_t used, uint64_t size)
{
    br_turn *t = payload;
    if (t->settled)
        return;
    json_t *u = json_pack("{s:s,s:I,s:I}", "sessionUpdate", "usage_update", "used",
                          (json_int_t)used, "size", (json_int_t)size);
    shc__wire_update(t->br, t->sess, u);
    put(t->sess, json_pack("{s:s,s:I,s:I}", "t", "usage", "used", (json_int_t)used, "size",
                           (json_int_t)size));
}

/* A notice is a live event, not history: it is not journaled.  A client without the notices
 * capability gets it as an agent message (the spec's advice). */
void shc__journal_notice(void *payload, const char *text)
{
    br_turn *t = payload;
    if (t->settled || t->cancelled || !text || !*text)
        return;
    shc_log_info(t->br->log, "%s: notice: %s", t->sess->id, text);
    json_t *u;
    if (t->sess->caps.notices)
        u = json_pack("{s:s,s:s,s:s}", "sessionUpdate", "notice", "severity", "warning", "title",
                      text);
    else
        u = json_pack("{s:s,s:{s:s,s:s++}}", "sessionUpdate", "agent_message_chunk", "content",
                      "type", "text", "text", "\n\n> ", text, "\n\n");
    shc__wire_update(t->br, t->sess, u);
}
