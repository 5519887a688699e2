/* The bridge's outgoing side: the writer on the client's stdout (driven by the loop when the
 * pipe is full) and session/update notifications.  Below turn.c and bridge.c: it never calls
 * them by name; a broken stdout reaches the bridge's teardown through br->hooks. */
#include "acp/bridge_int.h"

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

void shc__wire_update(br_bridge *br, br_session *s, json_t *update)
{
    if (!update) {
        shc_log_warn(br->log, "dropping an update that could not be built");
        return;
    }
    shc_rpc_notify(br->rpc, "session/update",
                   json_pack("{s:s,s:o}", "sessionId", s->id, "update", update));
    shc__wire_flush(br);
}
