/* The bridge's side of MCP (docs/mcp.md): a model session's MCP servers (mcp/), their tools
 * given to the backend (ops.set_tools), a turn held until the servers are settled, and each
 * call of an MCP tool as a card: `tool_call` titled "SERVER: TOOL" with the arguments as
 * rawInput, kind "other" ("fetch" for a read-only tool that reaches outside, "read" for a
 * read-only one that does not), the permission asked as for a command in ask mode ("Always
 * Allow" allows that tool of that server entry for the session), the result as text content,
 * status completed or failed.  The tool is resolved once, when the model's call arrives; the
 * card, the prompt and the call use that target, so a re-list cannot move the call.  Below
 * turn.c; it reaches the turn only through the host callbacks it was given. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "mcp/mcp.h"

/* What a card shows of a result (the model gets its own, cut by the backend). */
#define CARD_TEXT_MAX ((size_t)256 * 1024)
#define DESC_SHOWN_MAX ((size_t)2048) /* of a tool's description in a permission prompt */

/* ------------------------------------------------------------------ cards (replay too) */

json_t *shc__mcp_card(const char *id, const char *title, const char *kind, const char *status,
                      json_t *input)
{
    json_t *u = json_pack("{s:s,s:s,s:s,s:s,s:s}", "sessionUpdate", "tool_call", "toolCallId",
                          id, "title", title, "kind", kind, "status", status);
    if (u && json_is_object(input))
        json_object_set(u, "rawInput", input);
    return u;
}

/* What a card says when its result cannot be packed (out of memory, or a text that is not
 * UTF-8 in a record from elsewhere): the card still ends. */
static const char unencodable[] = "MCP error: the result could not be encoded";

json_t *shc__mcp_card_end(const char *id, const char *status, const char *text, size_t len,
                          json_t *images)
{
    char *shown = shc_utf8_dup(text, len, CARD_TEXT_MAX); /* mcp_end's cut already: a no-op */
    json_t *u = shown ? json_pack("{s:s,s:s,s:s,s:[{s:s,s:{s:s,s:s}}]}", "sessionUpdate",
                                  "tool_call_update", "toolCallId", id, "status", status,
                                  "content", "type", "content", "content", "type", "text",
                                  "text", shown)
                      : NULL;
    free(shown);
    if (!u)
        u = json_pack("{s:s,s:s,s:s,s:[{s:s,s:{s:s,s:s}}]}", "sessionUpdate", "tool_call_update",
                      "toolCallId", id, "status", "failed", "content", "type", "content",
                      "content", "type", "text", "text", unencodable);
    json_t *content = json_object_get(u, "content"), *img;
    size_t i;
    json_array_foreach(images, i, img) /* after the text note: the image itself, for the user */
        json_array_append_new(content, json_pack("{s:s,s:O}", "type", "content", "content", img));
    return u;
}

static const char *kind_of(const shc_mcp_target *t)
{
    if (t && t->read_only)
        return t->open_world ? "fetch" : "read";
    return "other";
}

/* ------------------------------------------------------------------ servers and tools */

static void start_held(br_session *s);

static void on_changed(void *payload)
{
    br_session *s = payload;
    /* the names with what they mean now: the calls of a request are resolved against the
     * tools it showed the model */
    char *tools = shc_mcp_tools_json(s->mcp);
    shc_tools_snap *snap = shc_mcp_tools_snap(s->mcp);
    if (tools && s->be->ops->set_tools)
        s->be->ops->set_tools(s->be, s->id, tools, snap);
    shc_tools_snap_unref(snap);
    free(tools);
    if (shc_mcp_settled(s->mcp))
        start_held(s);
}

void shc__mcp_session(br_bridge *br, br_session *s, json_t *servers)
{
    /* a load or resume names the servers again: the earlier ones end (also when it names
     * none), and "Always allow" given to their tools carries only to entries of the same
     * identity (same kind, name, cwd, command, args and env, or url and headers) and only
     * while the tool's definition is the one allowed (the key holds it) */
    if (s->mcp && s->be->ops->set_tools) /* the earlier servers' tools are offered no more */
        s->be->ops->set_tools(s->be, s->id, NULL, NULL);
    shc_mcp_free(s->mcp);
    s->mcp = NULL;
    json_t *allowed = s->mcp_allowed;
    s->mcp_allowed = NULL;
    if (json_array_size(servers) == 0) {
        json_decref(allowed);
        return;
    }
    if (!s->be->ops->set_tools) {
        shc_log_info(br->log, "%s: %zu MCP server(s) offered; shell mode does not use them",
                     s->id, json_array_size(servers));
        return;
    }
    shc_mcp_env env = {
        .loop = br->loop,
        .exec = br->exec,
        .log = br->log,
        .cwd = s->cwd,
        .call_timeout_ms = br->cfg.mcp_timeout_ms,
        .key_env = br->cfg.mcp_key_env,
        .budget = &br->mcp_budget,
        .changed = on_changed,
        .payload = s,
    };
    s->mcp = shc_mcp_start(&env, servers);
    const char *key;
    json_t *v;
    json_object_foreach(allowed, key, v)
    {
        if (s->mcp && shc_mcp_key_present(s->mcp, key)) {
            if (!s->mcp_allowed)
                s->mcp_allowed = json_object();
            json_object_set(s->mcp_allowed, key, v);
        }
    }
    json_decref(allowed);
}

void shc__mcp_session_end(br_session *s)
{
    shc_mcp_free(s->mcp);
    s->mcp = NULL;
    json_decref(s->mcp_allowed);
    s->mcp_allowed = NULL;
}

/* ------------------------------------------------------------------ a turn held */

typedef struct held_parts {
    shc_prompt_part *parts;
    size_t n;
} held_parts;

static char *dupn(const char *s, size_t n)
{
    return s ? strndup(s, n) : NULL;
}

bool shc__mcp_hold(br_turn *t, const shc_prompt_part *parts, size_t n)
{
    if (!t->sess->mcp || shc_mcp_settled(t->sess->mcp))
        return false;
    held_parts *h = calloc(1, sizeof *h);
    if (!h || !(h->parts = calloc(n, sizeof *h->parts))) {
        free(h);
        return false; /* out of memory: the turn starts without waiting */
    }
    for (size_t i = 0; i < n; i++) {
        shc_prompt_part *p = &h->parts[i];
        p->kind = parts[i].kind;
        p->len = parts[i].len;
        p->text = dupn(parts[i].text, parts[i].len);
        p->uri = parts[i].uri ? strdup(parts[i].uri) : NULL;
        p->name = parts[i].name ? strdup(parts[i].name) : NULL;
        p->mime = parts[i].mime ? strdup(parts[i].mime) : NULL;
    }
    h->n = n;
    t->mcp_held = h;
    shc_log_info(t->br->log, "%s: the prompt waits for the MCP servers", t->sess->id);
    return true;
}

void shc__mcp_held_free(br_turn *t)
{
    held_parts *h = t->mcp_held;
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++) {
        free((char *)(uintptr_t)h->parts[i].text);
        free((char *)(uintptr_t)h->parts[i].uri);
        free((char *)(uintptr_t)h->parts[i].name);
        free((char *)(uintptr_t)h->parts[i].mime);
    }
    free(h->parts);
    free(h);
    t->mcp_held = NULL;
}

static void start_held(br_session *s)
{
    for (br_turn *t = s->turns; t; t = t->next) {
        held_parts *h = t->mcp_held;
        if (!h || t->be_done || t->cancelled)
            continue;
        t->bt = s->be->ops->turn_start(s->be, t->br->loop, s->id, s->cwd, h->parts, h->n,
                                       &t->host);
        shc__mcp_held_free(t);
        if (!t->bt && !t->be_done)
            t->host.turn_done(t, SHC_STOP_END_TURN, SHC_RPC_INTERNAL_ERROR,
                              "the backend failed to start");
        shc__turn_kick(t);
    }
}

/* ------------------------------------------------------------------ calls */

void shc__mcp_host_call(void *payload, const char *call_id, const char *name,
                        const char *arguments, shc_tools_snap *snap)
{
    br_turn *t = payload;
    if (t->settled || t->cancelled || t->be_done)
        return;
    br_call *c = calloc(1, sizeof *c);
    if (c) {
        c->be_call_id = strdup(call_id ? call_id : "");
        c->command = strdup(name ? name : "");
        c->mcp_args = strdup(arguments ? arguments : "{}");
    }
    if (!c || !c->be_call_id || !c->command || !c->mcp_args) {
        if (c) {
            free(c->be_call_id);
            free(c->command);
            free(c->mcp_args);
        }
        free(c);
        t->oom = true;
        t->host.turn_done(t, SHC_STOP_END_TURN, SHC_RPC_INTERNAL_ERROR, NULL);
        return;
    }
    /* the target is fixed now: what the name meant in the request the model answered */
    c->mcp_target = shc_mcp_resolve(snap, c->command);
    c->mcp = true;
    c->turn = t;
    c->state = CALL_QUEUED;
    br_call **tail = &t->calls;
    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    shc__turn_kick(t);
}

/* The call's end: the final card, the record, the result the model reads (verbatim). */
static void mcp_end(br_call *c, bool failed, bool cancelled, const char *text, size_t len,
                    json_t *images)
{
    br_turn *t = c->turn;
    const char *status = failed ? "failed" : "completed";
    /* one cut for the card and its record (at a character boundary, as valid UTF-8), so a
     * replay shows what the live card did; the model gets the whole text, made valid too */
    char *shown = shc_utf8_dup(text, len, CARD_TEXT_MAX);
    const char *card = shown ? shown : unencodable;
    shc__call_send(t, shc__mcp_card_end(c->id, status, card, strlen(card), images));
    json_t *rec = json_pack("{s:s,s:s,s:s,s:s}", "t", "mcp_end", "id", c->id, "status", status,
                            "text", card);
    shc__rec_put(t->sess, rec ? rec
                              : json_pack("{s:s,s:s,s:s,s:s}", "t", "mcp_end", "id", c->id,
                                          "status", "failed", "text", unencodable));
    free(shown);
    c->res_text = shc_utf8_dup(text, len, SIZE_MAX / 4);
    c->res = (shc_tool_result){
        .call_id = c->be_call_id,
        .model_text = c->res_text ? c->res_text : "MCP error: out of memory",
        .ran = true,
        .cancelled = cancelled,
        .verbatim = true,
    };
    c->state = CALL_DONE;
    shc__turn_kick(t);
}

static void on_done(void *payload, const shc_mcp_result *r)
{
    br_call *c = payload;
    c->mcp_call = NULL;
    mcp_end(c, r->error, r->cancelled, r->text, r->len, r->images);
}

static void run(br_call *c)
{
    c->state = CALL_RUNNING;
    shc_mcp *m = c->turn->sess->mcp;
    if (!m) {
        static const char gone[] = "MCP error: the session no longer has MCP servers; not called";
        mcp_end(c, true, false, gone, sizeof gone - 1, NULL);
        return;
    }
    c->mcp_call = shc_mcp_call_start(m, c->mcp_target, c->mcp_args, on_done, c);
    if (!c->mcp_call) {
        static const char oom[] = "MCP error: out of memory";
        mcp_end(c, true, false, oom, sizeof oom - 1, NULL);
    }
}

static void allow_always(br_session *s, const shc_mcp_target *g)
{
    char *key = shc_mcp_approval_key(g);
    if (key && !s->mcp_allowed)
        s->mcp_allowed = json_object();
    /* the tool allowed with another definition before: that one goes */
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(s->mcp_allowed, tmp, k, v)
    {
        if (shc_mcp_key_same_tool(k, g))
            json_object_del(s->mcp_allowed, k);
    }
    if (key)
        json_object_set_new(s->mcp_allowed, key, json_true());
    free(key);
}

/* 1 allowed; 0 not, or -1 not but allowed before with another definition. */
static int allowed(br_session *s, const shc_mcp_target *g)
{
    char *key = shc_mcp_approval_key(g);
    bool yes = key && json_is_true(json_object_get(s->mcp_allowed, key));
    free(key);
    if (yes)
        return 1;
    const char *k;
    json_t *v;
    json_object_foreach(s->mcp_allowed, k, v)
    {
        if (shc_mcp_key_same_tool(k, g))
            return -1;
    }
    return 0;
}

static void on_permission(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    int allow = shc__permission_outcome(c, result, error);
    if (!allow) {
        static const char no[] = "MCP error: rejected by the user";
        static const char cancelled[] = "MCP error: cancelled";
        bool cc = c->turn->cancelled;
        mcp_end(c, true, cc, cc ? cancelled : no, cc ? sizeof cancelled - 1 : sizeof no - 1, NULL);
        return;
    }
    if (allow == 2)
        allow_always(c->turn->sess, c->mcp_target);
    shc__call_send(c->turn, json_pack("{s:s,s:s,s:s}", "sessionUpdate", "tool_call_update",
                                      "toolCallId", c->id, "status", "in_progress"));
    run(c);
}

void shc__mcp_start_call(br_call *c)
{
    br_turn *t = c->turn;
    br_session *s = t->sess;
    br_bridge *br = t->br;
    snprintf(c->id, sizeof c->id, "call_%llu", ++s->ncalls);
    const shc_mcp_target *tool = c->mcp_target;
    /* the tool as the model was shown it must be the tool as the server lists it now: else it
     * is not called (nor asked about) */
    const char *stale = NULL;
    if (tool && s->mcp)
        (void)shc_mcp_target_current(s->mcp, tool, &stale);
    int ok = tool && !stale && s->approve == SHC_APPROVE_ASK ? allowed(s, tool) : 1;
    char *shown = NULL;
    if (!tool)
        shown = shc_mcp_display(c->command, 120); /* the model's name */
    else if (ok < 0 && asprintf(&shown, "%s (changed since you allowed it)", tool->title) < 0)
        shown = NULL;
    const char *title = shown ? shown : tool ? tool->title : "MCP tool";
    const char *kind = kind_of(tool);
    json_t *input = json_loads(c->mcp_args, 0, NULL);
    /* no such tool when the model called it: nothing to ask for */
    bool ask = tool && ok != 1;
    const char *status = ask ? "pending" : "in_progress";
    shc__call_send(t, shc__mcp_card(c->id, title, kind, status, input));
    shc__rec_put(s, json_pack("{s:s,s:s,s:s,s:s,s:s,s:O?}", "t", "mcp_call", "id", c->id,
                              "title", title, "kind", kind, "status", status, "input",
                              json_is_object(input) ? input : NULL));
    shc_log_debug(br->log, "%s %s: MCP call %s", s->id, c->id, title);
    if (!tool) {
        free(shown);
        json_decref(input);
        char *text = NULL;
        if (asprintf(&text, "MCP error: %.100s is not among the MCP tools this request offered",
                     c->command) < 0)
            text = NULL;
        mcp_end(c, true, false, text ? text : "MCP error: no such tool",
                strlen(text ? text : "MCP error: no such tool"), NULL);
        free(text);
        return;
    }
    if (stale) {
        free(shown);
        json_decref(input);
        char *text = NULL;
        if (asprintf(&text, "MCP error: %s was not called: %s", tool->title, stale) < 0)
            text = NULL;
        mcp_end(c, true, false, text ? text : "MCP error: not called",
                strlen(text ? text : "MCP error: not called"), NULL);
        free(text);
        return;
    }
    if (!ask) {
        free(shown);
        json_decref(input);
        run(c);
        return;
    }
    c->state = CALL_ASKING;
    json_t *tc = json_pack("{s:s,s:s,s:s,s:s}", "toolCallId", c->id, "title", title, "kind", kind,
                           "status", "pending");
    free(shown);
    if (tc && json_is_object(input))
        json_object_set(tc, "rawInput", input);
    json_decref(input);
    /* what the model was shown of the tool: the approval is for this definition */
    json_t *dj = json_object_get(tool->def, "description");
    char *desc = json_is_string(dj)
                     ? shc_utf8_dup(json_string_value(dj), json_string_length(dj), DESC_SHOWN_MAX)
                     : NULL;
    if (tc && desc && *desc)
        json_object_set_new(tc, "content",
                            json_pack("[{s:s,s:{s:s,s:s+}}]", "type", "content", "content", "type",
                                      "text", "text", "The tool as the model was shown it: ", desc));
    free(desc);
    json_t *params = json_pack(
        "{s:s,s:o,s:[{s:s,s:s,s:s},{s:s,s:s,s:s},{s:s,s:s,s:s}]}", "sessionId", s->id, "toolCall",
        tc, "options", "optionId", "allow", "name", "Allow once", "kind", "allow_once",
        "optionId", "allow_always", "name", "Always allow this tool", "kind", "allow_always",
        "optionId", "reject", "name", "Reject", "kind", "reject_once");
    int64_t id = 0;
    if (!params ||
        shc_rpc_request(br->rpc, "session/request_permission", params, on_permission, c, &id)) {
        static const char no[] = "MCP error: the permission request failed";
        mcp_end(c, true, false, no, sizeof no - 1, NULL);
        return;
    }
    c->req_id = id;
    shc__wire_flush(br);
}

void shc__mcp_not_run(br_call *c, const char *why, bool cancelled)
{
    shc_mcp_call_drop(c->mcp_call);
    c->mcp_call = NULL;
    char *text = NULL;
    if (asprintf(&text, "MCP error: %s", why) < 0)
        text = NULL;
    mcp_end(c, true, cancelled, text ? text : "MCP error", text ? strlen(text) : 9, NULL);
    free(text);
}

void shc__mcp_cancel_call(br_call *c)
{
    if (c->mcp_call)
        shc_mcp_call_cancel(c->mcp_call); /* its done follows from the loop */
}

void shc__mcp_call_free(br_call *c)
{
    shc_mcp_call_drop(c->mcp_call);
    c->mcp_call = NULL;
    free(c->mcp_args);
    c->mcp_args = NULL;
    shc_mcp_target_free(c->mcp_target);
    c->mcp_target = NULL;
}
