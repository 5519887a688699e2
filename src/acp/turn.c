/* Turns and tool calls of the ACP bridge: backend callbacks, permissions, the local PTY path,
 * the client-terminal path, cancel, and answering each prompt exactly once.
 * See bridge_int.h for the re-entrancy rule every function here follows. */
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void progress(shc_loop *loop, void *payload);

void shc__turn_kick(br_turn *t)
{
    if (t->kick_timer == 0)
        t->kick_timer = shc_loop_timer(t->br->loop, 0, progress, t);
}

static void send(br_turn *t, json_t *update)
{
    shc__wire_update(t->br, t->sess, update);
}

/* ------------------------------------------------------------------ finishing a call */

static void call_finish(br_call *c, const shc_call_end *end, const char *model_text, size_t mlen,
                        bool timed_out, bool cancelled)
{
    br_turn *t = c->turn;
    send(t, shc_present_final(&c->info, end));
    c->res_text = model_text ? strndup(model_text, mlen) : strdup("");
    c->res_error = end->error ? strdup(end->error) : NULL;
    c->res_signal = end->signal ? strdup(end->signal) : NULL;
    c->res = (shc_tool_result){
        .call_id = c->be_call_id,
        .model_text = c->res_text,
        .ran = end->ran,
        .exit_code = end->exit_code,
        .signal = c->res_signal,
        .timed_out = timed_out,
        .cancelled = cancelled,
        .error = c->res_error,
    };
    c->state = CALL_DONE;
    shc__turn_kick(t);
}

static void call_not_run(br_call *c, const char *why, bool cancelled)
{
    shc_call_end end = {false, -1, NULL, NULL, 0, why};
    call_finish(c, &end, why, strlen(why), false, cancelled);
}

/* ------------------------------------------------------------------ local PTY */

static void on_pty_output(shc_pty *pty, const char *data, size_t len, void *payload)
{
    (void)pty;
    br_call *c = payload;
    if (c->info.card != SHC_CARD_TERMINAL || len == 0)
        return;
    json_t *u = shc_present_output(&c->info, data, len);
    if (u)
        send(c->turn, u);
}

static void on_pty_exit(shc_pty *pty, const shc_pty_status *st, void *payload)
{
    br_call *c = payload;
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
    c->pty = NULL;
    call_finish(c, &end, model, mlen, st->timed_out, st->cancelled);
    free(model);
    shc_pty_free(pty);
}

static void run_local(br_call *c)
{
    br_bridge *br = c->turn->br;
    const shc_bridge_config *cfg = &br->cfg;
    shc_pty_opts o = {
        .command = c->command,
        .cwd = c->turn->sess->cwd,
        .login = cfg->login,
        .color = cfg->color,
        .cols = BR_PTY_COLS,
        .rows = BR_PTY_ROWS,
        .timeout_ms = cfg->timeout_ms,
        .kill_grace_ms = cfg->kill_grace_ms ? cfg->kill_grace_ms : 1000,
        .model_cap = cfg->output_byte_limit,
        .chunk_bytes = cfg->chunk_bytes,
        .chunk_ms = cfg->chunk_ms,
        .on_output = on_pty_output,
        .on_exit = on_pty_exit,
        .payload = c,
    };
    shc_pty_error err;
    memset(&err, 0, sizeof err);
    c->state = CALL_RUNNING;
    if (shc_pty_spawn(&c->pty, br->exec, &o, &err) != 0) {
        c->pty = NULL;
        shc_log_warn(br->log, "cannot run `%s`: %s", c->command, err.message);
        call_not_run(c, err.message[0] ? err.message : "cannot start the command", false);
    }
}

/* ------------------------------------------------------------------ client terminals */

static void ignore_response(void *payload, json_t *result, json_t *error)
{
    (void)payload;
    (void)result;
    (void)error;
}

static void ct_request(br_call *c, const char *method, json_t *params, shc_rpc_response_fn fn);

static void ct_release(br_call *c)
{
    if (!c->client_tid)
        return;
    json_t *p = json_pack("{s:s,s:s}", "sessionId", c->turn->sess->id, "terminalId",
                          c->client_tid);
    shc_rpc_request(c->turn->br->rpc, "terminal/release", p, ignore_response, NULL, NULL);
    shc__wire_flush(c->turn->br);
}

static void ct_end(br_call *c, bool exited, int code, const char *sig, const char *out)
{
    if (c->give_up_timer) {
        shc_loop_cancel_timer(c->turn->br->loop, c->give_up_timer);
        c->give_up_timer = 0;
    }
    c->info.client_terminal_id = c->client_tid;
    shc_call_end end = {exited, code, sig, out, out ? strlen(out) : 0,
                        exited ? NULL : "the client terminal did not report an exit status"};
    call_finish(c, &end, out, out ? strlen(out) : 0, false, c->cancel_requested);
    ct_release(c);
}

static void on_ct_output(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    c->req_id = 0;
    (void)error;
    json_t *es = json_object_get(result, "exitStatus");
    json_t *code = json_object_get(es, "exitCode");
    const char *sig = json_string_value(json_object_get(es, "signal"));
    const char *out = json_string_value(json_object_get(result, "output"));
    bool exited = json_is_integer(code) || sig;
    ct_end(c, exited, json_is_integer(code) ? (int)json_integer_value(code) : -1, sig,
           out ? out : "");
}

static void on_ct_wait(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    c->req_id = 0;
    if (!result && !error) { /* abandoned: the client is gone */
        ct_end(c, false, -1, NULL, "");
        return;
    }
    (void)result;
    c->ct_step = CT_OUTPUT;
    ct_request(c, "terminal/output",
               json_pack("{s:s,s:s}", "sessionId", c->turn->sess->id, "terminalId", c->client_tid),
               on_ct_output);
}

static void on_ct_create(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    c->req_id = 0;
    const char *tid = json_string_value(json_object_get(result, "terminalId"));
    if (!tid) {
        const char *msg = json_string_value(json_object_get(error, "message"));
        char why[300];
        snprintf(why, sizeof why, "terminal/create failed: %s",
                 msg ? msg : error ? "error" : "no answer");
        call_not_run(c, c->cancel_requested ? "cancelled" : why, c->cancel_requested);
        return;
    }
    c->client_tid = strdup(tid);
    c->info.client_terminal_id = c->client_tid;
    json_t *u = shc_present_attach_terminal(&c->info);
    if (u)
        send(c->turn, u);
    if (c->cancel_requested) {
        ct_end(c, false, -1, NULL, ""); /* release kills it */
        return;
    }
    c->ct_step = CT_WAIT;
    ct_request(c, "terminal/wait_for_exit",
               json_pack("{s:s,s:s}", "sessionId", c->turn->sess->id, "terminalId", tid),
               on_ct_wait);
}

static void ct_request(br_call *c, const char *method, json_t *params, shc_rpc_response_fn fn)
{
    int64_t id = 0;
    if (shc_rpc_request(c->turn->br->rpc, method, params, fn, c, &id) != 0) {
        c->req_id = 0;
        if (c->client_tid)
            ct_end(c, false, -1, NULL, "");
        else
            call_not_run(c, "the client connection is closed", c->cancel_requested);
        return;
    }
    c->req_id = id;
    shc__wire_flush(c->turn->br);
}

static void run_client_terminal(br_call *c)
{
    br_bridge *br = c->turn->br;
    size_t limit = br->cfg.output_byte_limit ? br->cfg.output_byte_limit : (size_t)1 << 20;
    c->state = CALL_RUNNING;
    c->ct_step = CT_CREATE;
    ct_request(c, "terminal/create",
               json_pack("{s:s,s:s,s:[s,s],s:s,s:I}", "sessionId", c->turn->sess->id, "command",
                         "/bin/bash", "args", "-c", c->command, "cwd", c->turn->sess->cwd,
                         "outputByteLimit", (json_int_t)limit),
               on_ct_create);
}

static void ct_give_up(shc_loop *loop, void *payload)
{
    (void)loop;
    br_call *c = payload;
    c->give_up_timer = 0;
    if (c->state != CALL_RUNNING)
        return;
    if (c->req_id) {
        shc_rpc_forget(c->turn->br->rpc, c->req_id);
        c->req_id = 0;
    }
    if (c->client_tid)
        ct_end(c, false, -1, NULL, "");
    else
        call_not_run(c, "cancelled", true);
}

/* ------------------------------------------------------------------ permission */

static void run_call(br_call *c)
{
    if (c->info.card == SHC_CARD_CLIENT_TERMINAL)
        run_client_terminal(c);
    else
        run_local(c);
}

static void on_permission(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    c->req_id = 0;
    json_t *outcome = json_object_get(result, "outcome");
    const char *kind = json_string_value(json_object_get(outcome, "outcome"));
    const char *opt = json_string_value(json_object_get(outcome, "optionId"));
    if (error)
        shc_log_warn(c->turn->br->log, "session/request_permission failed: %s",
                     json_string_value(json_object_get(error, "message")));
    bool allow = kind && !strcmp(kind, "selected") && opt &&
                 (!strcmp(opt, "allow") || !strcmp(opt, "allow_always"));
    if (!allow || c->turn->cancelled || c->turn->br->tearing) {
        call_not_run(c, "rejected by the user", c->turn->cancelled);
        return;
    }
    if (!strcmp(opt, "allow_always"))
        c->turn->sess->approve_always = true;
    send(c->turn, shc_present_status(&c->info, "in_progress"));
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
    bool ask = br->approve == SHC_APPROVE_ASK && !s->approve_always;
    send(t, shc_present_tool_call(&c->info, ask ? "pending" : "in_progress"));
    shc_log_debug(br->log, "%s %s: %s card for `%s`", s->id, c->id, shc_card_name(c->info.card),
                  c->command);
    if (!ask) {
        run_call(c);
        return;
    }
    c->state = CALL_ASKING;
    json_t *params = shc__wire_permission(
        br, s, &c->info,
        json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s},{s:s,s:s,s:s}]", "optionId", "allow", "name",
                  "Allow", "kind", "allow_once", "optionId", "allow_always", "name",
                  "Always Allow", "kind", "allow_always", "optionId", "reject", "name", "Reject",
                  "kind", "reject_once"));
    int64_t id = 0;
    if (shc_rpc_request(br->rpc, "session/request_permission", params, on_permission, c, &id)) {
        call_not_run(c, "rejected by the user", false);
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
    send(t, json_pack("{s:s,s:{s:s,s:o}}", "sessionUpdate", kind, "content", "type", "text",
                      "text", s));
}

static void host_message_chunk(void *payload, const char *text, size_t len)
{
    host_message(payload, text, len, "agent_message_chunk");
}

static void host_thought_chunk(void *payload, const char *text, size_t len)
{
    host_message(payload, text, len, "agent_thought_chunk");
}

static void host_tool_call(void *payload, const char *call_id, const char *command,
                           const char *description)
{
    br_turn *t = payload;
    if (t->settled || t->cancelled || t->be_done)
        return;
    br_call *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->turn = t;
    c->be_call_id = strdup(call_id ? call_id : "");
    c->command = strdup(command ? command : "");
    c->description = description ? strdup(description) : NULL;
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
    if (c->req_id)
        shc_rpc_forget(c->turn->br->rpc, c->req_id);
    if (c->give_up_timer)
        shc_loop_cancel_timer(c->turn->br->loop, c->give_up_timer);
    shc_pty_free(c->pty);
    shc_verdict_free(c->verdict);
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
    if (t->cancelled)
        shc__wire_prompt_end(br, t->sess, t->prompt_id, "cancelled", 0, NULL);
    else
        shc__wire_prompt_end(br, t->sess, t->prompt_id, stop_name(t->reason), t->err_code,
                             t->err_msg);
    br->hooks.settled(br, t->sess); /* a prompt held behind this one may start now */
}

static bool busy(const br_turn *t)
{
    for (const br_call *c = t->calls; c; c = c->next)
        if (c->state == CALL_ASKING || c->state == CALL_RUNNING)
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
        br->be->ops->turn_free(t->bt);
    json_decref(t->prompt_id);
    free(t->err_msg);
    free(t);
    br->hooks.turn_gone(br);
}

static void progress(shc_loop *loop, void *payload)
{
    (void)loop;
    br_turn *t = payload;
    br_bridge *br = t->br;
    t->kick_timer = 0;
    /* hand finished calls back to the backend, in order */
    while (t->calls && t->calls->state == CALL_DONE) {
        br_call *c = t->calls;
        t->calls = c->next;
        if (!t->cancelled && !t->be_done && t->bt)
            br->be->ops->tool_result(t->bt, &c->res);
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
    } else if (t->calls && t->calls->state == CALL_QUEUED) {
        start_call(t->calls);
        return; /* start_call kicks again when something changes */
    }
    if (busy(t))
        return;
    if (!t->settled && (t->be_done || t->cancelled))
        settle(t);
    if (t->settled && !busy(t) && !t->calls)
        turn_free(t);
}

int shc__turn_start(br_bridge *br, br_session *s, json_t *id, const char *prompt)
{
    br_turn *t = calloc(1, sizeof *t);
    if (!t)
        return SHC_E_NOMEM;
    t->sess = s;
    t->br = br;
    t->prompt_id = json_incref(id);
    t->host = (shc_backend_host){t, host_message_chunk, host_thought_chunk, host_tool_call,
                                 host_turn_done};
    t->next = s->turns;
    s->turns = t;
    s->active = t;
    t->bt = br->be->ops->turn_start(br->be, br->loop, s->id, s->cwd, prompt, &t->host);
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
    t->cancelled = true;
    if (t->sess->active == t)
        t->sess->active = NULL; /* a new prompt may start while this one winds down */
    for (br_call *c = t->calls; c; c = c->next) {
        if (c->state == CALL_ASKING) {
            shc_rpc_notify(br->rpc, "$/cancel_request",
                           json_pack("{s:I}", "requestId", (json_int_t)c->req_id));
            shc_rpc_forget(br->rpc, c->req_id);
            c->req_id = 0;
            call_not_run(c, "cancelled", true);
        } else if (c->state == CALL_RUNNING) {
            c->cancel_requested = true;
            if (c->pty) {
                shc_pty_cancel(c->pty);
            } else {
                if (c->client_tid)
                    shc_rpc_request(br->rpc, "terminal/kill",
                                    json_pack("{s:s,s:s}", "sessionId", t->sess->id, "terminalId",
                                              c->client_tid),
                                    ignore_response, NULL, NULL);
                uint64_t grace = br->cfg.kill_grace_ms ? br->cfg.kill_grace_ms : 1000;
                c->give_up_timer = shc_loop_timer(br->loop, grace + 1000, ct_give_up, c);
            }
        }
    }
    if (t->bt && !t->be_done)
        br->be->ops->cancel(t->bt);
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
        if (c->state == CALL_RUNNING || c->state == CALL_ASKING) {
            shc_pty_free(c->pty); /* SIGKILL, reap, sweep; no callback */
            c->pty = NULL;
            call_not_run(c, "killed at shutdown", true);
        }
    }
    shc__turn_kick(t);
}
