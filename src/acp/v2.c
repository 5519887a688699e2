/* ACP v2 on the bridge's method side (acp-2026-11.md §1.5): the version negotiation of
 * `initialize`, v2's `initialize` answer, which methods each version has, and `terminal/cancel`.
 * The frames a v2 client sees are encoded in v2enc.c; the session methods that both versions
 * share stay in bridge.c with the few lines where v2 differs. */
#include "acp/bridge_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { SHC_RPC_UNSUPPORTED_VERSION = -32022 };

/* Methods of each version besides the ones both have (initialize, session/new, session/prompt,
 * session/cancel). */
static const char *const v1_only[] = {"authenticate"};
static const char *const v2_only[] = {"terminal/cancel"};

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

int shc__v2_negotiate(br_bridge *br, json_t *id, json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion");
    int want = 1; /* a client that names no version gets v1, as before v2 existed */
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
                    json_pack("{s:i,s:{s:s,s:s,s:s},s:{s:{}},s:[]}", "protocolVersion", 2, "info",
                              "name", "shcard", "title", "shcard", "version", SHC_VERSION,
                              "capabilities", "session", "authMethods"));
}

/* terminal/cancel {sessionId, terminalId}: the kill ladder for a display terminal of that
 * session whose command runs.  Answered at once; the exitStatus update confirms it. */
void shc__v2_terminal_cancel(br_bridge *br, json_t *id, json_t *params)
{
    const char *sid = json_string_value(json_object_get(params, "sessionId"));
    const char *tid = json_string_value(json_object_get(params, "terminalId"));
    br_session *s = br->sessions;
    while (s && sid && strcmp(s->id, sid))
        s = s->next;
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
    if (json_array_size(s->v2_held) >= BR_V2_HELD) {
        free(text);
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS,
                      "session/prompt: too many prompts are held for this session", NULL);
        return;
    }
    json_t *h = json_pack("{s:O,s:O,s:s}", "id", id, "prompt", prompt, "text", text);
    free(text);
    if (!h || json_array_append_new(s->v2_held, h) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
}

/* Answers every held prompt -32800 (session/cancel, teardown): none was inserted. */
void shc__v2_drop_held(br_bridge *br, br_session *s)
{
    size_t i;
    json_t *h;
    json_array_foreach(s->v2_held, i, h)
        shc_rpc_error(br->rpc, json_object_get(h, "id"), SHC_RPC_REQUEST_CANCELLED,
                      "Request cancelled: the prompt was not inserted", NULL);
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
    if (!h)
        return;
    json_incref(h);
    json_array_remove(s->v2_held, 0);
    json_t *id = json_object_get(h, "id");
    shc__wire_prompt_start(br, s, id, json_object_get(h, "prompt"));
    if (shc__turn_start(br, s, id, json_string_value(json_object_get(h, "text"))) != 0)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    json_decref(h);
}
