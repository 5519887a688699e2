/* src/model/ owns the OpenAI-compatible model backend: the turn state machine (this file), one
 * streamed request (request.c), the request body (body.c), settings and secrets (config.c),
 * libcurl on the loop (http.c), server-sent events (sse.c) and chunk accumulation
 * (oai_delta.c).  It implements the seam in agent/backend.h and knows nothing of ACP, cards
 * or the executor.  May use: agent/ and base/.
 *
 * The model agent loop.  One turn is a small state machine driven by loop callbacks:
 *
 *   REQUEST ──(stream ends with tool calls)──► TOOLS ──(all results in)──► REQUEST ...
 *      │ 429/5xx: BACKOFF, then REQUEST again (bounded)
 *      └─(no tool calls / length / limit / error / cancel)──► DONE
 *
 * Every step that could re-enter the bridge (starting a request, dispatching the next tool
 * call, reporting turn_done) runs from a zero-delay loop timer, so no host callback is ever
 * called from inside another host callback.  The history of a session is an array of chat
 * messages (history.c); a turn only appends to it, and on failure before anything happened it
 * rolls back the user message so the next prompt starts clean.  Each request sends the part of
 * it that fits the model's context window (context.c). */
#include "model/openai_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/config.h"
#include "shcard.h"

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
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
    shc__oai_hist_append(t, msg);
}

/* Ends the turn: records the outcome, and reports it from the next loop iteration. */
static void finish(shc_backend_turn *t, shc_stop_reason reason, const char *error)
{
    if (t->state == T_DONE)
        return;
    shc__oai_stop_transfer(t);
    t->state = T_DONE;
    t->reason = reason;
    t->code = error ? JSONRPC_INTERNAL : 0;
    if (error) {
        t->error = strdup(error);
        shc__redact(t->be->key, t->error);
        /* nothing happened after the user message: forget it, so a retry starts clean */
        if (json_array_size(t->s->history) == t->history_at_start + 1)
            shc__oai_hist_cut(t, t->history_at_start);
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
    shc__redact(t->be->key, msg);
    fprintf(stderr, "shcard: model: %s\n", msg);
    finish(t, SHC_STOP_END_TURN, msg);
}

/* ------------------------------------------------------------------ tool calls */

/* The answer to a tool call: never dropped (an assistant's tool_calls without their answers make
 * every later request of the session fail), its text made valid UTF-8, else a fixed text. */
static void tool_message(shc_backend_turn *t, const char *id, const char *text)
{
    json_t *m = json_pack("{s:s, s:s, s:o}", "role", "tool", "tool_call_id", id, "content",
                          shc_json_str(text, strlen(text)));
    if (!m)
        m = json_pack("{s:s, s:s, s:s}", "role", "tool", "tool_call_id", id, "content",
                      "[the result could not be encoded]");
    add_history(t, m);
}

/* A tool the request showed the model (set_tools) and the host can run. */
static bool named_tool(const shc_backend_turn *t, const char *name)
{
    size_t i;
    json_t *e;
    if (!t->host.tool_call_named)
        return false;
    json_array_foreach(t->req_tools, i, e)
    {
        const char *n = json_string_value(json_object_get(json_object_get(e, "function"), "name"));
        if (n && !strcmp(n, name))
            return true;
    }
    return false;
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
        if (name && strcmp(name, "bash") && named_tool(t, name)) {
            t->waiting = strdup(id);
            if (!t->waiting) {
                failf(t, "out of memory");
                return;
            }
            t->state = T_TOOLS;
            t->host.tool_call_named(t->host.payload, t->waiting, name,
                                    args && *args ? args : "{}", t->req_snap);
            return; /* tool_result continues */
        }
        if (!name || strcmp(name, "bash")) {
            char msg[200];
            /* a name this request did not offer (misspelt, made up, or of an earlier request):
             * said as it is, not guessed at; what became of a server that was offered is the
             * call's own answer (its target) */
            if (name && !strncmp(name, "mcp__", 5))
                snprintf(msg, sizeof msg,
                         "MCP error: %.80s is not among the functions this request offered; "
                         "the tools are bash and those listed",
                         name);
            else
                snprintf(msg, sizeof msg, "error: unknown tool '%.80s'; %s", name ? name : "",
                         json_array_size(t->s->tools) ? "the tools are bash and those listed"
                                                      : "the only tool is bash");
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
                snprintf(msg, sizeof msg,
                         "error: the arguments need a non-empty string "
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
    shc__oai_start_request(t);
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

/* text cut to about limit bytes: its head and tail at UTF-8 boundaries around a marker.  Owned. */
static char *clip(const char *text, size_t limit)
{
    size_t n = strlen(text);
    if (n <= limit)
        return strdup(text);
    size_t h = limit / 2, tl = n - limit / 2;
    while (h > 0 && ((unsigned char)text[h] & 0xC0) == 0x80)
        h--;
    while (tl < n && ((unsigned char)text[tl] & 0xC0) == 0x80)
        tl++;
    char mark[80];
    int ml = snprintf(mark, sizeof mark, "\n[... %zu bytes omitted ...]\n", tl - h);
    char *out = malloc(h + (size_t)ml + (n - tl) + 1);
    if (!out)
        return NULL;
    memcpy(out, text, h);
    memcpy(out + h, mark, (size_t)ml);
    memcpy(out + h + (size_t)ml, text + tl, n - tl + 1);
    return out;
}

static void op_tool_result(shc_backend_turn *t, const shc_tool_result *r)
{
    if (!t || !r || t->state != T_TOOLS || !t->waiting || !r->call_id ||
        strcmp(r->call_id, t->waiting))
        return; /* late (after cancel) or unknown: nothing to do */
    const char *text = r->model_text ? r->model_text : "";
    char line[160];
    if (r->verbatim) { /* a named tool's answer, whole (cut to the limit) */
        char *v = clip(text, (size_t)t->be->tool_output_limit);
        if (!v) {
            failf(t, "out of memory");
            return;
        }
        tool_message(t, t->waiting, v);
        free(v);
        free(t->waiting);
        t->waiting = NULL;
        schedule(t, STEP_DISPATCH, 0);
        return;
    }
    if (!r->ran) {
        const char *why = r->error ? r->error : (r->cancelled ? "cancelled" : "not run");
        snprintf(line, sizeof line, "[not run: %.120s]", why);
        if (!strcmp(text, why))
            text = ""; /* the bridge passes the reason as the output too */
    } else if (r->timed_out) {
        snprintf(line, sizeof line, "[timed out]");
    } else if (r->signal) {
        snprintf(line, sizeof line, "[killed by signal: %.40s]", r->signal);
    } else {
        snprintf(line, sizeof line, "[exit code: %d]", r->exit_code);
    }
    char *body = clip(text, (size_t)t->be->tool_output_limit);
    char *content = NULL;
    if (body && r->ran && ends_with_exit_line(body)) {
        content = body;
        body = NULL;
    } else if (body) {
        size_t n = strlen(body);
        content = malloc(n + strlen(line) + 2);
        if (content)
            sprintf(content, "%s%s%s", body, n && body[n - 1] != '\n' ? "\n" : "", line);
    }
    free(body);
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

/* How request.c reports the end of a request (t->on_end). */
static void on_request_end(shc_backend_turn *t, oai_end end, uint64_t retry_ms, const char *error)
{
    switch (end) {
    case OAI_END_MESSAGE: on_message(t); break;
    case OAI_END_RETRY:
        t->state = T_BACKOFF;
        schedule(t, STEP_REQUEST, retry_ms);
        break;
    case OAI_END_LIMIT: finish(t, SHC_STOP_MAX_TURN_REQUESTS, NULL); break;
    case OAI_END_FAIL: finish(t, SHC_STOP_END_TURN, error ? error : "the request failed"); break;
    }
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
            shc__oai_start_request(t);
        break;
    case STEP_DISPATCH:
        if (t->state == T_TOOLS)
            dispatch(t);
        break;
    case STEP_REPORT:
        if (t->host.turn_done)
            t->host.turn_done(t->host.payload, t->reason, t->code, t->error);
        break;
    case STEP_NONE: break;
    }
}

static shc_backend_turn *op_turn_start(shc_backend *base,
                                       shc_loop *loop,
                                       const char *session_id,
                                       const char *cwd,
                                       const shc_prompt_part *parts,
                                       size_t nparts,
                                       const shc_backend_host *host)
{
    openai *be = (openai *)base;
    shc_backend_turn *t = calloc(1, sizeof *t);
    if (!t)
        goto fail;
    t->be = be;
    t->loop = loop;
    t->host = *host;
    t->on_end = on_request_end;
    t->cwd = strdup(cwd ? cwd : "");
    t->s = shc__oai_session(be, session_id, true);
    if (!t->cwd || !t->s)
        goto fail;
    t->s->refs++;
    t->s->turns++;
    t->history_at_start = json_array_size(t->s->history);
    json_t *user = shc__oai_user_message(parts, nparts, cwd, be->base.images);
    if (!user)
        goto fail;
    shc__oai_hist_append(t, user);
    t->state = T_BACKOFF; /* until the first request starts */
    schedule(t, STEP_REQUEST, 0);
    if (!t->timer)
        goto fail;
    return t;
fail:
    if (t) {
        shc__oai_session_unref(t->s);
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
    shc__oai_stop_transfer(t);
    /* record what happened, keeping the history a valid conversation */
    if (t->state == T_TOOLS) {
        if (t->waiting)
            tool_message(t, t->waiting,
                         "[cancelled by the user while the command was running "
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
    shc__oai_stop_transfer(t);
    if (t->timer)
        shc_loop_cancel_timer(t->loop, t->timer);
    shc_sse_free(t->sse);
    shc_oai_delta_free(t->delta);
    json_decref(t->req_tools);
    shc_tools_snap_unref(t->req_snap);
    shc__oai_session_unref(t->s);
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
            shc__oai_session_unref(s);
            return;
        }
    }
}

static void op_free(shc_backend *base)
{
    openai *be = (openai *)base;
    if (!be)
        return;
    while (be->sessions) {
        session *s = be->sessions;
        be->sessions = s->next;
        shc__oai_session_unref(s);
    }
    shc_http_free(be->http);
    shc__oai_models_free(be);
    json_decref(be->windows);
    free(be->model);
    free(be->url);
    free(be->base_url);
    shc__wipe_free(be->auth);
    shc__wipe_free(be->key);
    free(be->system_prompt);
    free(be);
}

static int op_set_model(shc_backend *base, const char *session_id, const char *model)
{
    session *s = shc__oai_session((openai *)base, session_id, true);
    char *m = model ? strdup(model) : NULL;
    if (!s || (model && !m)) {
        free(m);
        return SHC_E_NOMEM;
    }
    free(s->model);
    s->model = m;
    s->bytes_per_token = 0; /* another tokenizer */
    return 0;
}

static int op_set_sandbox(shc_backend *base, const char *session_id, const char *text)
{
    session *s = shc__oai_session((openai *)base, session_id, true);
    char *t = text ? strdup(text) : NULL;
    if (!s || (text && !t)) {
        free(t);
        return SHC_E_NOMEM;
    }
    free(s->sandbox);
    s->sandbox = t;
    return 0;
}

static const shc_backend_ops openai_ops = {
    .name = "openai",
    .turn_start = op_turn_start,
    .tool_result = op_tool_result,
    .cancel = op_cancel,
    .turn_free = op_turn_free,
    .session_end = op_session_end,
    .free = op_free,
    .session_restore = shc__oai_restore,
    .set_model = op_set_model,
    .set_sandbox = op_set_sandbox,
    .set_tools = shc__oai_set_tools,
    .list_models = shc__oai_list_models,
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
    be->max_requests =
        cfg->max_turn_requests > 0 ? cfg->max_turn_requests : SHC_MODEL_DEFAULT_MAX_TURN_REQUESTS;
    be->idle_timeout_s = cfg->request_timeout_s;
    be->deadline_s = cfg->model_deadline_s;
    be->tool_output_limit =
        cfg->tool_output_limit > 0 ? cfg->tool_output_limit : SHC_MODEL_DEFAULT_TOOL_OUTPUT_LIMIT;
    be->context_window = cfg->context_window;
    be->base.model = be->model;
    be->base.images = cfg->images;
    return &be->base;
nomem:
    if (err && errlen)
        snprintf(err, errlen, "out of memory");
    op_free(be ? &be->base : NULL);
    return NULL;
}
