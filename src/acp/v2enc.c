/* The ACP v2 dialect of the wire (acp-2026-11.md §1.5; the v2 schema of SDK 2.4.0).
 *
 * The presenter and the bridge build every session/update once, in its v1 form; on a v2
 * connection wire.c hands each one here, and this encoder turns it into the v2 frames it
 * stands for.  It keeps, per session, what v2 needs that v1 frames do not say:
 *   - message ids: consecutive chunks of one kind are one message, anything between them
 *     starts a new one (`messageId` on every chunk);
 *   - the display terminals: a terminal card's `tool_call` (with `_meta.terminal_info`) becomes
 *     a `tool_call_update` whose content anchors `{type: terminal, terminalId}` (a fresh id per
 *     command, `term_N` for `call_N`), and a `terminal_update` with the command, cwd, the PTY's
 *     size and `capabilities.cancel` once the command runs (not while permission is asked);
 *     `_meta.terminal_output` becomes `terminal_output_chunk` (base64 of the chunk's bytes) and
 *     `_meta.terminal_exit` a `terminal_update` with `exitStatus` (cancel no longer offered);
 *     while a session is replayed, a terminal's stream is kept and goes out as one `output`
 *     snapshot with its exit;
 *   - the foreground state: `state_update` running / requires_action / idle, with `running`
 *     sent again when work goes on after a permission answer;
 *   - `cancelled` for a tool call that ends failed after session/cancel or terminal/cancel.
 * Nothing here writes: each call returns the frames for wire.c to send. */
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"

typedef struct v2term {
    struct v2term *next;
    char *call_id;   /* owned */
    char *tid;       /* owned: the terminal id */
    json_t *lead;    /* owned: the card's content before the terminal anchor (its description) */
    char *command;   /* owned */
    char *cwd;       /* owned */
    bool started;    /* terminal_update sent: the command runs */
    bool cancel;     /* terminal/cancel was accepted for it */
    char *snap;      /* owned: the stream kept during a replay */
    size_t nsnap, capsnap;
} v2term;

enum { LAST_OTHER, LAST_AGENT, LAST_THOUGHT, LAST_USER };

struct br_v2sess {
    br_v2_state state;
    bool cancelling; /* session/cancel came; cleared when the session is idle again */
    bool replaying;  /* a resume replays history: terminals go out as snapshots */
    br_v2sess *live; /* while replaying: the session's live state (this one is the replay's) */
    int last;        /* what the last frame of the session was (message boundaries) */
    unsigned long long nmsg;
    char msg[96];    /* the id of the message chunks continue */
    char user[64];   /* the last user message's id: the agent's messages after it are USER_k */
    unsigned nafter; /* messages since it */
    v2term *terms;   /* terminals not exited yet (and cards still waiting for permission) */
};

/* ------------------------------------------------------------------ state */

static br_v2sess *sess_state(br_session *s)
{
    if (!s->v2)
        s->v2 = calloc(1, sizeof *s->v2);
    return s->v2;
}

static void term_free(v2term *t)
{
    if (!t)
        return;
    free(t->call_id);
    free(t->tid);
    json_decref(t->lead);
    free(t->command);
    free(t->cwd);
    free(t->snap);
    free(t);
}

void shc__v2_free(br_v2sess *v)
{
    if (!v)
        return;
    shc__v2_free(v->live);
    while (v->terms) {
        v2term *t = v->terms;
        v->terms = t->next;
        term_free(t);
    }
    free(v);
}

static v2term *find_call(br_v2sess *v, const char *call_id, v2term ***where)
{
    for (v2term **pp = &v->terms; call_id && *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->call_id, call_id)) {
            if (where)
                *where = pp;
            return *pp;
        }
    return NULL;
}

static void drop_term(br_v2sess *v, const char *call_id)
{
    v2term **pp;
    v2term *t = find_call(v, call_id, &pp);
    if (t) {
        *pp = t->next;
        term_free(t);
    }
}

const char *shc__v2_running_call(br_session *s, const char *tid)
{
    br_v2sess *v = s->v2;
    for (v2term *t = v ? v->terms : NULL; t && tid; t = t->next)
        if (t->started && !strcmp(t->tid, tid))
            return t->call_id;
    return NULL;
}

void shc__v2_mark_cancel(br_session *s, const char *call_id)
{
    v2term *t = s->v2 ? find_call(s->v2, call_id, NULL) : NULL;
    if (t)
        t->cancel = true;
}

void shc__v2_cancelling(br_session *s)
{
    br_v2sess *v = s->v2;
    if (v && v->state != V2_IDLE)
        v->cancelling = true;
}

bool shc__v2_is_replaying(const br_session *s)
{
    return s->v2 && s->v2->replaying;
}

/* ------------------------------------------------------------------ frames */

static json_t *state_frame(br_v2sess *v, br_v2_state st)
{
    v->state = st;
    return json_pack("{s:s,s:s}", "sessionUpdate", "state_update", "state",
                     st == V2_RUNNING ? "running" : st == V2_ACTION ? "requires_action" : "idle");
}

json_t *shc__v2_state(br_session *s, br_v2_state st, const char *stop, int code,
                      const char *message)
{
    br_v2sess *v = sess_state(s);
    if (!v)
        return NULL;
    json_t *u = state_frame(v, st);
    if (st == V2_IDLE) {
        v->cancelling = false;
        v->last = LAST_OTHER;
        if (stop)
            json_object_set_new(u, "stopReason", json_string(stop));
        if (stop && !strcmp(stop, "error"))
            json_object_set_new(u, "error", json_pack("{s:i,s:s}", "code", code, "message",
                                                      message ? message : "error"));
    }
    return u;
}

static json_t *size_obj(void)
{
    return json_pack("{s:i,s:i}", "cols", BR_PTY_COLS, "rows", BR_PTY_ROWS);
}

/* The terminal_update that starts a display terminal. */
static json_t *term_start(v2term *t)
{
    t->started = true;
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:{s:{}}}", "sessionUpdate", "terminal_update",
                     "terminalId", t->tid, "command", t->command, "cwd", t->cwd, "size",
                     size_obj(), "capabilities", "cancel");
}

/* The card's content: its description, then the terminal anchor once the terminal exists. */
static json_t *term_content(const v2term *t)
{
    json_t *c = json_deep_copy(t->lead);
    if (c && t->started)
        json_array_append_new(c, json_pack("{s:s,s:s}", "type", "terminal", "terminalId", t->tid));
    return c;
}

static void append(json_t *out, json_t *u)
{
    if (u)
        json_array_append_new(out, u);
}

/* Removes _meta.KEY and returns it (a new reference), dropping an emptied _meta. */
static json_t *take_meta(json_t *u, const char *key)
{
    json_t *meta = json_object_get(u, "_meta");
    json_t *val = json_object_get(meta, key);
    if (!val)
        return NULL;
    json_incref(val);
    json_object_del(meta, key);
    if (json_object_size(meta) == 0)
        json_object_del(u, "_meta");
    return val;
}

static char *term_id(const char *call_id)
{
    const char *n = strncmp(call_id, "call_", 5) ? call_id : call_id + 5;
    size_t len = strlen(n) + 6;
    char *tid = malloc(len);
    if (tid)
        snprintf(tid, len, "term_%s", n);
    return tid;
}

/* `tool_call` of a terminal card: remember the terminal, start it if the command runs. */
static void enc_terminal_card(br_v2sess *v, json_t *u, json_t *info, json_t *out)
{
    const char *id = json_string_value(json_object_get(u, "toolCallId"));
    const char *st = json_string_value(json_object_get(u, "status"));
    json_t *raw = json_object_get(u, "rawInput");
    v2term *t = id ? calloc(1, sizeof *t) : NULL;
    if (!t)
        goto plain;
    drop_term(v, id); /* a call id is never reused; a replay may show it again */
    t->call_id = strdup(id);
    t->tid = term_id(id);
    const char *cmd = json_string_value(json_object_get(raw, "command"));
    const char *cwd = json_string_value(json_object_get(info, "cwd"));
    t->command = strdup(cmd ? cmd : "");
    t->cwd = strdup(cwd ? cwd : "/");
    t->lead = json_array();
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(u, "content"), i, item)
    {
        const char *type = json_string_value(json_object_get(item, "type"));
        if (!type || strcmp(type, "terminal"))
            json_array_append(t->lead, item);
    }
    if (!t->call_id || !t->tid || !t->command || !t->cwd || !t->lead) {
        term_free(t);
        goto plain;
    }
    t->next = v->terms;
    v->terms = t;
    bool runs = st && !strcmp(st, "in_progress");
    json_t *start = runs && !v->replaying ? term_start(t) : NULL;
    json_t *content = term_content(t);
    if (json_array_size(content))
        json_object_set_new(u, "content", content);
    else {
        json_decref(content);
        json_object_del(u, "content");
    }
    append(out, u);
    append(out, start);
    return;
plain:
    json_object_del(u, "content");
    append(out, u);
}

/* `_meta.terminal_output`: a chunk of the terminal's bytes. */
static void enc_output(br_v2sess *v, json_t *u, json_t *o, json_t *out)
{
    v2term *t = find_call(v, json_string_value(json_object_get(u, "toolCallId")), NULL);
    json_t *data = json_object_get(o, "data");
    const char *d = json_string_value(data);
    size_t n = json_string_length(data);
    json_decref(u);
    if (!t || !d || n == 0)
        return;
    if (v->replaying) { /* one snapshot at the end */
        if (t->nsnap + n > t->capsnap) {
            size_t cap = t->capsnap ? t->capsnap : 4096;
            while (cap < t->nsnap + n)
                cap *= 2;
            char *p = realloc(t->snap, cap);
            if (!p)
                return;
            t->snap = p;
            t->capsnap = cap;
        }
        memcpy(t->snap + t->nsnap, d, n);
        t->nsnap += n;
        return;
    }
    if (!t->started)
        return; /* no terminal to show it in */
    char *b64 = shc_base64(d, n);
    if (b64)
        append(out, json_pack("{s:s,s:s,s:s}", "sessionUpdate", "terminal_output_chunk",
                              "terminalId", t->tid, "data", b64));
    free(b64);
}

/* `_meta.terminal_exit`: the terminal's exit status, then the card's final update. */
static void enc_exit(br_v2sess *v, json_t *u, json_t *ex, json_t *out)
{
    const char *id = json_string_value(json_object_get(u, "toolCallId"));
    v2term *t = find_call(v, id, NULL);
    json_t *code = json_object_get(ex, "exit_code");
    json_t *sig = json_object_get(ex, "signal");
    bool ran = json_is_integer(code) || json_is_string(sig);
    json_t *tu = NULL;
    if (t && v->replaying && (ran || t->nsnap)) {
        /* replayed: the whole terminal in one update, the output as one snapshot */
        tu = term_start(t);
        json_object_del(tu, "capabilities");
        char *b64 = shc_base64(t->snap ? t->snap : "", t->nsnap);
        json_object_set_new(tu, "output", json_pack("{s:s}", "data", b64 ? b64 : ""));
        free(b64);
        json_object_set_new(u, "content", term_content(t));
    } else if (t && t->started) {
        tu = json_pack("{s:s,s:s,s:n}", "sessionUpdate", "terminal_update", "terminalId", t->tid,
                       "capabilities");
    }
    if (tu) {
        json_t *es = json_object();
        if (json_is_integer(code))
            json_object_set(es, "exitCode", code);
        if (json_is_string(sig))
            json_object_set(es, "signal", sig);
        json_object_set_new(tu, "exitStatus", es);
        append(out, tu);
    }
    const char *st = json_string_value(json_object_get(u, "status"));
    if (st && !strcmp(st, "failed") && (v->cancelling || (t && t->cancel)))
        json_object_set_new(u, "status", json_string("cancelled"));
    drop_term(v, id);
    append(out, u);
}

static void enc_tool_call_update(br_v2sess *v, json_t *u, json_t *out)
{
    json_t *o = take_meta(u, "terminal_output");
    if (o) {
        enc_output(v, u, o, out);
        json_decref(o);
        return;
    }
    json_t *ex = take_meta(u, "terminal_exit");
    if (ex) {
        enc_exit(v, u, ex, out);
        json_decref(ex);
        return;
    }
    const char *id = json_string_value(json_object_get(u, "toolCallId"));
    const char *st = json_string_value(json_object_get(u, "status"));
    v2term *t = find_call(v, id, NULL);
    if (t && !t->started && !v->replaying && st && !strcmp(st, "in_progress")) {
        /* permission granted: the command runs now, its terminal appears */
        json_t *start = term_start(t);
        json_object_set_new(u, "content", term_content(t));
        append(out, u);
        append(out, start);
        return;
    }
    if (st && !strcmp(st, "failed") && v->cancelling)
        json_object_set_new(u, "status", json_string("cancelled"));
    if (st && strcmp(st, "pending") && strcmp(st, "in_progress"))
        drop_term(v, id); /* a final status without an exit pill */
    append(out, u);
}

json_t *shc__v2_encode(br_bridge *br, br_session *s, json_t *u)
{
    json_t *out = json_array();
    br_v2sess *v = sess_state(s);
    const char *k = json_string_value(json_object_get(u, "sessionUpdate"));
    if (!out || !v || !k) {
        json_decref(u);
        return out;
    }
    if (!strcmp(k, "state_update")) { /* built by shc__v2_state: the state is already set */
        append(out, u);
        return out;
    }
    if (!strcmp(k, "current_mode_update")) { /* v2 has no modes (config options say it) */
        json_decref(u);
        return out;
    }
    if (v->state == V2_ACTION && !v->cancelling)
        append(out, state_frame(v, V2_RUNNING)); /* work goes on after the user's answer */
    int kind = !strcmp(k, "agent_message_chunk")   ? LAST_AGENT
               : !strcmp(k, "agent_thought_chunk") ? LAST_THOUGHT
               : !strcmp(k, "user_message_chunk")  ? LAST_USER
                                                   : LAST_OTHER;
    if (kind != LAST_OTHER) {
        /* a replayed prompt keeps its id (journal.h: mid); the agent's messages after a user
         * message are numbered from its id, so a replay gives them the ids they had live */
        const char *kept = json_string_value(json_object_get(u, "messageId"));
        if (kept && kind == LAST_USER) {
            snprintf(v->msg, sizeof v->msg, "%s", kept);
            snprintf(v->user, sizeof v->user, "%s", kept);
            v->nafter = 0;
        } else if (kind != v->last && v->user[0] && kind != LAST_USER) {
            snprintf(v->msg, sizeof v->msg, "%s_%u", v->user, ++v->nafter);
        } else if (kind != v->last) {
            snprintf(v->msg, sizeof v->msg, "msg_%s_%s%llu", br->v2_nonce, v->replaying ? "r" : "",
                     ++v->nmsg);
            if (kind == LAST_USER) /* a prompt without a kept id (a v1 client's): its own */
                snprintf(v->user, sizeof v->user, "%.63s", v->msg);
        }
        json_object_set_new(u, "messageId", json_string(v->msg));
        v->last = kind;
        append(out, u);
        return out;
    }
    v->last = LAST_OTHER;
    if (!strcmp(k, "tool_call")) {
        json_object_set_new(u, "sessionUpdate", json_string("tool_call_update"));
        json_t *info = take_meta(u, "terminal_info");
        if (info)
            enc_terminal_card(v, u, info, out);
        else
            append(out, u);
        json_decref(info);
    } else if (!strcmp(k, "tool_call_update")) {
        enc_tool_call_update(v, u, out);
    } else {
        append(out, u);
    }
    return out;
}

/* session/request_permission for a v2 client: the `command` subject.  Reports requires_action
 * (returned in *state, to be sent before the request). */
json_t *shc__v2_permission(br_session *s, const shc_call_info *info, const char *title,
                           json_t *options, json_t **state)
{
    br_v2sess *v = sess_state(s);
    json_t *subject = json_pack("{s:s,s:s,s:s,s:s}", "type", "command", "command", info->command,
                                "cwd", info->cwd, "toolCallId", info->call_id);
    v2term *t = v ? find_call(v, info->call_id, NULL) : NULL;
    if (subject && t)
        json_object_set_new(subject, "terminalId", json_string(t->tid));
    *state = v && !v->cancelling ? state_frame(v, V2_ACTION) : NULL;
    return json_pack("{s:s,s:s,s:o,s:o}", "sessionId", s->id, "title", title, "subject", subject,
                     "options", options);
}

/* ------------------------------------------------------------------ replays */

/* A replay gets its own encoder state, so the live terminals and message ids of a session that
 * still works are not disturbed; the live state comes back at the end. */
void shc__v2_replay_begin(br_session *s)
{
    br_v2sess *live = sess_state(s), *r = live ? calloc(1, sizeof *r) : NULL;
    if (!r)
        return;
    r->replaying = true;
    r->live = live;
    r->state = live->state;
    s->v2 = r;
}

json_t *shc__v2_replay_end(br_session *s)
{
    json_t *out = json_array();
    br_v2sess *r = s->v2;
    if (!r || !r->replaying || !r->live)
        return out;
    /* calls whose end was not replayed: their terminal as it is now, still running or not */
    for (v2term *t = r->terms; t; t = t->next) {
        v2term *lt = find_call(r->live, t->call_id, NULL);
        json_t *tu = term_start(t);
        if (!lt || !lt->started)
            json_object_set_new(tu, "capabilities", json_null());
        char *b64 = shc_base64(t->snap ? t->snap : "", t->nsnap);
        json_object_set_new(tu, "output", json_pack("{s:s}", "data", b64 ? b64 : ""));
        free(b64);
        append(out, tu);
        append(out, json_pack("{s:s,s:s,s:o}", "sessionUpdate", "tool_call_update", "toolCallId",
                              t->call_id, "content", term_content(t)));
    }
    s->v2 = r->live;
    r->live = NULL;
    shc__v2_free(r);
    return out;
}

br_v2_state shc__v2_state_of(const br_session *s)
{
    return s->v2 ? s->v2->state : V2_IDLE;
}

char *shc__v2_new_message_id(br_bridge *br, br_session *s, char *out, size_t cap)
{
    br_v2sess *v = sess_state(s);
    snprintf(out, cap, "msg_%s_%llu", br->v2_nonce, v ? ++v->nmsg : 0ULL);
    if (v) {
        v->last = LAST_USER;
        snprintf(v->user, sizeof v->user, "%s", out);
        v->nafter = 0;
    }
    return out;
}
