/* src/mcp/ owns the MCP client (docs/mcp.md): a session's MCP servers, the protocol (this
 * file: initialize and version negotiation, tools/list with its pages and list_changed,
 * tools/call with a timeout and notifications/cancelled), the editor's entries (servers.c), the stdio transport (stdio.c: the
 * server runs through the executor, contained like a command), streamable HTTP (streamable.c) and
 * what the model sees (result.c).  The bridge uses it for the model's sessions only; the
 * classifier and the executor know nothing of it.  May use: rpc/ (the one JSON-RPC), model/
 * (its libcurl on the loop), agent/, exec/, confine/, base/. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/utf8.h"
#include "shcard.h"

struct shc_mcp_call {
    shc_mcp_call *next;
    shc_mcp *m;
    mcp_server *srv;     /* NULL once the server is gone */
    char *tool;          /* owned: the server's name of the tool */
    char *title;         /* owned */
    int64_t req_id;      /* 0 when not sent (or answered) */
    shc_mcp_done_fn done;
    void *payload;
    int timer;           /* the call's timeout, then the zero-delay report */
    bool finished;       /* the outcome is in text */
    shc_mcp_result res;
    char *text;          /* owned */
};

static void feed(mcp_server *s, const char *buf, size_t len);
static void fail_msg(mcp_server *s, const char *msg);
static void list_again(mcp_server *s);
static void list_page(mcp_server *s, const char *cursor);
static const mcp_up up = {feed, fail_msg, shc__mcp_flush, list_again};

static void fail(mcp_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(mcp_server *s, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    shc__mcp_vfmt(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fail_msg(s, msg);
}

static const char *const versions[] = {SHC_MCP_PROTOCOL, "2025-03-26", "2024-11-05"};

/* ------------------------------------------------------------------ the session's tools */

static void changed_now(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_mcp *m = payload;
    m->changed_timer = 0;
    if (m->env.changed)
        m->env.changed(m->env.payload);
}

static bool usable(const mcp_server *s)
{
    return s->state == MS_READY || (s->state == MS_LISTING && s->was_up);
}

/* The index and the model's tool list again, and the bridge told from the loop. */
static void rebuild(shc_mcp *m)
{
    shc_tools_snap_unref(m->snap);
    m->snap = NULL;
    free(m->index);
    m->index = NULL;
    m->nindex = 0;
    json_decref(m->tools_json);
    m->tools_json = json_array();
    size_t total = 0, spent = 0, over = 0;
    for (size_t i = 0; i < m->n; i++)
        total += usable(m->servers[i]) ? m->servers[i]->ntools : 0;
    m->index = calloc(total ? total : 1, sizeof *m->index);
    if (!m->index || !m->tools_json)
        return;
    for (size_t i = 0; i < m->n; i++) {
        mcp_server *s = m->servers[i];
        if (!usable(s))
            continue;
        for (size_t k = 0; k < s->ntools; k++) {
            mcp_tool *t = &s->tools[k];
            free(t->fname);
            t->fname = NULL;
            /* at most SHC_MCP_MAX_TOOLS, and SHC_MCP_TOOLS_BUDGET bytes of the model's
             * request in all: one server cannot fill the context */
            if (m->nindex >= SHC_MCP_MAX_TOOLS || t->cost > SHC_MCP_TOOLS_BUDGET - spent) {
                over++;
                continue;
            }
            t->fname = shc__mcp_fname(s->name, t->tool, m->index, m->nindex);
            json_t *fn = t->fname ? json_pack("{s:s, s:s, s:O}", "name", t->fname, "description",
                                              t->description, "parameters", t->schema)
                                  : NULL;
            if (!fn || json_array_append_new(m->tools_json, fn) != 0) {
                free(t->fname);
                t->fname = NULL;
                continue;
            }
            spent += t->cost;
            t->pub.fname = t->fname;
            m->index[m->nindex++] = t;
        }
    }
    if (over && over != m->left_logged) /* one line, and again only when the number changes */
        shc_log_warn(m->env.log, "mcp: %zu tool(s) left out: a session offers the model at most "
                     "%d MCP tools and %zu KiB of their definitions", over, SHC_MCP_MAX_TOOLS,
                     SHC_MCP_TOOLS_BUDGET / 1024);
    m->left_logged = over;
    m->snap = shc__mcp_snap_new(m);
    if (!m->changed_timer && !m->freeing)
        m->changed_timer = shc_loop_timer(m->env.loop, 0, changed_now, m);
}

bool shc_mcp_settled(const shc_mcp *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->servers[i]->state == MS_STARTING ||
            (m->servers[i]->state == MS_LISTING && !m->servers[i]->was_up))
            return false;
    return true;
}

char *shc_mcp_tools_json(const shc_mcp *m)
{
    return m && m->tools_json ? json_dumps(m->tools_json, JSON_COMPACT) : strdup("[]");
}

/* ------------------------------------------------------------------ calls */

static void report(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_mcp_call *c = payload;
    c->timer = 0;
    shc_mcp *m = c->m;
    for (shc_mcp_call **pp = &m->calls; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    c->res.text = c->text ? c->text : "MCP error: out of memory";
    c->res.len = strlen(c->res.text);
    if (c->done)
        c->done(c->payload, &c->res);
    free(c->text);
    json_decref(c->res.images);
    free(c->tool);
    free(c->title);
    free(c);
}

/* The call's outcome (text owned, or NULL: formatted from fmt), reported from the loop. */
static void settle(shc_mcp_call *c, bool error, bool cancelled, char *text, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void settle(shc_mcp_call *c, bool error, bool cancelled, char *text, const char *fmt, ...)
{
    if (c->finished) {
        free(text);
        return;
    }
    c->finished = true;
    if (c->req_id && c->srv && c->srv->rpc)
        shc_rpc_forget(c->srv->rpc, c->req_id);
    c->req_id = 0;
    if (!text && fmt) { /* a message: the server's part of it cut as valid UTF-8 */
        char msg[2400];
        va_list ap;
        va_start(ap, fmt);
        shc__mcp_vfmt(msg, sizeof msg, fmt, ap);
        va_end(ap);
        text = strdup(msg);
    } else if (text && !shc_utf8_valid(text, strlen(text))) {
        char *clean = shc_utf8_dup(text, strlen(text), SIZE_MAX / 4);
        free(text);
        text = clean;
    }
    c->text = text;
    c->res.error = error;
    c->res.cancelled = cancelled;
    if (c->timer)
        shc_loop_cancel_timer(c->m->env.loop, c->timer);
    c->timer = shc_loop_timer(c->m->env.loop, 0, report, c);
}

static void cancel_on_server(shc_mcp_call *c, const char *reason)
{
    if (c->req_id && c->srv && c->srv->rpc && usable(c->srv)) {
        shc_rpc_notify(c->srv->rpc, "notifications/cancelled",
                       json_pack("{s:I, s:s}", "requestId", (json_int_t)c->req_id, "reason",
                                 reason));
        shc__mcp_flush(c->srv);
    }
    if (c->req_id && c->srv && c->srv->http)
        shc__mcp_http_abandon(c->srv, c->req_id); /* an endless answer is not read on */
}

static void on_call_timeout(shc_loop *loop, void *payload)
{
    (void)loop;
    shc_mcp_call *c = payload;
    c->timer = 0;
    uint64_t ms = c->m->env.call_timeout_ms ? c->m->env.call_timeout_ms : SHC_MCP_CALL_TIMEOUT_MS;
    cancel_on_server(c, "timeout");
    shc_log_warn(c->m->env.log, "mcp %s: %s did not answer within %llu ms", c->srv->name, c->tool,
                 (unsigned long long)ms);
    settle(c, true, false, NULL, "MCP error: %s did not answer within %llu s (the call was cancelled)",
           c->title, (unsigned long long)((ms + 999) / 1000));
}

static void on_call_answer(void *payload, json_t *result, json_t *error)
{
    shc_mcp_call *c = payload;
    c->req_id = 0;
    if (c->finished)
        return;
    if (!result && !error) {
        settle(c, true, false, NULL, "MCP error: %s: the server %s is gone%s%s", c->title,
               c->srv ? c->srv->name : "", c->srv && c->srv->why ? ": " : "",
               c->srv && c->srv->why ? c->srv->why : "");
        return;
    }
    if (error) {
        const char *msg = shc_rpc_str(json_object_get(error, "message"));
        char cut[2001];
        shc_utf8_cut(cut, msg ? msg : "no message", msg ? strlen(msg) : 10, 2000);
        settle(c, true, false, NULL, "MCP error: %s failed: %s (code %lld)", c->title, cut,
               (long long)json_integer_value(json_object_get(error, "code")));
        return;
    }
    if (!json_is_object(result)) {
        settle(c, true, false, NULL, "MCP error: %s: the server's answer is not an object", c->title);
        return;
    }
    bool is_error = false;
    size_t len = 0;
    char *text = shc__mcp_result_text(result, &is_error, &len);
    c->res.images = shc__mcp_result_images(result);
    settle(c, is_error, false, text, "MCP error: out of memory");
}

shc_mcp_call *shc_mcp_call_start(shc_mcp *m, const shc_mcp_target *g, const char *arguments,
                                 shc_mcp_done_fn done, void *payload)
{
    shc_mcp_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->m = m;
    c->done = done;
    c->payload = payload;
    c->next = m->calls;
    m->calls = c;
    /* the target resolved when the model's call came, never the function name again */
    const char *why = NULL;
    mcp_tool *t = shc__mcp_target_tool(m, g, &c->srv, &why);
    if (!t) {
        settle(c, true, false, NULL, "MCP error: %s was not called: %s", g->title, why);
        return c;
    }
    c->tool = strdup(t->tool);
    c->title = strdup(g->title);
    json_error_t je;
    json_t *args = json_loads(arguments ? arguments : "{}", 0, &je);
    if (!c->tool || !c->title) {
        json_decref(args);
        settle(c, true, false, NULL, "MCP error: out of memory");
        return c;
    }
    if (!json_is_object(args)) {
        json_decref(args);
        settle(c, true, false, NULL, "MCP error: the arguments for %s are not a JSON object",
               c->title);
        return c;
    }
    /* params takes args: one release point, shc_rpc_request or the json_decref below */
    json_t *params = json_pack("{s:s, s:o}", "name", c->tool, "arguments", args);
    int64_t id = 0;
    int rc = SHC_E_NOMEM;
    if (params && usable(c->srv))
        rc = shc_rpc_request(c->srv->rpc, "tools/call", params, on_call_answer, c, &id);
    else
        json_decref(params);
    if (rc != 0) {
        const char *because = !params ? "out of memory" : c->srv->why;
        settle(c, true, false, NULL, "MCP error: the server %s cannot take calls%s%s",
               c->srv->name, because ? ": " : "", because ? because : "");
        return c;
    }
    c->req_id = id;
    uint64_t ms = m->env.call_timeout_ms ? m->env.call_timeout_ms : SHC_MCP_CALL_TIMEOUT_MS;
    c->timer = shc_loop_timer(m->env.loop, ms, on_call_timeout, c);
    shc__mcp_flush(c->srv);
    return c;
}

void shc_mcp_call_cancel(shc_mcp_call *c)
{
    if (!c || c->finished)
        return;
    cancel_on_server(c, "the user cancelled the turn");
    settle(c, true, true, NULL, "MCP error: %s was cancelled", c->title ? c->title : "the call");
}

void shc_mcp_call_drop(shc_mcp_call *c)
{
    if (!c)
        return;
    if (!c->finished)
        cancel_on_server(c, "the turn ended");
    if (c->req_id && c->srv && c->srv->rpc)
        shc_rpc_forget(c->srv->rpc, c->req_id);
    for (shc_mcp_call **pp = &c->m->calls; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (c->timer)
        shc_loop_cancel_timer(c->m->env.loop, c->timer);
    free(c->text);
    json_decref(c->res.images);
    free(c->tool);
    free(c->title);
    free(c);
}

/* ------------------------------------------------------------------ the protocol */



static void on_listed(void *payload, json_t *result, json_t *error)
{
    mcp_server *s = payload;
    if (s->state == MS_FAILED)
        return;
    if (!result) {
        const char *msg = shc_rpc_str(json_object_get(error, "message"));
        fail(s, "tools/list failed: %.300s", error ? (msg ? msg : "error") : "no answer");
        return;
    }
    shc__mcp_listing_add(s, json_object_get(result, "tools"));
    const char *cursor = shc_rpc_str(json_object_get(result, "nextCursor"));
    if (cursor && *cursor && ++s->pages < 100 && json_array_size(s->listing) < SHC_MCP_MAX_TOOLS) {
        list_page(s, cursor);
        return;
    }
    shc__mcp_listing_done(s); /* the pages are in: the tools replaced at once */
    if (s->init_timer) {
        shc_loop_cancel_timer(s->m->env.loop, s->init_timer);
        s->init_timer = 0;
    }
    s->state = MS_READY;
    s->was_up = true;
    s->list_took = shc_loop_now_ms() - s->list_at;
    shc__mcp_log_line(s, "ready, %zu tool(s)", s->ntools); /* a re-list loop: rate-limited */
    rebuild(s->m);
    if (s->relist) {
        s->relist = false;
        shc__mcp_relist(s);
    }
}

static void list_page(mcp_server *s, const char *cursor)
{
    json_t *params = cursor ? json_pack("{s:s}", "cursor", cursor) : json_object();
    if (!cursor)
        s->list_at = shc_loop_now_ms();
    if (shc_rpc_request(s->rpc, "tools/list", params, on_listed, s, NULL) != 0) {
        fail(s, "cannot send tools/list");
        return;
    }
    if (s->state == MS_READY)
        s->state = MS_LISTING;
    shc__mcp_flush(s);
}

static void on_initialized(void *payload, json_t *result, json_t *error)
{
    mcp_server *s = payload;
    if (s->state == MS_FAILED)
        return;
    if (!result) {
        const char *msg = shc_rpc_str(json_object_get(error, "message"));
        fail(s, "initialize failed: %.300s", error ? (msg ? msg : "error") : "no answer");
        return;
    }
    const char *v = shc_rpc_str(json_object_get(result, "protocolVersion"));
    const char *ok = NULL;
    for (size_t i = 0; v && i < sizeof versions / sizeof *versions; i++)
        if (!strcmp(v, versions[i]))
            ok = versions[i];
    if (!ok) {
        fail(s, "the server speaks MCP %.40s, which shcard does not (it speaks %s)",
                      v ? v : "(no version)", SHC_MCP_PROTOCOL);
        return;
    }
    free(s->proto);
    s->proto = strdup(ok);
    if (!s->http)
        shc__mcp_stdio_ready(s);
    shc_rpc_notify(s->rpc, "notifications/initialized", NULL);
    s->state = MS_LISTING;
    if (!json_object_get(json_object_get(result, "capabilities"), "tools")) {
        shc_log_info(s->m->env.log, "mcp %s: ready, no tools", s->name);
        s->state = MS_READY;
        s->was_up = true;
        if (s->init_timer)
            shc_loop_cancel_timer(s->m->env.loop, s->init_timer);
        s->init_timer = 0;
        shc__mcp_flush(s);
        rebuild(s->m);
        return;
    }
    list_page(s, NULL);
}

static void list_again(mcp_server *s)
{
    s->pages = 0;
    list_page(s, NULL);
}

/* What the server asks or tells. */
static void on_message(void *payload, shc_rpc *rpc, json_t *id, const char *method, json_t *params)
{
    mcp_server *s = payload;
    if (!id) {
        if (!strcmp(method, "notifications/tools/list_changed") && s->state != MS_FAILED) {
            shc__mcp_relist(s);
        } else if (!strcmp(method, "notifications/message")) {
            char *d = json_dumps(json_object_get(params, "data"), JSON_COMPACT | JSON_ENCODE_ANY);
            shc__mcp_log_line(s, "%.500s", d ? d : "");
            free(d);
        }
        return;
    }
    if (s->state == MS_FAILED || !shc__mcp_answer_request(s))
        return;
    if (!strcmp(method, "ping"))
        shc_rpc_respond(rpc, id, json_object());
    else
        shc_rpc_error(rpc, id, SHC_RPC_METHOD_NOT_FOUND, "shcard does not offer this", NULL);
    shc__mcp_flush(s);
}

static void feed(mcp_server *s, const char *buf, size_t len)
{
    if (s->rpc && s->state != MS_FAILED && shc_rpc_feed(s->rpc, buf, len) != 0)
        fail(s, "out of memory");
    if (s->state != MS_FAILED)
        shc__mcp_flush(s);
}

static void fail_msg(mcp_server *s, const char *msg)
{
    if (s->state == MS_FAILED)
        return;
    s->state = MS_FAILED;
    free(s->why);
    s->why = strdup(msg);
    shc_log_warn(s->m->env.log, "mcp %s: %s", s->name, msg);
    shc__mcp_timers_stop(s);
    for (shc_mcp_call *c = s->m->calls; c; c = c->next)
        if (c->srv == s && !c->finished)
            settle(c, true, false, NULL, "MCP error: %s: the server %s failed: %s", c->title,
                   s->name, msg);
    if (s->http)
        shc__mcp_http_stop(s);
    else {
        shc__mcp_stdio_stop(s);
        shc__mcp_fds_give(s); /* an HTTP server's connections go with its libcurl, with the session */
    }
    shc__mcp_requests_flush(s);
    shc_rpc_abandon_all(s->rpc);
    rebuild(s->m);
}

static void on_init_timeout(shc_loop *loop, void *payload)
{
    (void)loop;
    mcp_server *s = payload;
    s->init_timer = 0;
    fail(s, "not ready within %llu s (start, initialize, tools/list)",
                  (unsigned long long)(SHC_MCP_INIT_TIMEOUT_MS / 1000));
}

static void server_start(mcp_server *s)
{
    s->up = &up;
    shc_rpc_config rc = {
        .max_line = SHC_MCP_MAX_LINE,
        .max_values = SHC_MCP_MAX_VALUES,
        .write = s->http ? shc__mcp_http_write : shc__mcp_stdio_write,
        .io = s,
        .on_message = on_message,
        .payload = s,
        .on_invalid = shc__mcp_on_invalid,
    };
    s->rpc = shc_rpc_new(&rc);
    s->listing = json_array();
    if (!s->rpc || !s->listing) {
        fail(s, "out of memory");
        return;
    }
    if (!shc__mcp_fds_take(s)) {
        fail(s, "the agent's MCP servers hold %zu of the %zu descriptors they may use: this one "
                "is not started", s->m->env.budget->fds_used, s->m->env.budget->fds_max);
        return;
    }
    s->init_timer = shc_loop_timer(s->m->env.loop, SHC_MCP_INIT_TIMEOUT_MS, on_init_timeout, s);
    if ((s->http ? shc__mcp_http_start(s) : shc__mcp_stdio_start(s)) != 0)
        return;
    json_t *p = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", SHC_MCP_PROTOCOL,
                          "capabilities", "clientInfo", "name", "shcard", "version", SHC_VERSION);
    if (shc_rpc_request(s->rpc, "initialize", p, on_initialized, s, NULL) != 0) {
        fail(s, "cannot send initialize");
        return;
    }
    shc__mcp_flush(s);
}

/* ------------------------------------------------------------------ the session's servers */

shc_mcp *shc_mcp_start(const shc_mcp_env *env, json_t *servers)
{
    if (json_array_size(servers) == 0)
        return NULL;
    shc_mcp *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->env = *env;
    m->cwd = strdup(env->cwd ? env->cwd : "/");
    m->env.cwd = m->cwd;
    m->key_env = env->key_env ? strdup(env->key_env) : NULL;
    m->env.key_env = m->key_env;
    m->servers = calloc(json_array_size(servers), sizeof *m->servers);
    if (!m->cwd || !m->servers || (env->key_env && !m->key_env)) {
        shc_log_warn(env->log, "mcp: out of memory: the session has no MCP servers");
        shc_mcp_free(m);
        return NULL;
    }
    size_t i;
    json_t *e;
    json_array_foreach(servers, i, e)
    {
        mcp_server *s = shc__mcp_server_new(m, e);
        if (s && !(s->ident = shc__mcp_ident(e, m->cwd)))
            shc_log_warn(env->log, "mcp %s: out of memory: its tools cannot be called", s->name);
        if (s)
            m->servers[m->n++] = s;
    }
    for (i = 0; i < m->n; i++)
        server_start(m->servers[i]);
    rebuild(m);
    return m;
}

void shc_mcp_free(shc_mcp *m)
{
    if (!m)
        return;
    m->freeing = true;
    while (m->calls)
        shc_mcp_call_drop(m->calls);
    for (size_t i = 0; i < m->n; i++) {
        mcp_server *s = m->servers[i];
        shc__mcp_timers_stop(s);
        shc__mcp_requests_flush(s);
        s->state = MS_FAILED; /* the answers abandoned below change nothing */
        if (s->http)
            shc__mcp_http_stop(s);
        else
            shc__mcp_stdio_stop(s);
        shc_rpc_free(s->rpc); /* pending answers get (NULL, NULL): nothing is left to call */
        s->rpc = NULL;
        shc__mcp_fds_give(s);
        for (size_t k = 0; k < s->ntools; k++)
            json_decref(s->tools[k].entry);
        free(s->ident);
        shc__mcp_server_free(s);
    }
    if (m->changed_timer)
        shc_loop_cancel_timer(m->env.loop, m->changed_timer);
    free(m->servers);
    free(m->index);
    json_decref(m->tools_json);
    shc_tools_snap_unref(m->snap);
    free(m->cwd);
    free(m->key_env);
    free(m);
}
