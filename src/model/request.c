/* One model request of a turn: POST the conversation, parse the event stream as it arrives,
 * pass text deltas on (joined per network read), and turn the HTTP outcome into one of the ends
 * the turn acts on (openai_int.h): a complete message, a bounded retry with backoff, the request
 * budget spent, or a clear error. */
#include "model/openai_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "shcard.h"

static void report_usage(shc_backend_turn *t);

/* Ends the request with an error message (redacted, and logged on stderr). */
static void failf(shc_backend_turn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(shc_backend_turn *t, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    shc__redact(t->be->key, msg);
    fprintf(stderr, "shcard: model: %s\n", msg);
    t->on_end(t, OAI_END_FAIL, 0, msg);
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
    shc_http_progress(t->req); /* an event, not a keep-alive comment */
    int rc =
        shc_oai_delta_feed(t->delta, data, len, &delta_cbs, t, t->stream_err, sizeof t->stream_err);
    if (t->state != T_REQUEST)
        return -1; /* cancelled from a chunk callback */
    return rc;
}

static int on_body(void *p, long status, const char *buf, size_t len)
{
    shc_backend_turn *t = p;
    if (status < 200 || status > 299) {
        /* an error body is bounded in bytes and in time: a body that never ends (or trickles)
         * must not hold the retry or the answer */
        if (!t->errbody_len)
            t->errbody_t0 = shc_loop_now_ms();
        size_t room = ERRBODY_MAX - t->errbody_len;
        size_t k = len < room ? len : room;
        memcpy(t->errbody + t->errbody_len, buf, k);
        t->errbody_len += k;
        t->errbody[t->errbody_len] = '\0';
        return k < len || shc_loop_now_ms() - t->errbody_t0 > ERRBODY_MS;
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
    shc__redact(t->be->key, out);
}

/* The function a 400 says the model server refused the parameters of ("Invalid schema for
 * function 'NAME'", or tools[N] in its param or message: tools[0] is bash, the session's other
 * tools follow), if it is one this request offered besides bash; NULL otherwise. */
static const char *refused_function(shc_backend_turn *t)
{
    json_t *j = json_loadb(t->errbody, t->errbody_len, 0, NULL);
    json_t *e = json_object_get(j, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));
    const char *param = json_string_value(json_object_get(e, "param"));
    char name[256] = "";
    long index = -1;
    const char *f = msg ? strstr(msg, "function '") : NULL;
    if (f) {
        f += strlen("function '");
        const char *q = strchr(f, '\'');
        if (q && (size_t)(q - f) < sizeof name) {
            memcpy(name, f, (size_t)(q - f));
            name[q - f] = '\0';
        }
    }
    for (int k = 0; k < 2 && index < 0; k++) {
        const char *src = k == 0 ? param : msg;
        const char *b = src ? strstr(src, "tools[") : NULL;
        char *end;
        if (b && b[6] >= '0' && b[6] <= '9') {
            long v = strtol(b + 6, &end, 10);
            if (*end == ']')
                index = v;
        }
    }
    json_decref(j);
    size_t i;
    json_t *tool;
    json_array_foreach(t->req_tools, i, tool)
    {
        const char *n =
            json_string_value(json_object_get(json_object_get(tool, "function"), "name"));
        if (n && strcmp(n, "bash") &&
            (name[0] ? !strcmp(n, name) : index >= 1 && (size_t)index - 1 == i))
            return n;
    }
    return NULL;
}

/* A 400 that names the parameters of one of the session's MCP tools: the tool is left out for
 * the session (said once in the log and to the user) and the request is sent again without it,
 * so one schema the API will not take does not fail every request (bash is never left out).
 * True when the request is to be sent again. */
static bool leave_out_refused(shc_backend_turn *t)
{
    const char *name = refused_function(t);
    char *keep = name ? strdup(name) : NULL; /* the name lives in the tools being replaced */
    if (!keep || shc__oai_refuse_tool(t->s, keep) != 0) {
        free(keep);
        return false;
    }
    char msg[400];
    snprintf(msg, sizeof msg,
             "The model server refused the parameters of the tool %.128s: it is left out for "
             "the rest of this session, and the request is sent again without it.",
             keep);
    if (t->host.notice) /* which logs it */
        t->host.notice(t->host.payload, msg);
    else
        fprintf(stderr, "shcard: model: %s\n", msg);
    free(keep);
    return true;
}

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
            failf(t, "the model server answered HTTP %ld %d times; giving up%s%s", st,
                           t->attempt, ex[0] ? ": " : "", ex);
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
        t->on_end(t, OAI_END_RETRY, ms, NULL);
        return;
    }
    if (st == 400 && leave_out_refused(t)) {
        t->on_end(t, OAI_END_RETRY, 0, NULL);
        return;
    }
    if (st != 0 && (st < 200 || st > 299)) {
        body_excerpt(t, ex, sizeof ex);
        failf(t, "the model server answered HTTP %ld%s%s", st, ex[0] ? ": " : "", ex);
        return;
    }
    if (t->stream_rc) {
        failf(t, "the model server's response is not a chat completion stream: %s",
                       t->stream_err);
        return;
    }
    if (res->failed) {
        if (st == 0)
            failf(t, "cannot reach the model server at %s: %s", t->be->base_url,
                           res->error);
        else
            failf(t, "the model stream from %s broke off: %s", t->be->base_url,
                           res->error);
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
    report_usage(t);
    t->on_end(t, OAI_END_MESSAGE, 0, NULL);
}

const char *shc__oai_model(const openai *be, const session *s)
{
    return s && s->model ? s->model : be->model;
}

#define DEFAULT_BYTES_PER_TOKEN 3.0 /* conservative: English prose is nearer 4 */

/* The body of the next request: as much of the conversation as fits the model's window (less a
 * reserve for the answer).  Tells the user when more is left out than the last time. */
static char *fitted_body(shc_backend_turn *t)
{
    openai *be = t->be;
    session *s = t->s;
    const char *model = shc__oai_model(be, s);
    long window = shc__oai_window(be, model);
    double bpt = s->bytes_per_token > 0 ? s->bytes_per_token : DEFAULT_BYTES_PER_TOKEN;
    long reserve = window / 8 < 256 ? 256 : window / 8 > 16384 ? 16384 : window / 8;
    char *bare = shc_openai_request_body_ex(model, be->system_prompt, t->cwd, NULL, NULL,
                                            s->sandbox, s->tools);
    if (!bare)
        return NULL;
    double room = (double)(window - reserve) * bpt - (double)strlen(bare) - 200.0;
    free(bare);
    size_t elided = 0, dropped = 0;
    json_t *view = shc__oai_fit(s->history, room > 0 ? (size_t)room : 0, &elided, &dropped);
    if (!view)
        return NULL;
    /* said once when outputs are first left out, and once when whole turns are */
    if (((elided && !s->told_elided) || (dropped && !s->told_dropped)) && t->host.notice) {
        char msg[400];
        int k = snprintf(msg, sizeof msg,
                         "The conversation is longer than the context window of %.100s (%ld "
                         "tokens): the model no longer sees %zu older command output(s)",
                         model, window, elided);
        if (dropped && k > 0 && (size_t)k < sizeof msg)
            snprintf(msg + k, sizeof msg - (size_t)k, " and %zu older turn(s)", dropped);
        size_t len = strlen(msg);
        if (len + 1 < sizeof msg)
            strcat(msg, ".");
        t->host.notice(t->host.payload, msg);
    }
    s->told_elided |= elided > 0 || dropped > 0;
    s->told_dropped |= dropped > 0;
    char note[200];
    if (dropped)
        snprintf(note, sizeof note,
                 "The %zu oldest turn(s) of this conversation were left out to fit the context "
                 "window.",
                 dropped);
    char *body = shc_openai_request_body_ex(model, be->system_prompt, t->cwd, view,
                                            dropped ? note : NULL, s->sandbox, s->tools);
    json_decref(view);
    t->req_bytes = body ? strlen(body) : 0;
    return body;
}

/* usage_update from the server's figures, and what a token weighs in this conversation. */
static void report_usage(shc_backend_turn *t)
{
    uint64_t prompt, completion, total;
    if (!shc_oai_delta_usage(t->delta, &prompt, &completion, &total))
        return;
    if (prompt > 0 && t->req_bytes > 0) {
        double bpt = (double)t->req_bytes / (double)prompt;
        t->s->bytes_per_token = bpt < 1.0 ? 1.0 : bpt > 12.0 ? 12.0 : bpt;
    }
    if (t->host.usage)
        t->host.usage(t->host.payload, total,
                      (uint64_t)shc__oai_window(t->be, shc__oai_model(t->be, t->s)));
}

void shc__oai_start_request(shc_backend_turn *t)
{
    openai *be = t->be;
    if (!be->http) {
        be->loop = t->loop;
        char err[256];
        be->http = shc_http_new(t->loop, err, sizeof err);
        if (!be->http) {
            failf(t, "cannot start libcurl (%s)", err);
            return;
        }
    }
    if (t->attempt == 0) {
        if (t->requests >= be->max_requests) {
            t->on_end(t, OAI_END_LIMIT, 0, NULL);
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
    char *body = fitted_body(t);
    /* the calls this request brings are of the tools it shows, whatever set_tools says later */
    json_decref(t->req_tools);
    t->req_tools = json_incref(t->s->tools);
    shc_tools_snap_unref(t->req_snap);
    t->req_snap = shc_tools_snap_ref(t->s->snap);
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
                       .idle_timeout_s = be->idle_timeout_s,
                       .progress_by_caller = 1,
                       .total_timeout_s = be->deadline_s};
    static const shc_http_cbs cbs = {on_body, on_done, NULL};
    t->state = T_REQUEST;
    int rc = shc_http_post(&t->req, be->http, &o, &cbs, t);
    free(body);
    if (rc)
        failf(t, "cannot start the request to %s", be->base_url);
}

void shc__oai_stop_transfer(shc_backend_turn *t)
{
    shc_http_cancel(t->req);
    t->req = NULL;
}
