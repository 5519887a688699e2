/* The model agent loop.  One turn is a small state machine driven by loop callbacks:
 *
 *   REQUEST ──(stream ends with tool calls)──► TOOLS ──(all results in)──► REQUEST ...
 *      │ 429/5xx: BACKOFF, then REQUEST again (bounded)
 *      └─(no tool calls / length / limit / error / cancel)──► DONE
 *
 * Every step that could re-enter the bridge (starting a request, dispatching the next tool
 * call, reporting turn_done) runs from a zero-delay loop timer, so no host callback is ever
 * called from inside another host callback.  The history of a session is an array of chat
 * messages; a turn only appends to it, and on failure before anything happened it rolls back
 * the user message so the next prompt starts clean. */
#include "openai.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "oai_delta.h"
#include "shc.h"
#include "sse.h"

#define ERRBODY_MAX 2048 /* bytes of a non-2xx response body kept for the message */
#define JSONRPC_INTERNAL (-32603)

typedef struct session {
    char *id;
    json_t *history; /* array of chat messages (owned) */
    unsigned turns;  /* turns started, for made-up tool call ids */
    int refs;        /* 1 for the table + 1 per live turn */
    struct session *next;
} session;

typedef struct openai {
    shc_backend base; /* first: the seam casts */
    char *model;
    char *url;         /* {base}/chat/completions */
    char *base_url;    /* for messages */
    char *auth;        /* "Authorization: Bearer ..." or NULL (wiped on free) */
    char *key;         /* for redaction (wiped on free) */
    char *system_prompt;
    long max_requests;
    long idle_timeout_s;
    shc_loop *loop;
    shc_http *http;
    session *sessions;
} openai;

typedef enum step { STEP_NONE, STEP_REQUEST, STEP_DISPATCH, STEP_REPORT } step;
typedef enum tstate { T_REQUEST, T_BACKOFF, T_TOOLS, T_DONE } tstate;

struct shc_backend_turn {
    openai *be;
    session *s;
    shc_loop *loop;
    shc_backend_host host;
    char *cwd;
    tstate state;
    size_t history_at_start; /* history length before the user message */
    long requests;           /* completions asked for in this turn */
    int attempt;             /* failed attempts of the current request */
    shc_http_req *req;
    shc_sse *sse;
    shc_oai_delta *delta;
    bool streamed;   /* some 2xx body arrived */
    /* text deltas of one network read, passed on as one chunk (kind: 0 none, 1 text, 2 thought) */
    int pend_kind;
    char *pend;
    size_t pend_len, pend_cap;
    int stream_rc;   /* first stream error */
    char stream_err[256];
    char errbody[ERRBODY_MAX + 1];
    size_t errbody_len;
    json_t *calls;        /* tool_calls of the last assistant message (borrowed from history) */
    size_t next_call;     /* next one to dispatch */
    char *waiting;        /* call id the bridge is running, or NULL */
    int timer;            /* the one pending step timer, 0 = none */
    step next_step;
    /* the outcome, reported by the REPORT step */
    shc_stop_reason reason;
    int code;
    char *error;
};

/* ------------------------------------------------------------------ text helpers */

static const char default_prompt[] =
    "You are a coding agent working in the user's project. You act by running shell commands "
    "with the `bash` tool and then answer the user. Inspect before you change anything: prefer "
    "read-only commands (cat, sed -n, head, rg, grep, ls, find, git status, git diff). Keep "
    "commands short and non-interactive (no editors, pagers or prompts); add flags such as "
    "--no-pager where needed. The user sees every command as a card and may reject it; if a "
    "command is rejected, do not retry it: ask or take another way. Answer in Markdown, "
    "concisely. When you are done, reply without calling any tool.";

static const char tool_description[] =
    "Run a shell command with bash in the session's working directory on a "
    "pseudo-terminal, and return its output (ANSI escapes stripped; long output keeps its head "
    "and tail) followed by a last line `[exit code: N]`, `[killed by signal: S]` or "
    "`[timed out]`. Each call starts a fresh shell: `cd` and variables do not carry over, so "
    "chain steps with && in one command. Commands run with a time limit and without a terminal "
    "user, so never start interactive programs. The user sees each command and may reject it.";

/* Replaces every occurrence of the key in s (in place) with '*'. */
static void redact(const openai *be, char *s)
{
    if (!be->key || !*be->key || !s)
        return;
    size_t kl = strlen(be->key);
    char *p;
    while ((p = strstr(s, be->key)))
        memset(p, '*', kl);
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ------------------------------------------------------------------ request body */

char *shc_openai_request_body(const char *model, const char *system_prompt, const char *cwd,
                              json_t *history)
{
    char *sys = NULL, *out = NULL;
    const char *base = system_prompt ? system_prompt : default_prompt;
    size_t n = strlen(base) + (cwd ? strlen(cwd) : 0) + 64;
    sys = malloc(n);
    if (!sys)
        return NULL;
    snprintf(sys, n, "%s\n\nThe working directory is %s.", base, cwd ? cwd : "(unknown)");
    json_t *msgs = json_array();
    json_t *req = json_pack(
        "{s:s, s:b, s:o, s:[{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}, "
        "s:[s]}}}]}",
        "model", model, "stream", 1, "messages", msgs, "tools", "type", "function", "function",
        "name", "bash", "description", tool_description, "parameters", "type", "object",
        "properties", "command", "type", "string", "description",
        "The command line to run, for example `rg -n shc_parse src`.", "description", "type",
        "string", "description", "A few words for the user saying what the command does.",
        "required", "command");
    if (!req)
        goto done;
    if (json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "system", "content", sys)))
        goto done;
    if (history && json_array_extend(msgs, history))
        goto done;
    out = json_dumps(req, JSON_COMPACT);
done:
    json_decref(req);
    free(sys);
    return out;
}

/* ------------------------------------------------------------------ sessions */

static session *session_get(openai *be, const char *id, bool create)
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

static void session_unref(session *s)
{
    if (!s || --s->refs > 0)
        return;
    free(s->id);
    json_decref(s->history);
    free(s);
}

/* ------------------------------------------------------------------ steps */

static void run_step(shc_loop *loop, void *payload);

static void schedule(shc_backend_turn *t, step st, uint64_t ms)
{
    if (t->timer)
        shc_loop_cancel_timer(t->loop, t->timer);
    t->next_step = st;
    t->timer = shc_loop_timer(t->loop, ms, run_step, t);
    if (t->timer < 0) { /* out of memory in the loop: nothing sane left but to say so */
        t->timer = 0;
        fprintf(stderr, "shcard: model: cannot schedule a timer\n");
    }
}

static void add_history(shc_backend_turn *t, json_t *msg /* steals */)
{
    if (!msg || json_array_append_new(t->s->history, msg))
        fprintf(stderr, "shcard: model: out of memory recording the conversation\n");
}

static void stop_transfer(shc_backend_turn *t)
{
    shc_http_cancel(t->req);
    t->req = NULL;
}

/* Ends the turn: records the outcome, and reports it from the next loop iteration. */
static void finish(shc_backend_turn *t, shc_stop_reason reason, const char *error)
{
    if (t->state == T_DONE)
        return;
    stop_transfer(t);
    t->state = T_DONE;
    t->reason = reason;
    t->code = error ? JSONRPC_INTERNAL : 0;
    if (error) {
        t->error = strdup(error);
        redact(t->be, t->error);
        /* nothing happened after the user message: forget it, so a retry starts clean */
        if (json_array_size(t->s->history) == t->history_at_start + 1)
            json_array_remove(t->s->history, t->history_at_start);
        else
            add_history(t, json_pack("{s:s, s:s++}", "role", "assistant", "content",
                                     "[this turn ended with an error: ", t->error ? t->error : "",
                                     "]"));
    }
    schedule(t, STEP_REPORT, 0);
}

static void failf(shc_backend_turn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(shc_backend_turn *t, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    redact(t->be, msg);
    fprintf(stderr, "shcard: model: %s\n", msg);
    finish(t, SHC_STOP_END_TURN, msg);
}

/* ------------------------------------------------------------------ streaming */

/* Passes the pending text on.  Deltas that arrive in one network read are joined: the client
 * sees them at the same moment anyway, and one notification per token costs the bridge a write
 * per token. */
static void flush_pending(shc_backend_turn *t)
{
    int kind = t->pend_kind;
    size_t n = t->pend_len;
    t->pend_kind = 0;
    t->pend_len = 0;
    if (!n || t->state != T_REQUEST)
        return;
    if (kind == 1 && t->host.message_chunk)
        t->host.message_chunk(t->host.payload, t->pend, n);
    else if (kind == 2 && t->host.thought_chunk)
        t->host.thought_chunk(t->host.payload, t->pend, n);
}

#define PEND_MAX (64u * 1024u)

static void add_pending(shc_backend_turn *t, int kind, const char *text, size_t len)
{
    if (t->pend_kind != kind || t->pend_len + len > PEND_MAX)
        flush_pending(t);
    if (t->pend_len + len > t->pend_cap) {
        size_t cap = t->pend_cap ? t->pend_cap : 1024;
        while (cap < t->pend_len + len)
            cap *= 2;
        char *p = realloc(t->pend, cap);
        if (!p) { /* pass it on unjoined */
            flush_pending(t);
            t->pend_kind = kind;
            if (kind == 1 && t->host.message_chunk)
                t->host.message_chunk(t->host.payload, text, len);
            else if (kind == 2 && t->host.thought_chunk)
                t->host.thought_chunk(t->host.payload, text, len);
            t->pend_kind = 0;
            return;
        }
        t->pend = p;
        t->pend_cap = cap;
    }
    memcpy(t->pend + t->pend_len, text, len);
    t->pend_len += len;
    t->pend_kind = kind;
}

static void on_content(void *p, const char *text, size_t len)
{
    add_pending(p, 1, text, len);
}

static void on_reasoning(void *p, const char *text, size_t len)
{
    add_pending(p, 2, text, len);
}

static const shc_oai_delta_cbs delta_cbs = {on_content, on_reasoning};

static int on_event(void *p, const char *event, const char *data, size_t len)
{
    (void)event;
    shc_backend_turn *t = p;
    int rc = shc_oai_delta_feed(t->delta, data, len, &delta_cbs, t, t->stream_err,
                                sizeof t->stream_err);
    if (t->state != T_REQUEST)
        return -1; /* cancelled from a chunk callback */
    return rc;
}

static int on_body(void *p, long status, const char *buf, size_t len)
{
    shc_backend_turn *t = p;
    if (status < 200 || status > 299) {
        size_t room = ERRBODY_MAX - t->errbody_len;
        size_t k = len < room ? len : room;
        memcpy(t->errbody + t->errbody_len, buf, k);
        t->errbody_len += k;
        t->errbody[t->errbody_len] = '\0';
        return 0;
    }
    t->streamed = true;
    if (t->stream_rc)
        return 1;
    int rc = shc_sse_feed(t->sse, buf, len, on_event, t);
    flush_pending(t);
    if (t->state != T_REQUEST)
        return 1;
    if (rc) {
        t->stream_rc = rc;
        if (!t->stream_err[0])
            snprintf(t->stream_err, sizeof t->stream_err, "%s",
                     rc == SHC_E_LIMIT ? "a stream event is too large" : "out of memory");
        return 1;
    }
    return 0;
}

/* A short, single-line excerpt of an error body: the API's error.message when it has one. */
static void body_excerpt(shc_backend_turn *t, char *out, size_t n)
{
    out[0] = '\0';
    json_t *j = json_loadb(t->errbody, t->errbody_len, 0, NULL);
    json_t *e = json_object_get(j, "error");
    const char *m = json_is_object(e)   ? json_string_value(json_object_get(e, "message"))
                    : json_is_string(e) ? json_string_value(e)
                                        : NULL;
    const char *src = m ? m : t->errbody;
    size_t k = strlen(src) < n - 1 ? strlen(src) : n - 1;
    memcpy(out, src, k);
    out[k] = '\0';
    json_decref(j);
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    if (strlen(out) > 200)
        strcpy(out + 197, "...");
    redact(t->be, out);
}

static void on_message(shc_backend_turn *t);

static void on_done(void *p, const shc_http_result *res)
{
    shc_backend_turn *t = p;
    t->req = NULL;
    if (t->state != T_REQUEST)
        return;
    long st = res->status;
    char ex[256];
    if (st == 401 || st == 403) {
        body_excerpt(t, ex, sizeof ex);
        failf(t, "the model server refused the API key (HTTP %ld from %s)%s%s%s", st,
              t->be->base_url, t->be->key ? "" : "; no key was sent: set DEEPSEEK_API_KEY",
              ex[0] ? ": " : "", ex);
        return;
    }
    if (st == 429 || st >= 500) {
        t->attempt++;
        body_excerpt(t, ex, sizeof ex);
        if (t->attempt >= SHC_OPENAI_MAX_ATTEMPTS) {
            failf(t, "the model server answered HTTP %ld %d times; giving up%s%s", st, t->attempt,
                  ex[0] ? ": " : "", ex);
            return;
        }
        uint64_t ms = (uint64_t)SHC_OPENAI_BACKOFF_MS << (t->attempt - 1);
        if (res->retry_after > 0) {
            long ra = res->retry_after < SHC_OPENAI_MAX_RETRY_AFTER_S
                          ? res->retry_after
                          : SHC_OPENAI_MAX_RETRY_AFTER_S;
            if ((uint64_t)ra * 1000u > ms)
                ms = (uint64_t)ra * 1000u;
        }
        fprintf(stderr, "shcard: model: HTTP %ld, retrying in %llu ms (attempt %d of %d)\n", st,
                (unsigned long long)ms, t->attempt + 1, SHC_OPENAI_MAX_ATTEMPTS);
        t->state = T_BACKOFF;
        schedule(t, STEP_REQUEST, ms);
        return;
    }
    if (st != 0 && (st < 200 || st > 299)) {
        body_excerpt(t, ex, sizeof ex);
        failf(t, "the model server answered HTTP %ld%s%s", st, ex[0] ? ": " : "", ex);
        return;
    }
    if (t->stream_rc) {
        failf(t, "the model server's response is not a chat completion stream: %s", t->stream_err);
        return;
    }
    if (res->failed) {
        if (st == 0)
            failf(t, "cannot reach the model server at %s: %s", t->be->base_url, res->error);
        else
            failf(t, "the model stream from %s broke off: %s", t->be->base_url, res->error);
        return;
    }
    if (shc_sse_events(t->sse) == 0) {
        failf(t, "the model server's response is not an event stream (did it ignore "
                 "\"stream\": true?)");
        return;
    }
    const char *fin = shc_oai_delta_finish(t->delta);
    if (!fin && !shc_oai_delta_done(t->delta)) {
        failf(t, "the model stream ended before the message was complete%s",
              shc_sse_pending(t->sse) ? " (cut in the middle of an event)" : "");
        return;
    }
    on_message(t);
}

static void start_request(shc_backend_turn *t)
{
    openai *be = t->be;
    if (!be->http) {
        be->loop = t->loop;
        be->http = shc_http_new(t->loop);
        if (!be->http) {
            failf(t, "cannot start libcurl");
            return;
        }
    }
    if (t->attempt == 0) {
        if (t->requests >= be->max_requests) {
            finish(t, SHC_STOP_MAX_TURN_REQUESTS, NULL);
            return;
        }
        t->requests++;
    }
    shc_sse_free(t->sse);
    shc_oai_delta_free(t->delta);
    t->sse = shc_sse_new(0);
    t->delta = shc_oai_delta_new();
    t->streamed = false;
    t->stream_rc = 0;
    t->stream_err[0] = '\0';
    t->errbody_len = 0;
    t->errbody[0] = '\0';
    char *body = shc_openai_request_body(be->model, be->system_prompt, t->cwd, t->s->history);
    if (!t->sse || !t->delta || !body) {
        free(body);
        failf(t, "out of memory building the request");
        return;
    }
    const char *headers[] = {"Content-Type: application/json", "Accept: text/event-stream",
                             be->auth, NULL};
    shc_http_opts o = {.url = be->url,
                       .body = body,
                       .body_len = strlen(body),
                       .headers = headers,
                       .idle_timeout_s = be->idle_timeout_s};
    static const shc_http_cbs cbs = {on_body, on_done};
    t->state = T_REQUEST;
    int rc = shc_http_post(&t->req, be->http, &o, &cbs, t);
    free(body);
    if (rc)
        failf(t, "cannot start the request to %s", be->base_url);
}

/* ------------------------------------------------------------------ tool calls */

static void tool_message(shc_backend_turn *t, const char *id, const char *text)
{
    add_history(t, json_pack("{s:s, s:s, s:s}", "role", "tool", "tool_call_id", id, "content",
                             text));
}

static void dispatch(shc_backend_turn *t)
{
    while (t->next_call < json_array_size(t->calls)) {
        json_t *c = json_array_get(t->calls, t->next_call++);
        const char *id = json_string_value(json_object_get(c, "id"));
        json_t *fn = json_object_get(c, "function");
        const char *name = json_string_value(json_object_get(fn, "name"));
        const char *args = json_string_value(json_object_get(fn, "arguments"));
        if (!id)
            continue;
        if (!name || strcmp(name, "bash")) {
            char msg[200];
            snprintf(msg, sizeof msg, "error: unknown tool '%.80s'; the only tool is bash",
                     name ? name : "");
            tool_message(t, id, msg);
            continue;
        }
        json_error_t je;
        json_t *a = json_loads(args ? args : "", 0, &je);
        json_t *cmd = json_object_get(a, "command");
        json_t *desc = json_object_get(a, "description");
        if (!json_is_object(a) || !json_is_string(cmd) || json_string_length(cmd) == 0 ||
            strlen(json_string_value(cmd)) != json_string_length(cmd)) {
            char msg[300];
            if (!a)
                snprintf(msg, sizeof msg,
                         "error: the arguments are not valid JSON (%.100s); expected "
                         "{\"command\": \"...\", \"description\": \"...\"}",
                         je.text);
            else
                snprintf(msg, sizeof msg, "error: the arguments need a non-empty string "
                                          "\"command\"; expected {\"command\": \"...\", "
                                          "\"description\": \"...\"}");
            json_decref(a);
            tool_message(t, id, msg);
            continue;
        }
        t->waiting = strdup(id);
        char *command = strdup(json_string_value(cmd));
        char *description = strdup(json_is_string(desc) ? json_string_value(desc) : "");
        json_decref(a);
        if (!t->waiting || !command || !description) {
            free(command);
            free(description);
            failf(t, "out of memory");
            return;
        }
        t->state = T_TOOLS;
        if (t->host.tool_call)
            t->host.tool_call(t->host.payload, t->waiting, command, description);
        free(command);
        free(description);
        return; /* tool_result continues */
    }
    t->calls = NULL;
    start_request(t);
}

static void on_message(shc_backend_turn *t)
{
    t->attempt = 0;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t%ur%ld", t->s->turns, t->requests);
    json_t *msg = shc_oai_delta_message(t->delta, prefix);
    if (!msg) {
        failf(t, "out of memory");
        return;
    }
    add_history(t, msg);
    const char *fin = shc_oai_delta_finish(t->delta);
    if (fin && !strcmp(fin, "length")) {
        /* any tool call in a cut message is incomplete: answer them so the history stays valid */
        json_t *calls = json_object_get(msg, "tool_calls");
        size_t i;
        json_t *c;
        json_array_foreach(calls, i, c)
        {
            tool_message(t, json_string_value(json_object_get(c, "id")),
                         "error: not run: the reply was cut off by the token limit");
        }
        finish(t, SHC_STOP_MAX_TOKENS, NULL);
        return;
    }
    if (fin && !strcmp(fin, "content_filter")) {
        finish(t, SHC_STOP_REFUSAL, NULL);
        return;
    }
    t->calls = json_object_get(msg, "tool_calls");
    t->next_call = 0;
    if (json_array_size(t->calls) == 0) {
        t->calls = NULL;
        finish(t, SHC_STOP_END_TURN, NULL);
        return;
    }
    t->state = T_TOOLS;
    dispatch(t);
}

static bool ends_with_exit_line(const char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    size_t b = n;
    while (b && s[b - 1] != '\n')
        b--;
    const char *l = s + b;
    return !strncmp(l, "[exit code: ", 12) || !strncmp(l, "[killed by signal: ", 19) ||
           !strncmp(l, "[timed out]", 11);
}

static void op_tool_result(shc_backend_turn *t, const shc_tool_result *r)
{
    if (!t || !r || t->state != T_TOOLS || !t->waiting || !r->call_id ||
        strcmp(r->call_id, t->waiting))
        return; /* late (after cancel) or unknown: nothing to do */
    const char *text = r->model_text ? r->model_text : "";
    char line[160];
    if (!r->ran)
        snprintf(line, sizeof line, "[not run: %.120s]",
                 r->error ? r->error : (r->cancelled ? "cancelled" : "not run"));
    else if (r->timed_out)
        snprintf(line, sizeof line, "[timed out]");
    else if (r->signal)
        snprintf(line, sizeof line, "[killed by signal: %.40s]", r->signal);
    else
        snprintf(line, sizeof line, "[exit code: %d]", r->exit_code);
    char *content = NULL;
    if (r->ran && ends_with_exit_line(text)) {
        content = strdup(text);
    } else {
        size_t n = strlen(text);
        content = malloc(n + strlen(line) + 2);
        if (content)
            sprintf(content, "%s%s%s", text, n && text[n - 1] != '\n' ? "\n" : "", line);
    }
    if (!content) {
        failf(t, "out of memory");
        return;
    }
    tool_message(t, t->waiting, content);
    free(content);
    free(t->waiting);
    t->waiting = NULL;
    schedule(t, STEP_DISPATCH, 0);
}

/* ------------------------------------------------------------------ turn ops */

static void run_step(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_backend_turn *t = payload;
    t->timer = 0;
    step st = t->next_step;
    t->next_step = STEP_NONE;
    switch (st) {
    case STEP_REQUEST:
        if (t->state != T_DONE)
            start_request(t);
        break;
    case STEP_DISPATCH:
        if (t->state == T_TOOLS)
            dispatch(t);
        break;
    case STEP_REPORT:
        if (t->host.turn_done)
            t->host.turn_done(t->host.payload, t->reason, t->code, t->error);
        break;
    case STEP_NONE:
        break;
    }
}

static shc_backend_turn *op_turn_start(shc_backend *base, shc_loop *loop, const char *session_id,
                                       const char *cwd, const char *prompt,
                                       const shc_backend_host *host)
{
    openai *be = (openai *)base;
    shc_backend_turn *t = calloc(1, sizeof *t);
    if (!t)
        goto fail;
    t->be = be;
    t->loop = loop;
    t->host = *host;
    t->cwd = strdup(cwd ? cwd : "");
    t->s = session_get(be, session_id, true);
    if (!t->cwd || !t->s)
        goto fail;
    t->s->refs++;
    t->s->turns++;
    t->history_at_start = json_array_size(t->s->history);
    if (json_array_append_new(t->s->history,
                              json_pack("{s:s, s:s}", "role", "user", "content", prompt)))
        goto fail;
    t->state = T_BACKOFF; /* until the first request starts */
    schedule(t, STEP_REQUEST, 0);
    if (!t->timer)
        goto fail;
    return t;
fail:
    if (t) {
        session_unref(t->s);
        free(t->cwd);
        free(t);
    }
    if (host->turn_done)
        host->turn_done(host->payload, SHC_STOP_END_TURN, JSONRPC_INTERNAL,
                        "out of memory starting the turn");
    return NULL;
}

static void op_cancel(shc_backend_turn *t)
{
    if (!t || t->state == T_DONE)
        return;
    stop_transfer(t);
    /* record what happened, keeping the history a valid conversation */
    if (t->state == T_TOOLS) {
        if (t->waiting)
            tool_message(t, t->waiting, "[cancelled by the user while the command was running "
                                        "or waiting for approval]");
        while (t->calls && t->next_call < json_array_size(t->calls)) {
            json_t *c = json_array_get(t->calls, t->next_call++);
            const char *id = json_string_value(json_object_get(c, "id"));
            if (id)
                tool_message(t, id, "[not run: the user cancelled the turn]");
        }
    } else {
        size_t n = 0;
        const char *partial = t->delta ? shc_oai_delta_content(t->delta, &n) : "";
        add_history(t, json_pack("{s:s, s:s+}", "role", "assistant", "content", n ? partial : "",
                                 n ? "\n\n[cancelled by the user]" : "[cancelled by the user]"));
    }
    finish(t, SHC_STOP_CANCELLED, NULL);
}

static void op_turn_free(shc_backend_turn *t)
{
    if (!t)
        return;
    stop_transfer(t);
    if (t->timer)
        shc_loop_cancel_timer(t->loop, t->timer);
    shc_sse_free(t->sse);
    shc_oai_delta_free(t->delta);
    session_unref(t->s);
    free(t->pend);
    free(t->waiting);
    free(t->error);
    free(t->cwd);
    free(t);
}

static void op_session_end(shc_backend *base, const char *session_id)
{
    openai *be = (openai *)base;
    for (session **pp = &be->sessions; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->id, session_id)) {
            session *s = *pp;
            *pp = s->next;
            session_unref(s);
            return;
        }
    }
}

static void wipe_free(char *s)
{
    if (!s)
        return;
    volatile char *p = s;
    while (*p)
        *p++ = '\0';
    free(s);
}

static void op_free(shc_backend *base)
{
    openai *be = (openai *)base;
    if (!be)
        return;
    while (be->sessions) {
        session *s = be->sessions;
        be->sessions = s->next;
        session_unref(s);
    }
    shc_http_free(be->http);
    free(be->model);
    free(be->url);
    free(be->base_url);
    wipe_free(be->auth);
    wipe_free(be->key);
    free(be->system_prompt);
    free(be);
}

static const shc_backend_ops openai_ops = {
    .name = "openai",
    .turn_start = op_turn_start,
    .tool_result = op_tool_result,
    .cancel = op_cancel,
    .turn_free = op_turn_free,
    .session_end = op_session_end,
    .free = op_free,
};

shc_backend *shc_openai_new(const shc_model_config *cfg, char *err, size_t errlen)
{
    openai *be = calloc(1, sizeof *be);
    if (!be)
        goto nomem;
    be->base.ops = &openai_ops;
    const char *base = cfg->base_url ? cfg->base_url : SHC_MODEL_DEFAULT_BASE_URL;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    be->base_url = strndup(base, bl);
    be->url = malloc(bl + sizeof "/chat/completions");
    be->model = xstrdup(cfg->model ? cfg->model : SHC_MODEL_DEFAULT_MODEL);
    be->system_prompt = xstrdup(cfg->system_prompt);
    if (!be->base_url || !be->url || !be->model || (cfg->system_prompt && !be->system_prompt))
        goto nomem;
    memcpy(be->url, base, bl);
    strcpy(be->url + bl, "/chat/completions");
    if (cfg->api_key) {
        be->key = strdup(cfg->api_key);
        size_t n = strlen(cfg->api_key) + sizeof "Authorization: Bearer ";
        be->auth = malloc(n);
        if (!be->key || !be->auth)
            goto nomem;
        snprintf(be->auth, n, "Authorization: Bearer %s", cfg->api_key);
    }
    be->max_requests = cfg->max_turn_requests > 0 ? cfg->max_turn_requests
                                                   : SHC_MODEL_DEFAULT_MAX_TURN_REQUESTS;
    be->idle_timeout_s = cfg->request_timeout_s;
    return &be->base;
nomem:
    if (err && errlen)
        snprintf(err, errlen, "out of memory");
    op_free(be ? &be->base : NULL);
    return NULL;
}

static const char *real_env(const char *name)
{
    return getenv(name);
}

int shc_openai_select(shc_model_config *cfg, shc_backend **out)
{
    char err[512];
    *out = NULL;
    int rc = shc_model_config_resolve(cfg, real_env, err, sizeof err);
    if (rc) {
        fprintf(stderr, "shcard acp: %s\n", err);
        return rc;
    }
    if (cfg->force_shell) {
        fprintf(stderr, "shcard acp: --shell: shell mode, each prompt line runs as one command\n");
        return 0;
    }
    if (!shc_model_config_enabled(cfg)) {
        fprintf(stderr, "shcard acp: no API key (%s) and no --base-url: shell mode, each prompt "
                        "line runs as one command\n",
                cfg->api_key_env ? cfg->api_key_env : "DEEPSEEK_API_KEY or OPENAI_API_KEY");
        return 0;
    }
    *out = shc_openai_new(cfg, err, sizeof err);
    if (!*out) {
        fprintf(stderr, "shcard acp: %s\n", err);
        return SHC_E_NOMEM;
    }
    fprintf(stderr, "shcard acp: model %s at %s (%s)\n", cfg->model, cfg->base_url,
            cfg->key_source ? cfg->key_source : "no API key");
    return 0;
}
