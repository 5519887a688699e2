/* The client-terminal path of a tool call: the command runs in the editor's own terminal
 * (terminal/create, wait_for_exit, output, always release; terminal/kill on cancel, and a
 * deadline after which the call ends anyway).  Below turn.c. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    shc__call_finish(c, &end, out, out ? strlen(out) : 0, false, c->cancel_requested);
    ct_release(c);
}

static void on_ct_output(void *payload, json_t *result, json_t *error)
{
    br_call *c = payload;
    c->req_id = 0;
    (void)error;
    json_t *es = json_object_get(result, "exitStatus");
    json_t *code = json_object_get(es, "exitCode");
    const char *sig = shc_rpc_str(json_object_get(es, "signal"));
    const char *out = shc_rpc_str(json_object_get(result, "output"));
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
    const char *tid = shc_rpc_str(json_object_get(result, "terminalId"));
    if (!tid) {
        const char *msg = shc_rpc_str(json_object_get(error, "message"));
        char why[300];
        snprintf(why, sizeof why, "terminal/create failed: %s",
                 msg ? msg : error ? "error" : "no answer");
        shc__call_not_run(c, c->cancel_requested ? "cancelled" : why, c->cancel_requested);
        return;
    }
    c->client_tid = strdup(tid);
    c->info.client_terminal_id = c->client_tid;
    json_t *u = shc_present_attach_terminal(&c->info);
    if (u)
        shc__call_send(c->turn, u);
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
            shc__call_not_run(c, "the client connection is closed", c->cancel_requested);
        return;
    }
    c->req_id = id;
    shc__wire_flush(c->turn->br);
}

void shc__ct_run(br_call *c)
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
        shc__call_not_run(c, "cancelled", true);
}

void shc__ct_cancel(br_call *c)
{
    br_bridge *br = c->turn->br;
    if (c->client_tid)
        shc_rpc_request(br->rpc, "terminal/kill",
                        json_pack("{s:s,s:s}", "sessionId", c->turn->sess->id, "terminalId",
                                  c->client_tid),
                        ignore_response, NULL, NULL);
    uint64_t grace = br->cfg.kill_grace_ms ? br->cfg.kill_grace_ms : 1000;
    c->give_up_timer = shc_loop_timer(br->loop, grace + 1000, ct_give_up, c);
}
