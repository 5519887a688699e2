/* ACP v2 on the bridge's method side (acp-2026-11.md §1.5): `initialize` (its params checked,
 * the version negotiated, each version's answer), which methods each version has,
 * `terminal/cancel`,
 * the prompts a v2 session holds while it works, and `session/list`, `resume`, `close` and
 * `delete` over the sessions of this process.  The frames a v2 client sees are encoded in
 * v2enc.c; `session/new`, `prompt` and `cancel`, which both versions have, stay in bridge.c
 * with the few lines where v2 differs. */
#include "acp/bridge_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { SHC_RPC_UNSUPPORTED_VERSION = -32022, SHC_RPC_RESOURCE_NOT_FOUND = -32002 };

/* Methods of each version besides the ones both have (initialize, session/new, session/prompt,
 * session/cancel). */
static const char *const v1_only[] = {"authenticate"};
static const char *const v2_only[] = {"terminal/cancel", "session/list", "session/resume",
                                     "session/close", "session/delete"};

static bool listed(const char *const *tab, size_t n, const char *method)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tab[i], method))
            return true;
    return false;
}

bool shc__v2_method_known(const br_bridge *br, const char *method)
{
    if (!strcmp(method, "initialize") || !strcmp(method, "session/new") ||
        !strcmp(method, "session/prompt") || !strcmp(method, "session/cancel"))
        return true;
    if (br->version == 2)
        return listed(v2_only, sizeof v2_only / sizeof *v2_only, method);
    return listed(v1_only, sizeof v1_only / sizeof *v1_only, method);
}

static void nonce(char *out, size_t cap)
{
    unsigned char r[4] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
            memset(r, 0, sizeof r);
        close(fd);
    }
    snprintf(out, cap, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

/* A live session of this connection (not one being closed), or NULL. */
static br_session *find(br_bridge *br, const char *sid)
{
    for (br_session *s = br->sessions; s && sid; s = s->next)
        if (!s->closing && !strcmp(s->id, sid))
            return s;
    return NULL;
}

/* initialize's version: 1 or 2 (the highest at or below the client's; once sessions exist, the
 * connection's own), or -1 after answering with an error (0, or below the version of a
 * connection that has sessions). */
static int negotiate(br_bridge *br, json_t *id, json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion"); /* checked by bad_initialize() */
    int want = 1;
    if (pv && !json_is_integer(pv)) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "initialize: protocolVersion must be an integer", NULL);
        return -1;
    }
    if (pv) {
        json_int_t v = json_integer_value(pv);
        if (v < 1) {
            shc_rpc_error(br->rpc, id, SHC_RPC_UNSUPPORTED_VERSION,
                          "Unsupported protocol version",
                          json_pack("{s:I,s:[i,i]}", "requested", v, "supported", 1, 2));
            return -1;
        }
        want = v >= 2 ? 2 : 1;
    }
    /* Once a session exists the connection's version is pinned: a later initialize gets it
     * when the client can speak it (so an old client that re-initializes keeps working), and an
     * error when it cannot. */
    int have = br->version ? br->version : 1;
    if (br->sessions && want != have) {
        if (want < have) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "initialize: this connection speaks ACP v%d and has sessions; it cannot "
                     "change to v%d (open a new connection)",
                     have, want);
            shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_REQUEST, msg, NULL);
            return -1;
        }
        want = have;
    }
    br->version = want;
    if (want == 2 && !br->v2_nonce[0])
        nonce(br->v2_nonce, sizeof br->v2_nonce);
    return want;
}

static void initialize_v2(br_bridge *br, json_t *id, json_t *params)
{
    json_t *info = json_object_get(params, "info");
    const char *name = json_string_value(json_object_get(info, "name"));
    /* v2 clients render agent-owned terminals: no capability gates them, and there are no
     * client terminals (terminal/ and fs/ are gone from v2) */
    br->caps = (shc_client_caps){.display_terminals = true};
    shc_log_info(br->log, "initialize: ACP v2 (client %s)", name ? name : "unnamed");
    shc_rpc_respond(br->rpc, id,
                    json_pack("{s:i,s:{s:s,s:s,s:s},s:{s:{s:{}}},s:[]}", "protocolVersion", 2, "info",
                              "name", "shcard", "title", "shcard", "version", SHC_VERSION,
                              "capabilities", "session", "delete", "authMethods"));
}

/* initialize's params, checked against the schema's types before anything is taken from them.
 * NULL, or the -32602 message. */
static const char *bad_initialize(json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion");
    if (!json_is_integer(pv) || json_integer_value(pv) < 0 || json_integer_value(pv) > 65535)
        return "initialize: protocolVersion must be an integer (0-65535)";
    json_t *cc = json_object_get(params, "clientCapabilities");
    if (cc && !json_is_object(cc))
        return "initialize: clientCapabilities must be an object";
    json_t *v;
    if ((v = json_object_get(cc, "terminal")) && !json_is_boolean(v))
        return "initialize: clientCapabilities.terminal must be a boolean";
    if ((v = json_object_get(cc, "fs")) && !json_is_object(v))
        return "initialize: clientCapabilities.fs must be an object";
    if ((v = json_object_get(cc, "_meta")) && !json_is_object(v))
        return "initialize: clientCapabilities._meta must be an object";
    if ((v = json_object_get(params, "clientInfo")) && !json_is_object(v) && !json_is_null(v))
        return "initialize: clientInfo must be an object";
    return NULL;
}

void shc__v2_initialize(br_bridge *br, json_t *id, json_t *params)
{
    const char *bad = bad_initialize(params);
    if (bad) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, bad, NULL);
        return;
    }
    int version = negotiate(br, id, params);
    if (version != 1) {
        if (version == 2)
            initialize_v2(br, id, params);
        return;
    }
    json_t *cc = json_object_get(params, "clientCapabilities");
    json_t *meta = json_object_get(cc, "_meta");
    br->caps.terminal = json_is_true(json_object_get(cc, "terminal"));
    br->caps.terminal_output = json_is_true(json_object_get(meta, "terminal_output"));
    br->caps.terminal_output_delta = json_is_true(json_object_get(meta, "terminal_output_delta"));
    br->caps.display_terminals = false;
    br->caps.client_terminals = br->cfg.client_terminals;
    shc_log_info(br->log, "initialize: terminal=%d _meta.terminal_output=%d %s", br->caps.terminal,
                 br->caps.terminal_output,
                 br->caps.terminal_output_delta ? "_meta.terminal_output_delta=1" : "");
    shc_rpc_respond(
        br->rpc, id,
        json_pack("{s:i,s:{s:b,s:{s:b,s:b,s:b},s:{s:b,s:b},s:{}},s:[],s:{s:s,s:s,s:s}}",
                  "protocolVersion", 1, "agentCapabilities", "loadSession", 0,
                  "promptCapabilities", "image", 0, "audio", 0, "embeddedContext", 0,
                  "mcpCapabilities", "http", 0, "sse", 0, "sessionCapabilities", "authMethods",
                  "agentInfo", "name", "shcard", "title", "shcard", "version", SHC_VERSION));
}

/* terminal/cancel {sessionId, terminalId}: the kill ladder for a display terminal of that
 * session whose command runs.  Answered at once; the exitStatus update confirms it. */
void shc__v2_terminal_cancel(br_bridge *br, json_t *id, json_t *params)
{
    const char *sid = shc_rpc_str(json_object_get(params, "sessionId"));
    const char *tid = shc_rpc_str(json_object_get(params, "terminalId"));
    br_session *s = find(br, sid);
    if (!sid || !tid) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "terminal/cancel: sessionId and terminalId must be strings", NULL);
        return;
    }
    if (!s) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, "terminal/cancel: unknown session",
                      NULL);
        return;
    }
    const char *call_id = shc__v2_running_call(s, tid);
    br_call *c = NULL;
    for (br_turn *t = s->turns; t && call_id && !c; t = t->next)
        for (br_call *k = t->calls; k && !c; k = k->next)
            if (!strcmp(k->id, call_id) && k->state == CALL_RUNNING && k->pty &&
                !shc_pty_done(k->pty))
                c = k;
    if (!c) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "terminal/cancel: no running terminal with this id in this session (unknown, "
                      "exited or not cancellable)",
                      NULL);
        return;
    }
    shc_log_info(br->log, "terminal/cancel %s %s", s->id, tid);
    shc__v2_mark_cancel(s, c->id);
    shc_pty_cancel(c->pty);
    shc_rpc_respond(br->rpc, id, json_object());
}

/* ------------------------------------------------------------------ held prompts */

/* A v2 prompt that comes while the session works is held, and inserted (answered with its
 * messageId) when the session is idle again, in the order received.  Takes text. */
void shc__v2_hold(br_bridge *br, br_session *s, json_t *id, json_t *prompt, char *text)
{
    if (!s->v2_held)
        s->v2_held = json_array();
    size_t len = strlen(text);
    if (json_array_size(s->v2_held) >= BR_V2_HELD || br->v2_held_bytes + len > BR_V2_HELD_BYTES) {
        free(text);
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "session/prompt: too many prompts are held for this session", NULL);
        return;
    }
    /* the blocks echoed later are rebuilt from what is kept: text, or a link's uri and name */
    json_t *h = json_pack("{s:O,s:O,s:s}", "id", id, "prompt", prompt, "text", text);
    free(text);
    if (!h || json_array_append_new(s->v2_held, h) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    else
        br->v2_held_bytes += 2 * len; /* the text and the blocks it came from */
}

/* Answers every held prompt -32800 (session/cancel, teardown): none was inserted. */
void shc__v2_drop_held(br_bridge *br, br_session *s)
{
    size_t i;
    json_t *h;
    json_array_foreach(s->v2_held, i, h)
    {
        br->v2_held_bytes -= 2 * json_string_length(json_object_get(h, "text"));
        shc_rpc_error(br->rpc, json_object_get(h, "id"), SHC_RPC_REQUEST_CANCELLED,
                      "Request cancelled: the prompt was not inserted", NULL);
    }
    json_array_clear(s->v2_held);
}

/* turn.c: a turn of the session was just answered.  The next held prompt is inserted. */
void shc__v2_on_settled(br_bridge *br, br_session *s)
{
    if (br->tearing) {
        shc__v2_drop_held(br, s);
        return;
    }
    json_t *h = json_array_get(s->v2_held, 0);
    if (!h || s->active)
        return;
    json_incref(h);
    json_array_remove(s->v2_held, 0);
    br->v2_held_bytes -= 2 * json_string_length(json_object_get(h, "text"));
    json_t *id = json_object_get(h, "id");
    shc__wire_prompt_start(br, s, id, json_object_get(h, "prompt"));
    if (shc__turn_start(br, s, id, json_string_value(json_object_get(h, "text"))) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    json_decref(h);
}

/* ------------------------------------------------------------------ session methods */

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

/* session/list {cwd?, cursor?}: the sessions of this process, newest first, in one page. */
static void m_list(br_bridge *br, json_t *id, json_t *params)
{
    json_t *cwd = json_object_get(params, "cwd"), *cursor = json_object_get(params, "cursor");
    if (cwd && !json_is_null(cwd) && !json_is_string(cwd)) {
        invalid(br, id, "session/list: cwd must be an absolute path");
        return;
    }
    if (cursor && !json_is_null(cursor)) {
        invalid(br, id, "session/list: unknown cursor (every session fits in the first page)");
        return;
    }
    json_t *list = json_array();
    for (br_session *s = br->sessions; s; s = s->next)
        if (!s->closing && (!json_is_string(cwd) || !strcmp(json_string_value(cwd), s->cwd)))
            json_array_append_new(list, json_pack("{s:s,s:s}", "sessionId", s->id, "cwd", s->cwd));
    shc_rpc_respond(br->rpc, id, json_pack("{s:o}", "sessions", list));
}

static void not_found(br_bridge *br, json_t *id, const char *method, const char *sid)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s: no such session in this shcard process", method);
    shc_rpc_error(br->rpc, id, SHC_RPC_RESOURCE_NOT_FOUND, msg,
                  sid ? json_pack("{s:s}", "sessionId", sid) : NULL);
}

/* session/resume {sessionId, cwd, mcpServers?, replayFrom?}: a session of this process; with
 * replayFrom {type: start} its history is replayed first.  Then the current state, then {}. */
static void m_resume(br_bridge *br, json_t *id, json_t *params)
{
    const char *sid = shc_rpc_str(json_object_get(params, "sessionId"));
    const char *cwd = json_string_value(json_object_get(params, "cwd"));
    json_t *mcp = json_object_get(params, "mcpServers");
    json_t *dirs = json_object_get(params, "additionalDirectories");
    json_t *from = json_object_get(params, "replayFrom");
    const char *type = json_string_value(json_object_get(from, "type"));
    br_session *s = find(br, sid);
    if (!sid || !cwd || cwd[0] != '/') {
        invalid(br, id, "session/resume: sessionId and an absolute cwd are required");
        return;
    }
    if ((mcp && !json_is_null(mcp) && !json_is_array(mcp)) || json_array_size(mcp) > 0) {
        invalid(br, id, "session/resume: MCP servers are not supported by shcard");
        return;
    }
    if ((dirs && !json_is_null(dirs) && !json_is_array(dirs)) || json_array_size(dirs) > 0) {
        invalid(br, id, "session/resume: additionalDirectories are not supported");
        return;
    }
    if (from && !json_is_null(from) && (!type || strcmp(type, "start"))) {
        invalid(br, id, "session/resume: replayFrom supports only {\"type\": \"start\"}");
        return;
    }
    if (!s) {
        not_found(br, id, "session/resume", sid);
        return;
    }
    if (strcmp(cwd, s->cwd)) {
        invalid(br, id, "session/resume: cwd is not the session's working directory");
        return;
    }
    if (type) {
        shc_log_info(br->log, "session/resume %s: replaying %zu updates", s->id,
                     json_array_size(s->v2_history));
        shc__v2_replay_begin(s);
        size_t i;
        json_t *f;
        json_array_foreach(s->v2_history, i, f)
            shc__wire_update(br, s, json_deep_copy(f));
        json_t *last = shc__v2_replay_end(s);
        json_array_foreach(last, i, f)
            shc__wire_update(br, s, json_incref(f)); /* live encoder: passes them through */
        json_decref(last);
    }
    br_v2_state st = shc__v2_state_of(s);
    shc__wire_update(br, s, shc__v2_state(s, st, NULL, 0, NULL)); /* the current state */
    shc_rpc_respond(br->rpc, id, json_object());
}

/* session/close and session/delete {sessionId}: the session's work is cancelled (its final
 * updates and idle come first), held prompts are answered -32800, and once its turns are gone
 * the request is answered and the session freed.  An unknown session is closed already. */
static void m_close(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    const char *sid = shc_rpc_str(json_object_get(params, "sessionId"));
    if (!sid) {
        invalid(br, id, "sessionId must be a string");
        return;
    }
    br_session *s = find(br, sid);
    if (!s) {
        shc_rpc_respond(br->rpc, id, json_object());
        return;
    }
    shc_log_info(br->log, "%s %s", method, s->id);
    shc__v2_drop_held(br, s);
    s->closing = true;
    s->close_id = json_incref(id);
    if (s->active || s->turns) {
        shc__v2_cancelling(s);
        for (br_turn *t = s->turns; t; t = t->next)
            shc__turn_cancel(t);
    }
    br->hooks.reap(br); /* at once when nothing runs */
}

void shc__v2_session_method(br_bridge *br, json_t *id, const char *method, json_t *params)
{
    if (br->tearing) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the bridge is shutting down", NULL);
        return;
    }
    if (!strcmp(method, "session/list"))
        m_list(br, id, params);
    else if (!strcmp(method, "session/resume"))
        m_resume(br, id, params);
    else
        m_close(br, id, method, params);
}
