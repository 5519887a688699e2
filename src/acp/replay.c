/* Reading a stored session back (session/load, session/resume).  Every record of the journal
 * (journal.h) becomes the session/update it stands for, built by the presenter for the
 * capabilities of the client that loads the session, not those of the client that saw it live:
 * a terminal card replays its stored stream and exit pill to a client with terminal_output, and
 * becomes a console block for any other.  The backend's conversation and the session's settings
 * are restored on the way.  It runs a slice at a time from loop timers and waits while the
 * writer's queue is long, so a large session neither blocks the loop nor piles up in memory. */
#include "acp/bridge_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"

#define SLICE_RECORDS 256
#define SLICE_QUEUE   ((size_t)1 << 20) /* wait while more than this is queued for the client */
#define SLICE_WAIT_MS 5
#define MAX_OPEN      256 /* calls open at once; past it the oldest ends as interrupted */

static const char interrupted[] = "interrupted: shcard stopped before this command finished";

/* A call that began and has not ended yet.  Strings are borrowed from rec. */
typedef struct rcall {
    struct rcall *next;
    json_t *rec; /* owned reference: the call record */
    shc_location *locs;
    shc_verdict v;
    shc_call_info info;
    bool streamed; /* out records came (a live terminal card) */
} rcall;

struct br_replay {
    br_bridge *br;
    br_session *s;
    shc_store_file *f;
    bool quiet;
    bool started; /* the session record was seen */
    bool backend_changed; /* recorded with another backend than the one it runs on now */
    bool mode_seen;       /* the first mode record (the mode at creation) was seen */
    bool capped;
    int timer;
    rcall *calls;
    json_t *entries; /* the backend's conversation */
    shc_replay_end_fn on_end;
};

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void send(struct br_replay *r, json_t *u)
{
    if (r->quiet) {
        json_decref(u);
        return;
    }
    shc__wire_update(r->br, r->s, u);
}

static void rcall_free(rcall *c)
{
    for (size_t i = 0; c->locs && i < c->v.nlocations; i++)
        free(c->locs[i].path);
    free(c->locs);
    json_decref(c->rec);
    free(c);
}

static rcall *find_call(struct br_replay *r, const char *id, rcall ***pp)
{
    for (rcall **p = &r->calls; id && *p; p = &(*p)->next)
        if (!strcmp((*p)->info.call_id, id)) {
            if (pp)
                *pp = p;
            return *p;
        }
    return NULL;
}

static shc_kind kind_of(const char *k)
{
    return !k                    ? SHC_KIND_TERMINAL
           : !strcmp(k, "read")   ? SHC_KIND_READ
           : !strcmp(k, "search") ? SHC_KIND_SEARCH
           : !strcmp(k, "list")   ? SHC_KIND_LIST
                                  : SHC_KIND_TERMINAL;
}

static void end_call(struct br_replay *r, rcall **pp, json_t *rec);

static void on_call(struct br_replay *r, json_t *rec)
{
    const char *id = str(rec, "id"), *command = str(rec, "command");
    if (!id || !command || find_call(r, id, NULL))
        return;
    /* bounded: a file of calls that never end (a planted one) costs neither memory nor time */
    size_t open = 0;
    rcall **last = NULL;
    for (rcall **p = &r->calls; *p; p = &(*p)->next, open++)
        last = p;
    if (open >= MAX_OPEN)
        end_call(r, last, NULL);
    rcall *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->rec = json_incref(rec);
    json_t *locs = json_object_get(rec, "locations");
    size_t n = json_array_size(locs);
    c->locs = n ? calloc(n, sizeof *c->locs) : NULL;
    for (size_t i = 0; c->locs && i < n; i++) {
        const char *p = str(json_array_get(locs, i), "path");
        json_t *line = json_object_get(json_array_get(locs, i), "line");
        if (!p || !(c->locs[c->v.nlocations].path = strdup(p)))
            continue;
        c->locs[c->v.nlocations++].line = json_is_integer(line) ? (long)json_integer_value(line) : 0;
    }
    /* the verdict's facts, as the presenter reads them (the strings stay in rec) */
    c->v.kind = kind_of(str(rec, "kind"));
    c->v.locations = c->locs;
    json_t *line = json_object_get(rec, "line");
    c->v.line = json_is_integer(line) ? (long)json_integer_value(line) : 0;
    union {
        const char *c;
        char *m;
    } title = {str(rec, "title")}, path = {str(rec, "path")};
    c->v.title = title.m; /* the presenter never writes through these */
    c->v.path = path.m;
    shc_client_caps caps = r->s->caps;
    caps.client_terminals = false; /* a released client terminal cannot be shown again */
    c->info = (shc_call_info){id,         command, str(rec, "cwd"), str(rec, "description"),
                              &c->v,      shc_present_card(&c->v, &caps), NULL};
    c->next = r->calls;
    r->calls = c;
    /* the session's later calls must not reuse an id */
    if (!strncmp(id, "call_", 5) && id[5] >= '0' && id[5] <= '9') {
        errno = 0;
        char *end;
        unsigned long long k = strtoull(id + 5, &end, 10);
        if (!errno && !*end && k > r->s->ncalls)
            r->s->ncalls = k;
    }
    const char *status = str(rec, "status");
    send(r, shc_present_tool_call(&c->info, status && !strcmp(status, "pending") ? "pending"
                                                                                : "in_progress"));
}

/* A stored text as terminal output: the console text has bare newlines. */
static json_t *as_terminal(const shc_call_info *info, const char *text)
{
    shc_strbuf b = {0};
    for (const char *p = text; *p; p++) {
        if (*p == '\n' && (p == text || p[-1] != '\r'))
            shc_strbuf_putc(&b, '\r');
        shc_strbuf_putc(&b, *p);
    }
    char *s = shc_strbuf_take(&b);
    json_t *u = s ? shc_present_output(info, s, strlen(s)) : NULL;
    free(s);
    return u;
}

static void end_call(struct br_replay *r, rcall **pp, json_t *rec)
{
    rcall *c = *pp;
    *pp = c->next;
    json_t *code = json_object_get(rec, "exit_code");
    const char *text = rec ? str(rec, "text") : NULL, *tail = rec ? str(rec, "tail") : NULL;
    shc_call_end end = {
        rec ? json_is_true(json_object_get(rec, "ran")) : false,
        json_is_integer(code) ? (int)json_integer_value(code) : -1,
        rec ? str(rec, "signal") : NULL,
        text,
        text ? strlen(text) : 0,
        rec ? str(rec, "error") : interrupted,
    };
    if (end.ran && !end.signal && !json_is_integer(code))
        end.ran = false; /* a record that does not hold together: shown as not run */
    if (c->info.card == SHC_CARD_TERMINAL && end.ran) {
        if (!c->streamed && text && *text)
            send(r, as_terminal(&c->info, text));
        if (tail && *tail)
            send(r, shc_present_output(&c->info, tail, strlen(tail)));
    }
    send(r, shc_present_final(&c->info, &end));
    rcall_free(c);
}

/* Calls a crash left open end as interrupted, at the end of their turn. */
static void close_open(struct br_replay *r)
{
    while (r->calls)
        end_call(r, &r->calls, NULL);
}

static void on_model(struct br_replay *r, json_t *rec)
{
    json_t *i = json_object_get(rec, "i");
    json_t *entry = json_object_get(rec, "entry");
    if (!json_is_integer(i) || json_integer_value(i) < 0 ||
        (size_t)json_integer_value(i) > json_array_size(r->entries))
        return;
    size_t n = (size_t)json_integer_value(i);
    while (json_array_size(r->entries) > n)
        json_array_remove(r->entries, json_array_size(r->entries) - 1);
    if (json_is_object(entry))
        json_array_append(r->entries, entry);
}

static json_t *chunk(const char *kind, const char *text)
{
    return json_pack("{s:s,s:{s:s,s:s}}", "sessionUpdate", kind, "content", "type", "text",
                     "text", text);
}

/* One record.  Returns 0, or -1 when the file is not this session's. */
static int apply(struct br_replay *r, json_t *rec)
{
    const char *t = str(rec, "t");
    if (!r->started) {
        if (strcmp(t, "session") || !str(rec, "id") || strcmp(str(rec, "id"), r->s->id))
            return -1;
        r->started = true;
        const char *agent = str(rec, "agent");
        r->backend_changed = !agent || strcmp(agent, r->s->be->ops->name);
        return 0;
    }
    rcall **pp;
    rcall *c;
    if (!strcmp(t, "title") && str(rec, "title")) {
        r->s->titled = true;
        json_t *u = json_pack("{s:s,s:s}", "sessionUpdate", "session_info_update", "title",
                              str(rec, "title"));
        if (u && str(rec, "at"))
            json_object_set_new(u, "updatedAt", json_string(str(rec, "at")));
        send(r, u);
    } else if (!strcmp(t, "prompt")) {
        close_open(r);
        size_t i;
        json_t *b;
        const char *mid = str(rec, "mid"); /* a v2 prompt's message id, kept */
        json_array_foreach(json_object_get(rec, "blocks"), i, b)
        {
            json_t *u = json_pack("{s:s,s:O}", "sessionUpdate", "user_message_chunk", "content", b);
            if (u && mid && r->br->version == 2)
                json_object_set_new(u, "messageId", json_string(mid));
            send(r, u);
        }
    } else if (!strcmp(t, "text") && str(rec, "text")) {
        const char *kind = str(rec, "kind");
        send(r, chunk(kind && !strcmp(kind, "thought") ? "agent_thought_chunk"
                                                       : "agent_message_chunk",
                      str(rec, "text")));
    } else if (!strcmp(t, "call")) {
        on_call(r, rec);
    } else if (!strcmp(t, "status") && (c = find_call(r, str(rec, "id"), NULL)) &&
               str(rec, "status") && !strcmp(str(rec, "status"), "in_progress")) {
        send(r, shc_present_status(&c->info, "in_progress"));
    } else if (!strcmp(t, "flip") && (c = find_call(r, str(rec, "id"), NULL)) &&
               str(rec, "notice") && c->info.card == SHC_CARD_CLASSIFIED) {
        /* the watch turned the card into a terminal card (verify.c): the same here */
        shc_client_caps caps = r->s->caps;
        caps.client_terminals = false;
        c->info.card = shc_present_card(NULL, &caps);
        send(r, shc_present_flip(&c->info, str(rec, "notice")));
    } else if (!strcmp(t, "out") && (c = find_call(r, str(rec, "id"), NULL)) && str(rec, "data")) {
        c->streamed = true;
        if (c->info.card == SHC_CARD_TERMINAL)
            send(r, shc_present_output(&c->info, str(rec, "data"),
                                       json_string_length(json_object_get(rec, "data"))));
    } else if (!strcmp(t, "end") && find_call(r, str(rec, "id"), &pp)) {
        end_call(r, pp, rec);
    } else if (!strcmp(t, "mcp_call") && str(rec, "id") && str(rec, "title") && str(rec, "kind")) {
        send(r, shc__mcp_card(str(rec, "id"), str(rec, "title"), str(rec, "kind"), "in_progress",
                              json_object_get(rec, "input")));
    } else if (!strcmp(t, "mcp_end") && str(rec, "id") && str(rec, "status") && str(rec, "text")) {
        send(r, shc__mcp_card_end(str(rec, "id"), str(rec, "status"), str(rec, "text"),
                                  json_string_length(json_object_get(rec, "text")), NULL));
    } else if (!strcmp(t, "turn")) {
        close_open(r);
    } else if (!strcmp(t, "model")) {
        on_model(r, rec);
    } else if (!strcmp(t, "usage")) {
        json_t *used = json_object_get(rec, "used"), *size = json_object_get(rec, "size");
        if (json_is_integer(used) && json_is_integer(size))
            send(r, json_pack("{s:s,s:O,s:O}", "sessionUpdate", "usage_update", "used", used,
                              "size", size));
    } else if (!strcmp(t, "config")) {
        /* The first mode record is the mode at creation.  When it came from the backend's
         * default (shell mode runs everything: the user types each command) and no --approve
         * is given now, the session takes the default of the backend it runs on now, so a
         * shell-mode session loaded onto the model does not keep "all".  A mode the user chose
         * (set_mode: a later record) or a flag gave is kept.  Records written before "by"
         * existed count as the default when the backend changed. */
        bool first = !strcmp(str(rec, "id") ? str(rec, "id") : "", "mode") && !r->mode_seen;
        if (first)
            r->mode_seen = true;
        const char *by = str(rec, "by");
        bool from_default = by ? !strcmp(by, "default") : r->backend_changed;
        if (!(first && from_default && r->br->cfg.approve == SHC_APPROVE_DEFAULT))
            shc__opt_restore(r->br, r->s, str(rec, "id"), str(rec, "value"));
    } else if (!strcmp(t, "capped")) {
        r->capped = true;
    } else if (!strcmp(t, "skipped") && str(rec, "what") && !strcmp(str(rec, "what"), "prompt")) {
        send(r, chunk("user_message_chunk", "[a prompt too large for the session store]"));
    }
    /* unknown records (a later shcard's) are skipped */
    return 0;
}

static void replay_free(struct br_replay *r)
{
    while (r->calls) {
        rcall *c = r->calls;
        r->calls = c->next;
        rcall_free(c);
    }
    if (r->timer)
        shc_loop_cancel_timer(r->br->loop, r->timer);
    json_decref(r->entries);
    shc_store_close(r->f);
    free(r);
}

/* The end: success hands the file to the session; failure closes it. */
static void finish(struct br_replay *r, int rc, const char *err)
{
    br_session *s = r->s;
    br_bridge *br = r->br;
    shc_replay_end_fn on_end = r->on_end;
    s->replay = NULL;
    if (rc == 0) {
        close_open(r);
        if (r->capped)
            send(r, chunk("agent_message_chunk",
                          "[The rest of this session was not stored: it reached the session "
                          "store's size limit.]"));
        size_t n = json_array_size(r->entries);
        if (n && s->be->ops->session_restore) {
            char **v = calloc(n, sizeof *v);
            for (size_t i = 0; v && i < n; i++)
                v[i] = json_dumps(json_array_get(r->entries, i), JSON_COMPACT);
            if (!v || s->be->ops->session_restore(s->be, s->id, (const char *const *)v, n))
                shc_log_warn(br->log, "%s: the model's conversation could not be restored",
                             s->id);
            for (size_t i = 0; v && i < n; i++)
                free(v[i]);
            free(v);
        }
        if (s->model && s->be->ops->set_model)
            s->be->ops->set_model(s->be, s->id, s->model);
        s->file = r->f;
        r->f = NULL;
    }
    replay_free(r);
    on_end(br, s, rc, err);
}

static void step(shc_loop *loop, void *payload)
{
    (void)loop;
    struct br_replay *r = payload;
    r->timer = 0;
    for (int k = 0; k < SLICE_RECORDS; k++) {
        if (!r->quiet && shc_rpc_queued(r->br->rpc) > SLICE_QUEUE) {
            r->timer = shc_loop_timer(r->br->loop, SLICE_WAIT_MS, step, r);
            return;
        }
        json_t *rec = NULL;
        char err[300];
        int rc = shc_store_read(r->f, &rec, err, sizeof err);
        if (rc == 0 && !r->started) {
            finish(r, SHC_STORE_ECORRUPT, "the file holds no session record");
            return;
        }
        if (rc <= 0) {
            finish(r, rc, rc ? err : NULL);
            return;
        }
        int bad = apply(r, rec);
        json_decref(rec);
        if (bad) {
            finish(r, SHC_STORE_ECORRUPT, "the first record is not this session's");
            return;
        }
    }
    r->timer = shc_loop_timer(r->br->loop, 0, step, r);
}

int shc__replay_start(br_bridge *br, br_session *s, shc_store_file *f, bool quiet,
                      shc_replay_end_fn on_end)
{
    struct br_replay *r = calloc(1, sizeof *r);
    if (!r || !(r->entries = json_array())) {
        free(r);
        shc_store_close(f);
        return SHC_E_NOMEM;
    }
    r->br = br;
    r->s = s;
    r->f = f;
    r->quiet = quiet;
    r->on_end = on_end;
    r->timer = shc_loop_timer(br->loop, 0, step, r);
    if (r->timer <= 0) {
        r->timer = 0;
        replay_free(r);
        return SHC_E_NOMEM;
    }
    s->replay = r;
    return 0;
}

void shc__replay_abort(br_bridge *br, br_session *s, const char *why)
{
    (void)br;
    if (s->replay)
        finish(s->replay, SHC_E_IO, why);
}
