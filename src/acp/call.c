/* The end of a tool call, shared by the local PTY path (turn.c) and the client-terminal path
 * (cterm.c): the final card, the result kept for the backend, and the kick that lets the turn
 * go on from the loop.  Below turn.c and cterm.c; it reaches the turn's progress only through
 * br->hooks.progress. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <stdlib.h>
#include <string.h>

void shc__turn_kick(br_turn *t)
{
    if (t->kick_timer == 0)
        t->kick_timer = shc_loop_timer(t->br->loop, 0, t->br->hooks.progress, t);
}

void shc__call_send(br_turn *t, json_t *update)
{
    shc__wire_update(t->br, t->sess, update);
}

void shc__call_finish(br_call *c, const shc_call_end *end, const char *model_text, size_t mlen,
                        bool timed_out, bool cancelled)
{
    br_turn *t = c->turn;
    shc__call_send(t, shc_present_final(&c->info, end));
    shc__rec_end(c, end, model_text, mlen);
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

void shc__call_not_run(br_call *c, const char *why, bool cancelled)
{
    shc_call_end end = {false, -1, NULL, NULL, 0, why};
    shc__call_finish(c, &end, why, strlen(why), false, cancelled);
}

int shc__permission_outcome(br_call *c, json_t *result, json_t *error)
{
    c->req_id = 0;
    json_t *outcome = json_object_get(result, "outcome");
    const char *kind = shc_rpc_str(json_object_get(outcome, "outcome"));
    const char *opt = shc_rpc_str(json_object_get(outcome, "optionId"));
    if (error)
        shc_log_warn(c->turn->br->log, "session/request_permission failed: %s",
                     shc_rpc_str(json_object_get(error, "message")));
    if (!kind || strcmp(kind, "selected") != 0 || !opt || c->turn->cancelled ||
        c->turn->br->tearing)
        return 0;
    return !strcmp(opt, "allow") ? 1 : !strcmp(opt, "allow_always") ? 2 : 0;
}
