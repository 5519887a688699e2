/* Flow control of the MCP client (docs/mcp.md "Floods"): what one server can make the agent
 * hold or do is bounded.  The queue toward a server: while more than SHC_MCP_QUEUE_HIGH bytes
 * wait for it its output is not read (back-pressure: what it makes us queue stays small), and
 * it fails when SHC_MCP_QUEUE_MAX bytes pile up (the model's own calls can be megabytes) or it
 * takes nothing for SHC_MCP_STALL_MS.  Its requests are answered at most
 * SHC_MCP_REQ_RATE a second; re-lists at most one round per SHC_MCP_RELIST_MS; its
 * descriptors come from the agent's budget (shc_mcp_budget).  client.c calls these. */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"

#include <dirent.h>
#include <sys/resource.h>

/* Bytes that wait for the server: the rpc's queue (stdio), the messages not sent yet (HTTP). */
static size_t queued(const mcp_server *s)
{
    return shc_rpc_queued(s->rpc) + (s->http ? shc__mcp_http_waiting(s) : 0);
}

static void on_stall(shc_loop *loop, void *payload)
{
    (void)loop;
    mcp_server *s = payload;
    s->stall_timer = 0;
    shc__mcp_up_fail(s, "does not read its input: %zu bytes have waited for it %llu s", queued(s),
                     (unsigned long long)(SHC_MCP_STALL_MS / 1000));
}

/* Writes what the rpc queued.  Flow control: while more than SHC_MCP_QUEUE_HIGH bytes wait
 * for the server, its output is not read (what it sends would only queue more answers), and
 * a server that takes nothing for SHC_MCP_STALL_MS, or lets SHC_MCP_QUEUE_MAX bytes pile up,
 * fails: it does not read its input. */
void shc__mcp_flush(mcp_server *s)
{
    if (!s->rpc || s->state == MS_FAILED)
        return;
    size_t before = queued(s);
    int rc = shc_rpc_flush(s->rpc);
    if (!s->http)
        shc__mcp_stdio_want_write(s, rc == 1);
    if (rc < 0) {
        shc__mcp_up_fail(s, "cannot write to the server");
        return;
    }
    size_t n = queued(s);
    if (n > SHC_MCP_QUEUE_MAX || (s->http && s->waiting > SHC_MCP_HTTP_WAITING)) {
        if (s->http)
            shc__mcp_up_fail(s, "does not read its input: %u messages (%zu bytes) wait for one of "
                             "its %d transfers (at most %d, %zu bytes)", s->waiting, n,
                             SHC_MCP_HTTP_TRANSFERS, SHC_MCP_HTTP_WAITING,
                             (size_t)SHC_MCP_QUEUE_MAX);
        else
            shc__mcp_up_fail(s, "does not read its input: %zu bytes wait for it (at most %zu)", n,
                             (size_t)SHC_MCP_QUEUE_MAX);
        return;
    }
    bool pause = n > SHC_MCP_QUEUE_HIGH;
    if (pause && s->paused && n < before && s->stall_timer) {
        /* it reads, if slowly (a large call's arguments): the stall counts from its last read */
        shc_loop_cancel_timer(s->m->env.loop, s->stall_timer);
        int t = shc_loop_timer(s->m->env.loop, SHC_MCP_STALL_MS, on_stall, s);
        s->stall_timer = t > 0 ? t : 0;
    }
    if (pause != s->paused) {
        s->paused = pause;
        if (!s->http)
            shc__mcp_stdio_want_read(s, !pause);
        if (s->stall_timer)
            shc_loop_cancel_timer(s->m->env.loop, s->stall_timer);
        s->stall_timer = 0;
        if (pause) {
            int t = shc_loop_timer(s->m->env.loop, SHC_MCP_STALL_MS, on_stall, s);
            s->stall_timer = t > 0 ? t : 0;
        }
    }
}

void shc__mcp_timers_stop(mcp_server *s)
{
    shc_loop *loop = s->m->env.loop;
    if (s->init_timer)
        shc_loop_cancel_timer(loop, s->init_timer);
    if (s->stall_timer)
        shc_loop_cancel_timer(loop, s->stall_timer);
    if (s->relist_timer)
        shc_loop_cancel_timer(loop, s->relist_timer);
    s->init_timer = s->stall_timer = s->relist_timer = 0;
}

/* Descriptors open in the agent now (the sessions' store files, commands, connections). */
static size_t fds_open(void)
{
    DIR *d = opendir("/proc/self/fd");
    size_t n = 0;
    if (!d)
        return 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n > 3 ? n - 3 : 0; /* ".", ".." and the directory's own */
}

/* The descriptors a server holds come from the agent's budget (shc_mcp_budget): at most half of
 * what RLIMIT_NOFILE leaves over SHC_MCP_FDS_KEPT for all the servers of all sessions, and
 * never so many that fewer than SHC_MCP_FDS_KEPT stay free now. */
bool shc__mcp_fds_take(mcp_server *s)
{
    shc_mcp_budget *b = s->m->env.budget;
    size_t need = s->http ? SHC_MCP_HTTP_TRANSFERS : SHC_MCP_STDIO_FDS;
    if (b) {
        struct rlimit rl;
        size_t lim = 1u << 20;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim)
            lim = (size_t)rl.rlim_cur;
        size_t room = lim > SHC_MCP_FDS_KEPT ? lim - SHC_MCP_FDS_KEPT : 0;
        b->fds_max = room / 2;
        if (b->fds_used + need > b->fds_max || fds_open() + need > room)
            return false;
        b->fds_used += need;
    }
    s->fds_held = need;
    return true;
}

void shc__mcp_fds_give(mcp_server *s)
{
    shc_mcp_budget *b = s->m->env.budget;
    if (b)
        b->fds_used -= s->fds_held < b->fds_used ? s->fds_held : b->fds_used;
    s->fds_held = 0;
}

/* Whether a request of the server is answered: at most SHC_MCP_REQ_RATE a second (each answer
 * is bytes the agent must hold until the server reads them); the others are counted. */
bool shc__mcp_answer_request(mcp_server *s)
{
    uint64_t sec = shc_loop_now_ms() / 1000;
    if (sec != s->req_window) {
        shc__mcp_requests_flush(s);
        s->req_window = sec;
        s->req_count = 0;
    }
    if (s->req_count >= SHC_MCP_REQ_RATE) {
        s->req_dropped++;
        return false;
    }
    s->req_count++;
    return true;
}

void shc__mcp_requests_flush(mcp_server *s)
{
    if (s->req_dropped)
        shc__mcp_log_line(s, "%zu requests of the server left unanswered (more than %d a second)",
                          s->req_dropped, SHC_MCP_REQ_RATE);
    s->req_dropped = 0;
}

static void relist_due(shc_loop *loop, void *payload)
{
    (void)loop;
    mcp_server *s = payload;
    s->relist_timer = 0;
    shc__mcp_relist(s);
}

static void relist_timeout(shc_loop *loop, void *payload)
{
    (void)loop;
    mcp_server *s = payload;
    s->init_timer = 0;
    shc__mcp_up_fail(s, "did not answer tools/list within %llu s",
                     (unsigned long long)(SHC_MCP_INIT_TIMEOUT_MS / 1000));
}

/* list_changed, coalesced: at most one tools/list round in flight (one more marked while it
 * runs) and one round started per SHC_MCP_RELIST_MS (or ten times what the last round took,
 * when that is longer); those that come meanwhile are one. */
void shc__mcp_relist(mcp_server *s)
{
    if (s->state == MS_LISTING) {
        s->relist = true;
        return;
    }
    if (s->state != MS_READY || s->relist_timer)
        return;
    /* a listing that costs the agent a lot is not asked for again soon: at most a tenth of
     * the time goes to re-listing one server */
    uint64_t gap = s->list_took * 10 > SHC_MCP_RELIST_MS ? s->list_took * 10 : SHC_MCP_RELIST_MS;
    uint64_t now = shc_loop_now_ms(), due = s->list_at + gap;
    if (s->list_at && now < due) {
        int t = shc_loop_timer(s->m->env.loop, due - now, relist_due, s);
        s->relist_timer = t > 0 ? t : 0;
        return;
    }
    /* a round has the first listing's deadline too (the listing's end cancels it) */
    if (!s->init_timer) {
        int t = shc_loop_timer(s->m->env.loop, SHC_MCP_INIT_TIMEOUT_MS, relist_timeout, s);
        s->init_timer = t > 0 ? t : 0;
    }
    s->up->list(s);
}


void shc__mcp_on_invalid(void *payload, const char *why)
{
    mcp_server *s = payload;
    if (s->state == MS_FAILED)
        return;
    if (!shc__mcp_answer_request(s)) /* counted against its request rate, and not said to */
        s->req_dropped--;             /* be a request left unanswered: it was none */
    if (++s->invalid == 1)
        shc__mcp_log_line(s, "wrote something that is not JSON-RPC (%s): not answered", why);
    if (s->invalid >= SHC_MCP_INVALID_MAX)
        shc__mcp_up_fail(s, "wrote %u messages that are not JSON-RPC (the last: %s)", s->invalid,
                         why);
}
