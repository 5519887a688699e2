/* ACP v2 on the bridge's method side (acp-2026-11.md §1.5): the version negotiation and v2's
 * `initialize` answer, which methods each version has, `terminal/cancel`, the prompts a v2
 * session holds while it works, and the few steps where v2's session methods differ from v1's
 * (session.c runs them for both: new, list, resume over the store, close, delete, prompt,
 * cancel): `replayFrom`, the current `state_update` after a resume, `-32002` for a session that
 * does not exist.  The frames a v2 client sees are encoded in v2enc.c. */
#include "acp/bridge_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SHC_RPC_UNSUPPORTED_VERSION = -32022, SHC_RPC_RESOURCE_NOT_FOUND = -32002 };

/* The methods of a v2 connection besides initialize (bridge.c knows v1's). */
static const char *const v2_methods[] = {
    "session/new",    "session/prompt", "session/cancel",            "session/list",
    "session/resume", "session/close",  "session/delete",            "session/set_config_option",
    "terminal/cancel",
};

bool shc__v2_method_known(const char *method)
{
    for (size_t i = 0; i < sizeof v2_methods / sizeof *v2_methods; i++)
        if (!strcmp(v2_methods[i], method))
            return true;
    return false;
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

/* initialize's version: 1 or 2 (the highest at or below the client's; once sessions exist, the
 * connection's own), or -1 after answering with an error (0, or below the version of a
 * connection that has sessions). */
int shc__v2_negotiate(br_bridge *br, json_t *id, json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion"); /* checked by bridge.c */
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

void shc__v2_initialize(br_bridge *br, json_t *id, json_t *params)
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

/* terminal/cancel {sessionId, terminalId}: the kill ladder for a display terminal of that
 * session whose command runs.  Answered at once; the exitStatus update confirms it. */
void shc__v2_terminal_cancel(br_bridge *br, json_t *id, json_t *params)
{
    const char *sid = shc_rpc_str(json_object_get(params, "sessionId"));
    const char *tid = shc_rpc_str(json_object_get(params, "terminalId"));
    br_session *s = NULL;
    for (br_session *k = br->sessions; k && sid; k = k->next)
        if (!k->closing && !strcmp(k->id, sid))
            s = k;
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
 * messageId) when the session is idle again, in the order received.  bytes: its text. */
void shc__v2_hold(br_bridge *br, br_session *s, json_t *id, json_t *prompt, size_t bytes)
{
    if (!s->v2_held)
        s->v2_held = json_array();
    if (json_array_size(s->v2_held) >= BR_V2_HELD || br->v2_held_bytes + bytes > BR_V2_HELD_BYTES) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "session/prompt: too many prompts are held for this session", NULL);
        return;
    }
    json_t *h = json_pack("{s:O,s:O,s:I}", "id", id, "prompt", prompt, "bytes", (json_int_t)bytes);
    if (!h || json_array_append_new(s->v2_held, h) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    else
        br->v2_held_bytes += bytes;
}

static size_t held_bytes(json_t *h)
{
    return (size_t)json_integer_value(json_object_get(h, "bytes"));
}

/* Answers every held prompt -32800 (session/cancel, close, teardown): none was inserted. */
void shc__v2_drop_held(br_bridge *br, br_session *s)
{
    size_t i;
    json_t *h;
    json_array_foreach(s->v2_held, i, h)
    {
        br->v2_held_bytes -= held_bytes(h);
        shc_rpc_error(br->rpc, json_object_get(h, "id"), SHC_RPC_REQUEST_CANCELLED,
                      "Request cancelled: the prompt was not inserted", NULL);
    }
    json_array_clear(s->v2_held);
}

/* session.c, once a turn of the session was answered: the next held prompt to insert ({id,
 * prompt}, a new reference), or NULL (none, or the session is going away: then all are answered
 * -32800). */
json_t *shc__v2_take_held(br_bridge *br, br_session *s)
{
    if (br->tearing || s->closing) {
        shc__v2_drop_held(br, s);
        return NULL;
    }
    json_t *h = json_array_get(s->v2_held, 0);
    if (!h || s->active)
        return NULL;
    json_incref(h);
    json_array_remove(s->v2_held, 0);
    br->v2_held_bytes -= held_bytes(h);
    return h;
}

/* ------------------------------------------------------------------ session methods */

/* session/resume's replayFrom: absent or null (no replay), or {type: start}.  Sets *replay;
 * false after answering -32602. */
bool shc__v2_replay_from(br_bridge *br, json_t *id, json_t *params, bool *replay)
{
    json_t *from = json_object_get(params, "replayFrom");
    const char *type = json_string_value(json_object_get(from, "type"));
    *replay = false;
    if (!from || json_is_null(from))
        return true;
    if (!type || strcmp(type, "start")) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "session/resume: replayFrom supports only {\"type\": \"start\"}", NULL);
        return false;
    }
    *replay = true;
    return true;
}

/* v2: a session that does not exist is -32002 (v1: -32602, "unknown session"). */
void shc__v2_unknown(br_bridge *br, json_t *id, const char *method, const char *sid)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s: unknown session", method);
    if (br->version != 2) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
        return;
    }
    shc_rpc_error(br->rpc, id, SHC_RPC_RESOURCE_NOT_FOUND, msg,
                  sid ? json_pack("{s:s}", "sessionId", sid) : NULL);
}

/* v2, before resume is answered: the frames a replay still holds (calls whose end was not
 * stored: a crash), then the current state. */
void shc__v2_resumed(br_bridge *br, br_session *s)
{
    if (br->version != 2)
        return;
    if (shc__v2_is_replaying(s)) {
        json_t *last = shc__v2_replay_end(s), *f;
        size_t i;
        json_array_foreach(last, i, f)
            shc__wire_update(br, s, json_incref(f)); /* live encoder: passes them through */
        json_decref(last);
    }
    shc__wire_update(br, s, shc__v2_state(s, shc__v2_state_of(s), NULL, 0, NULL));
}
