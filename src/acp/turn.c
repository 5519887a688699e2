/* Turns and tool calls of the ACP bridge: backend callbacks, permissions, the local PTY path,
 * cancel, and answering each prompt exactly once (the client-terminal path is cterm.c, the
 * end of a call call.c).
 * See bridge_int.h for the re-entrancy rule every function here follows. */
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ local PTY */

/* A command slot came free: every turn whose current call waits for one tries again. */
static void wake_waiting(br_bridge *br)
{
    for (br_session *s = br->sessions; s; s = s->next)
        for (br_turn *t = s->turns; t; t = t->next)
            if (t->calls && t->calls->state == CALL_WAITING)
                shc__turn_kick(t);
}

/* Frees the call's running command (SIGKILL, reap, sweep; no callback) and its slot. */
static void drop_pty(br_call *c)
{
    if (!c->pty)
        return;
    shc_pty_free(c->pty);
    c->pty = NULL;
    shc__verify_end(c);
    c->turn->br->nlocal--;
    wake_waiting(c->turn->br);
}

static void on_pty_output(shc_pty *pty, const char *data, size_t len, void *payload)
{
    (void)pty;
    br_call *c = payload;
    shc__verify_output(c, data, len); /* a watched card keeps it until it flips */
    if (c->info.card != SHC_CARD_TERMINAL || len == 0)
        return;
    json_t *u = shc_present_output(&c->info, data, len);
    if (u)
        shc__call_send(c->turn, u);
    shc__rec_out(c, data, len);
}

static void on_pty_exit(shc_pty *pty, const shc_pty_status *st, void *payload)
{
    br_call *c = payload;
    shc__verify_end(c);
    size_t mlen = 0;
    char *model = shc_pty_model_text(pty, &mlen);
    shc_call_end end = {true, st->exit_code, st->signal, NULL, 0, NULL};
    if (c->info.card != SHC_CARD_TERMINAL) {
        end.text = model;
        end.text_len = mlen;
    }
    if (st->timed_out && !st->signal) {
        end.exit_code = 124;
    }
    char *note = shc__sandbox_note(c, model, mlen, end.exit_code, !st->signal);
    char *gnote = shc__sandbox_git_note(c);
    if (gnote)
        c->turn->sess->git_changed = true;
    if (gnote && c->info.card == SHC_CARD_TERMINAL) { /* the user sees it on the card too */
        json_t *u = shc_present_output(&c->info, gnote, strlen(gnote));
        if (u)
            shc__call_send(c->turn, u);
        shc__rec_out(c, gnote, strlen(gnote));
    }
    for (int k = 0; k < 2; k++) {
        const char *add = k ? gnote : note;
        char *noted = add && model ? realloc(model, mlen + strlen(add) + 1) : NULL;
        if (noted) { /* the model reads it; the card shows the output as it came */
            memcpy(noted + mlen, add, strlen(add) + 1);
            model = noted;
            mlen += strlen(add);
            if (end.text)
                end.text = model;
        }
    }
    free(gnote);
    /* ask mode: the user may let it run again without the sandbox (shc__turn_progress) */
    c->offer = note && c->turn->sess->approve == SHC_APPROVE_ASK && !st->cancelled &&
               !c->turn->cancelled;
    free(note);
    c->pty = NULL;
    c->turn->br->nlocal--;
    wake_waiting(c->turn->br);
    shc__call_finish(c, &end, model, mlen, st->timed_out, st->cancelled);
    free(model);
    shc_pty_free(pty);
}

/* Runs the call on our PTY, or leaves it waiting (card shown, in progress) while max_commands
 * commands run: each running command holds up to about 1 MiB of output buffers, so this bounds
 * the memory of many sessions flooding at once. */
static void run_local(br_call *c)
{
    br_bridge *br = c->turn->br;
    const shc_bridge_config *cfg = &br->cfg;
    if (br->nlocal >= (cfg->max_commands ? cfg->max_commands : SHC_BR_MAX_COMMANDS)) {
        c->state = CALL_WAITING;
        return;
    }
    shc_pty_opts o = {
        .command = c->command,
        .shell = cfg->shell,
        .cwd = c->turn->sess->cwd,
        .login = cfg->login,
        .color = cfg->color,
        .cols = BR_PTY_COLS,
        .rows = BR_PTY_ROWS,
        .timeout_ms = cfg->timeout_ms,
        .input_wait_ms = cfg->input_wait_ms,
        .kill_grace_ms = cfg->kill_grace_ms ? cfg->kill_grace_ms : 1000,
        .model_cap = cfg->output_byte_limit,
        .has_tail_limit = true, /* the bridge never reads the tail ring: keep none */
        .tail_limit = 0,
        .chunk_bytes = cfg->chunk_bytes,
        .chunk_ms = cfg->chunk_ms,
        .on_output = on_pty_output,
        .on_exit = on_pty_exit,
        .payload = c,
    };
    shc__verify_opts(c, &o);
    const char *refused = NULL;
    if (shc__sandbox_opts(c, &o, &refused) != 0) {
        shc__verify_end(c);
        shc__call_not_run(c, refused, false);
        return;
    }
    shc_pty_error err;
    memset(&err, 0, sizeof err);
    c->state = CALL_RUNNING;
    if (shc_pty_spawn(&c->pty, br->exec, &o, &err) == 0) {
        br->nlocal++;
        shc__verify_started(c);
    } else {
        c->pty = NULL;
        shc__verify_end(c);
        shc_log_warn(br->log, "cannot run `%s`: %s", c->command, err.message);
        shc__call_not_run(c, err.message[0] ? err.message : "cannot start the command", false);
    }
}

/* ------------------------------------------------------------------ permission */

static void run_call(br_call *c)
{
    if (c->info.card == SHC_CARD_CLIENT_TERMINAL)
        shc__ct_run(c);
    else
        run_local(c);
}

static void on_permission(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    int allow = shc__permission_outcome(c, result, error);
    if (!allow) {
        shc__call_not_run(c, "rejected by the user", c->turn->cancelled);
        return;
    }
    const char *why;
    if (allow == 2 && c->held) /* the session's sandbox becomes off */
        shc__opt_set(c->turn->br, c->turn->sess, "sandbox", "off", &why);
    else if (allow == 2) /* the session's mode becomes "all" (announced) */
        shc__opt_set(c->turn->br, c->turn->sess, "mode", "all", &why);
    shc__call_send(c->turn, shc_present_status(&c->info, "in_progress"));
    shc__rec_status(c, "in_progress");
    run_call(c);
}

/* ------------------------------------------------------------------ starting a call */

static void start_call(br_call *c)
{
    br_turn *t = c->turn;
    br_session *s = t->sess;
    br_bridge *br = t->br;
    /* display only: the verdict never changes what runs.  The session's directory is real, so
     * the classifier also stat()s what the command would read (a FIFO or device is terminal). */
    shc_classify_opts copts = SHC_CLASSIFY_OPTS_INIT;
    copts.cwd = s->cwd;
    copts.context = SHC_CONTEXT_BRIDGE;
    if (shc_classify_ex(&c->verdict, c->command, strlen(c->command), &copts) != 0)
        c->verdict = NULL;
    snprintf(c->id, sizeof c->id, "call_%llu", ++s->ncalls);
    c->info = (shc_call_info){c->id,       c->command, s->cwd, c->description, c->verdict,
                              shc_present_card(c->verdict, &s->caps), NULL};
    /* a rerun without the sandbox (c->held) is always asked for, whatever the mode now */
    c->sandbox = c->held ? SHC_SANDBOX_OFF : s->sandbox;
    c->network = s->network;
    /* after a sandboxed command changed .git/config or a hook, what runs outside the sandbox
     * next (git would run them) is asked for, whatever the mode */
    bool gitask = c->sandbox == SHC_SANDBOX_OFF && s->git_changed;
    s->git_changed = s->git_changed && !gitask;
    bool ask = s->approve == SHC_APPROVE_ASK || c->held || gitask;
    json_t *tc = shc_present_tool_call(&c->info, ask ? "pending" : "in_progress");
    shc__sandbox_meta(c, tc);
    shc__call_send(t, tc);
    shc__rec_call(c, ask ? "pending" : "in_progress");
    shc_log_debug(br->log, "%s %s: %s card for `%s`", s->id, c->id, shc_card_name(c->info.card),
                  c->command);
    if (!ask) {
        run_call(c);
        return;
    }
    c->state = CALL_ASKING;
    json_t *params = shc__wire_permission(
        br, s, &c->info,
        gitask && !c->held
            ? json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s}]", "optionId", "allow", "name",
                        "Run it outside the sandbox (a sandboxed command changed the "
                        "repository's control files: check them first)",
                        "kind", "allow_once", "optionId", "reject", "name", "Reject", "kind",
                        "reject_once")
        : c->held ? json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s},{s:s,s:s,s:s}]", "optionId", "allow",
                            "name", "Run without the sandbox once", "kind", "allow_once",
                            "optionId", "allow_always", "name",
                            "Always without the sandbox in this session", "kind",
                            "allow_always", "optionId", "reject", "name", "Reject", "kind",
                            "reject_once")
                : json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s},{s:s,s:s,s:s}]", "optionId", "allow", "name",
                  "Allow", "kind", "allow_once", "optionId", "allow_always", "name",
                  "Always Allow", "kind", "allow_always", "optionId", "reject", "name", "Reject",
                  "kind", "reject_once"));
    int64_t id = 0;
    if (shc_rpc_request(br->rpc, "session/request_permission", params, on_permission, c, &id)) {
        shc__call_not_run(c, "rejected by the user", false);
        return;
    }
    c->req_id = id;
    shc__wire_flush(br);
}

/* ------------------------------------------------------------------ backend host callbacks */

static void host_message(void *payload, const char *text, size_t len, const char *kind)
{
    br_turn *t = payload;
    if (t->settled || t->cancelled || len == 0)
        return;
    json_t *s = json_stringn(text, len);
    if (!s)
        return;
    shc__call_send(t, json_pack("{s:s,s:{s:s,s:o}}", "sessionUpdate", kind, "content", "type", "text",
                      "text", s));
    shc__rec_text(t->sess, kind[6] == 'm' ? "message" : "thought", text, len);
}

static void host_message_chunk(void *payload, const char *text, size_t len)
{
    host_message(payload, text, len, "agent_message_chunk");
}

static void host_thought_chunk(void *payload, const char *text, size_t len)
{
    host_message(payload, text, len, "agent_thought_chunk");
}

static void host_turn_done(void *payload, shc_stop_reason reason, int code, const char *error);

/* An allocation failed: the turn ends with -32603 (its backend is told to stop). */
static void turn_oom(br_turn *t)
{
    if (t->be_done)
        return;
    t->oom = true;
    host_turn_done(t, SHC_STOP_END_TURN, SHC_RPC_INTERNAL_ERROR, NULL);
}

static void host_tool_call(void *payload, const char *call_id, const char *command,
                           const char *description)
{
    br_turn *t = payload;
    if (t->settled || t->cancelled || t->be_done)
        return;
    br_call *c = calloc(1, sizeof *c);
    if (c) {
        c->be_call_id = strdup(call_id ? call_id : "");
        c->command = strdup(command ? command : "");
        c->description = description ? strdup(description) : NULL;
    }
    if (!c || !c->be_call_id || !c->command || (description && !c->description)) {
        if (c) {
            free(c->be_call_id);
            free(c->command);
            free(c->description);
        }
        free(c);
        turn_oom(t); /* a call dropped silently would leave the backend waiting for ever */
        return;
    }
    c->turn = t;
    c->state = CALL_QUEUED;
    br_call **tail = &t->calls;
    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    shc__turn_kick(t);
}

static void host_turn_done(void *payload, shc_stop_reason reason, int code, const char *error)
{
    br_turn *t = payload;
    if (t->be_done)
        return;
    t->be_done = true;
    t->reason = reason;
    t->err_code = code;
    if (error)
        t->err_msg = strdup(error);
    shc__turn_kick(t);
}

/* ------------------------------------------------------------------ the turn */

static void call_free(br_call *c)
{
    if (!c)
        return;
    shc__sandbox_free(c);
    shc__mcp_call_free(c);
    call_free(c->held);
    if (c->req_id)
        shc_rpc_forget(c->turn->br->rpc, c->req_id);
    if (c->give_up_timer)
        shc_loop_cancel_timer(c->turn->br->loop, c->give_up_timer);
    drop_pty(c);
    shc__verify_end(c);
    shc_verdict_free(c->verdict);
    shc_ring_fini(&c->out_tail);
    free(c->be_call_id);
    free(c->command);
    free(c->description);
    free(c->client_tid);
    free(c->res_text);
    free(c->res_error);
    free(c->res_signal);
    free(c);
}

static const char *stop_name(shc_stop_reason r)
{
    switch (r) {
    case SHC_STOP_END_TURN: return "end_turn";
    case SHC_STOP_MAX_TOKENS: return "max_tokens";
    case SHC_STOP_MAX_TURN_REQUESTS: return "max_turn_requests";
    case SHC_STOP_REFUSAL: return "refusal";
    case SHC_STOP_CANCELLED: return "cancelled";
    }
    return "end_turn";
}

static void settle(br_turn *t)
{
    br_bridge *br = t->br;
    t->settled = true;
    if (t->sess->active == t)
        t->sess->active = NULL;
    const char *msg = t->oom && !t->err_msg ? "out of memory" : t->err_msg;
    shc__rec_turn(t, t->cancelled ? "cancelled" : stop_name(t->reason),
                  t->cancelled ? NULL : msg);
    if (t->cancelled)
        shc__wire_prompt_end(br, t->sess, t->prompt_id, "cancelled", 0, NULL);
    else
        shc__wire_prompt_end(br, t->sess, t->prompt_id, stop_name(t->reason), t->err_code, msg);
    br->hooks.settled(br, t->sess); /* a prompt queued or held behind this one may start now */
}

static bool busy(const br_turn *t)
{
    for (const br_call *c = t->calls; c; c = c->next)
        if (c->state == CALL_ASKING || c->state == CALL_RUNNING || c->state == CALL_WAITING)
            return true;
    return false;
}

static void turn_free(br_turn *t)
{
    br_bridge *br = t->br;
    br_session *s = t->sess;
    for (br_turn **pp = &s->turns; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    if (s->active == t)
        s->active = NULL;
    while (t->calls) {
        br_call *c = t->calls;
        t->calls = c->next;
        call_free(c);
    }
    if (t->kick_timer)
        shc_loop_cancel_timer(br->loop, t->kick_timer);
    if (t->bt)
        t->sess->be->ops->turn_free(t->bt);
    shc__mcp_held_free(t);
    json_decref(t->prompt_id);
    free(t->err_msg);
    free(t);
    br->hooks.turn_gone(br);
}

void shc__turn_progress(shc_loop *loop, void *payload)
{
    (void)loop;
    br_turn *t = payload;
    t->kick_timer = 0;
    /* hand finished calls back to the backend, in order */
    while (t->calls && t->calls->state == CALL_DONE) {
        br_call *c = t->calls;
        br_call *r = c->offer && !t->cancelled && !t->be_done && t->bt && !t->br->tearing
                         ? shc__sandbox_rerun(c)
                         : NULL;
        if (r) { /* a new call in its place, asked for; it holds c and its result */
            c->offer = false;
            r->next = c->next;
            t->calls = r;
            break;
        }
        t->calls = c->next;
        /* a rerun that did not run (rejected, or it could not start): the sandboxed result */
        const shc_tool_result *res = c->held && !c->res.ran ? &c->held->res : &c->res;
        if (!t->cancelled && !t->be_done && t->bt)
            t->sess->be->ops->tool_result(t->bt, res);
        call_free(c);
    }
    if (t->be_done || t->cancelled) {
        /* calls the backend emitted but that never started are dropped */
        for (br_call **pp = &t->calls; *pp;) {
            if ((*pp)->state == CALL_QUEUED) {
                br_call *c = *pp;
                *pp = c->next;
                call_free(c);
            } else {
                pp = &(*pp)->next;
            }
        }
    } else if (t->calls && t->calls->state == CALL_QUEUED && t->calls->mcp) {
        shc__mcp_start_call(t->calls);
        return;
    } else if (t->calls && t->calls->state == CALL_QUEUED) {
        start_call(t->calls);
        return; /* start_call kicks again when something changes */
    } else if (t->calls && t->calls->state == CALL_WAITING) {
        run_local(t->calls); /* a slot may be free now; if not it waits for the next wake */
        return;
    }
    if (busy(t))
        return;
    if (!t->settled && (t->be_done || t->cancelled))
        settle(t);
    if (t->settled && !busy(t) && !t->calls)
        turn_free(t);
}

int shc__turn_start(br_bridge *br, br_session *s, json_t *id, const shc_prompt_part *parts,
                    size_t nparts)
{
    br_turn *t = calloc(1, sizeof *t);
    if (!t)
        return SHC_E_NOMEM;
    t->sess = s;
    t->br = br;
    t->prompt_id = json_incref(id);
    t->host = (shc_backend_host){t,
                                 host_message_chunk,
                                 host_thought_chunk,
                                 host_tool_call,
                                 host_turn_done,
                                 shc__journal_history,
                                 shc__journal_usage,
                                 shc__journal_notice,
                                 shc__mcp_host_call};
    t->next = s->turns;
    s->turns = t;
    s->active = t;
    if (shc__mcp_hold(t, parts, nparts)) { /* mcpcall.c starts it once the servers settled */
        shc__turn_kick(t);
        return 0;
    }
    t->bt = s->be->ops->turn_start(s->be, br->loop, s->id, s->cwd, parts, nparts, &t->host);
    if (!t->bt && !t->be_done)
        host_turn_done(t, SHC_STOP_END_TURN, SHC_RPC_INTERNAL_ERROR, "the backend failed to start");
    shc__turn_kick(t);
    return 0;
}

void shc__turn_cancel(br_turn *t)
{
    if (t->cancelled || t->settled)
        return;
    br_bridge *br = t->br;
    t->cancelled = true; /* a new prompt now waits for this one's answer (bridge.c) */
    for (br_call *c = t->calls; c; c = c->next) {
        if (c->state == CALL_ASKING) {
            shc_rpc_notify(br->rpc, "$/cancel_request",
                           json_pack("{s:I}", "requestId", (json_int_t)c->req_id));
            shc_rpc_forget(br->rpc, c->req_id);
            c->req_id = 0;
            if (c->mcp)
                shc__mcp_not_run(c, "cancelled", true);
            else
                shc__call_not_run(c, "cancelled", true);
        } else if (c->state == CALL_WAITING) {
            shc__call_not_run(c, "cancelled", true);
        } else if (c->state == CALL_RUNNING && c->mcp) {
            shc__mcp_cancel_call(c);
        } else if (c->state == CALL_RUNNING) {
            c->cancel_requested = true;
            if (c->pty)
                shc_pty_cancel(c->pty);
            else
                shc__ct_cancel(c);
        }
    }
    if (t->bt && !t->be_done)
        t->sess->be->ops->cancel(t->bt);
    else if (t->mcp_held && !t->be_done) /* it never started: it ends here */
        host_turn_done(t, SHC_STOP_CANCELLED, 0, NULL);
    shc__wire_flush(br);
    shc__turn_kick(t);
}

void shc__turn_force(br_turn *t)
{
    t->cancelled = true;
    for (br_call *c = t->calls; c; c = c->next) {
        if (c->req_id) {
            shc_rpc_forget(t->br->rpc, c->req_id);
            c->req_id = 0;
        }
        if (c->mcp && (c->state == CALL_RUNNING || c->state == CALL_ASKING)) {
            shc__mcp_not_run(c, "killed at shutdown", true);
        } else if (c->state == CALL_RUNNING || c->state == CALL_ASKING || c->state == CALL_WAITING) {
            drop_pty(c);
            shc__call_not_run(c, "killed at shutdown", true);
        }
    }
    shc__turn_kick(t);
}
