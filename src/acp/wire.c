/* The bridge's outgoing side: the writer on the client's stdout (driven by the loop when the
 * pipe is full) and session/update notifications, in the connection's dialect: a v1 frame goes
 * out as the presenter built it (`_meta.terminal_output` renamed `terminal_output_delta` for a
 * client that asked for that key alone), a v2 connection's through the encoder in v2enc.c.
 * Below turn.c and bridge.c: it never calls them by name; a broken stdout reaches the bridge's
 * teardown through br->hooks. */
#include "acp/bridge_int.h"

#include <string.h>
#include <unistd.h>

static ssize_t write_out(void *io, const void *buf, size_t len)
{
    br_bridge *br = io;
    return write(br->out_fd, buf, len);
}

shc_rpc_write_fn shc__wire_writer(void)
{
    return write_out;
}

static void on_broken_kick(shc_loop *loop, void *payload)
{
    (void)loop;
    br_bridge *br = payload;
    br->teardown_kick = 0;
    br->hooks.teardown(br, "stdout is closed");
}

/* The queue's size decides whether the PTYs (and, far past that, stdin) are read. */
static void pressure(br_bridge *br)
{
    size_t q = shc_rpc_queued(br->rpc);
    bool pause = br->out_paused ? q > SHC_BR_QUEUE_RESUME : q > SHC_BR_QUEUE_PAUSE;
    if (pause != br->out_paused) {
        br->out_paused = pause;
        shc_exec_pause(br->exec, pause);
        shc_log_debug(br->log, "%s reading commands' output (%zu bytes queued for the client)",
                      pause ? "pause" : "resume", q);
    }
    bool hold = br->in_paused ? q > SHC_BR_QUEUE_RESUME : q > SHC_BR_QUEUE_STDIN;
    if (hold != br->in_paused && br->in_watch > 0) {
        br->in_paused = hold;
        shc_loop_set_events(br->loop, br->in_watch, hold ? 0 : SHC_LOOP_READ);
    }
}

void shc__wire_flush(br_bridge *br)
{
    int rc = shc_rpc_flush(br->rpc);
    pressure(br);
    if (rc == 1) {
        shc_loop_set_events(br->loop, br->out_watch, SHC_LOOP_WRITE);
        return;
    }
    shc_loop_set_events(br->loop, br->out_watch, 0);
    if (rc < 0 && !br->tearing && !br->teardown_kick) {
        /* never tear down from inside whoever was writing: do it from the loop */
        br->teardown_kick = shc_loop_timer(br->loop, 0, on_broken_kick, br);
    }
    if (br->finished && (rc != 1))
        shc_loop_stop(br->loop);
}

void shc__wire_on_writable(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)fd;
    (void)events;
    shc__wire_flush(payload);
}

static void notify(br_bridge *br, br_session *s, json_t *update)
{
    shc_rpc_notify(br->rpc, "session/update",
                   json_pack("{s:s,s:o}", "sessionId", s->id, "update", update));
}

/* A v1 client that declared `_meta.terminal_output_delta` and not `terminal_output` gets the
 * terminal's chunks under that key (append semantics, like Zed's terminal_output). */
static void v1_delta(json_t *u)
{
    json_t *meta = json_object_get(u, "_meta");
    json_t *o = json_object_get(meta, "terminal_output");
    if (!o)
        return;
    json_object_set(meta, "terminal_output_delta", o);
    json_object_del(meta, "terminal_output");
}

void shc__wire_update(br_bridge *br, br_session *s, json_t *update)
{
    if (!update) {
        shc_log_warn(br->log, "dropping an update that could not be built");
        return;
    }
    if (br->version == 2) {
        json_t *frames = shc__v2_encode(br, s, update);
        size_t i;
        json_t *f;
        json_array_foreach(frames, i, f)
            notify(br, s, json_incref(f));
        json_decref(frames);
    } else {
        if (s->caps.terminal_output_delta && !s->caps.terminal_output)
            v1_delta(update);
        notify(br, s, update);
    }
    shc__wire_flush(br);
}

/* The user message as a v2 client sees it echoed: its text and resource_link blocks (the only
 * ones a prompt may hold), with the fields the schema requires. */
static json_t *echo_blocks(json_t *prompt)
{
    json_t *out = json_array();
    size_t i;
    json_t *b;
    json_array_foreach(prompt, i, b)
    {
        const char *type = json_string_value(json_object_get(b, "type"));
        const char *text = json_string_value(json_object_get(b, "text"));
        const char *uri = json_string_value(json_object_get(b, "uri"));
        const char *name = json_string_value(json_object_get(b, "name"));
        if (type && !strcmp(type, "text") && text)
            json_array_append_new(out, json_pack("{s:s,s:s}", "type", "text", "text", text));
        else if (type && !strcmp(type, "resource_link") && uri)
            json_array_append_new(out, json_pack("{s:s,s:s,s:s}", "type", "resource_link", "uri",
                                                 uri, "name", name ? name : uri));
    }
    return out;
}

void shc__wire_prompt_start(br_bridge *br, br_session *s, json_t *id, json_t *prompt, char *mid,
                            size_t cap)
{
    if (br->version != 2)
        return;
    shc__v2_new_message_id(br, s, mid, cap);
    shc_rpc_respond(br->rpc, id, json_pack("{s:s}", "messageId", mid));
    shc__wire_update(br, s, json_pack("{s:s,s:s,s:o}", "sessionUpdate", "user_message",
                                      "messageId", mid, "content", echo_blocks(prompt)));
    shc__wire_update(br, s, shc__v2_state(s, V2_RUNNING, NULL, 0, NULL));
}

void shc__wire_prompt_end(br_bridge *br, br_session *s, json_t *id, const char *stop, int code,
                          const char *message)
{
    if (br->version == 2) {
        notify(br, s, shc__v2_state(s, V2_IDLE, message ? "error" : stop,
                                    code ? code : SHC_RPC_INTERNAL_ERROR, message));
    } else if (message) {
        shc_rpc_error(br->rpc, id, code ? code : SHC_RPC_INTERNAL_ERROR, message, NULL);
    } else {
        shc_rpc_respond(br->rpc, id, json_pack("{s:s}", "stopReason", stop));
    }
    shc__wire_flush(br);
}

json_t *shc__wire_permission(br_bridge *br, br_session *s, const shc_call_info *info,
                             json_t *options)
{
    json_t *call = shc_present_permission_call(info);
    if (br->version != 2)
        return json_pack("{s:s,s:o,s:o}", "sessionId", s->id, "toolCall", call, "options",
                         options);
    json_t *state = NULL;
    const char *title = json_string_value(json_object_get(call, "title"));
    json_t *params = shc__v2_permission(s, info, title ? title : info->command, options, &state);
    json_decref(call);
    if (state)
        notify(br, s, state);
    return params;
}
