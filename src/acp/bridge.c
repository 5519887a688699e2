/* src/acp/ owns the ACP agent on stdio: NDJSON JSON-RPC framing (jsonrpc.c), the bridge's
 * methods, sessions and teardown (this file), turns and tool calls (turn.c), the writer and
 * session/update notifications (wire.c), and the presenter (present.c: verdict + client
 * capabilities -> card JSON, the only place that knows how a card looks on the wire).
 * May use: agent/ (the seam, never a particular backend), exec/, classify/ (through the public
 * API), base/.
 *
 * The ACP bridge: stdio transport on the loop, ACP methods, sessions, and the one teardown that
 * every exit path (stdin EOF, any catchable terminating signal, a broken stdout) goes through;
 * it ends in bounded time (children killed after teardown_ms, output given up after flush_ms).
 * Turns and tool calls live in turn.c, the writer in wire.c. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"
#include "base/signame.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void teardown(br_bridge *br, const char *why);
static void teardown_check(br_bridge *br);

/* ------------------------------------------------------------------ sessions */

static br_session *find_session(br_bridge *br, const char *id)
{
    for (br_session *s = br->sessions; s && id; s = s->next)
        if (!s->closing && !strcmp(s->id, id))
            return s;
    return NULL;
}

static void session_free(br_bridge *br, br_session *s)
{
    while (s->pending) { /* only on a failure path: settling drains the queue */
        br_pending *q = s->pending;
        s->pending = q->next;
        br->queued_bytes -= strlen(q->text);
        json_decref(q->id);
        free(q->text);
        free(q);
    }
    br->be->ops->session_end(br->be, s->id);
    shc__v2_free(s->v2);
    json_decref(s->v2_held);
    json_decref(s->v2_history);
    json_decref(s->close_id);
    free(s->cwd);
    free(s);
}

/* ------------------------------------------------------------------ methods */

static void invalid(br_bridge *br, json_t *id, const char *msg)
{
    shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
}

/* At most SHC_BR_MAX_SESSIONS sessions: the one used longest ago that has nothing running goes
 * (its backend state too; a prompt naming it later gets "unknown session").  False when every
 * session is busy. */
static bool make_room(br_bridge *br)
{
    size_t n = 0;
    br_session **oldest = NULL;
    for (br_session **pp = &br->sessions; *pp; pp = &(*pp)->next) {
        n++;
        br_session *s = *pp;
        if (!s->turns && !s->pending && (!oldest || s->used < (*oldest)->used))
            oldest = pp;
    }
    if (n < SHC_BR_MAX_SESSIONS)
        return true;
    if (!oldest)
        return false;
    br_session *s = *oldest;
    *oldest = s->next;
    shc_log_info(br->log, "session limit: %s is dropped", s->id);
    session_free(br, s);
    return true;
}

static void m_session_new(br_bridge *br, json_t *id, json_t *params)
{
    if (br->tearing) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the bridge is shutting down", NULL);
        return;
    }
    json_t *jcwd = json_object_get(params, "cwd");
    const char *cwd = shc_rpc_str(jcwd);
    json_t *mcp = json_object_get(params, "mcpServers");
    json_t *dirs = json_object_get(params, "additionalDirectories");
    struct stat st;
    if (!cwd || cwd[0] != '/') {
        invalid(br, id, json_is_string(jcwd) && json_string_value(jcwd)[0] == '/'
                            ? "session/new: cwd holds a NUL character"
                            : "session/new: cwd must be an absolute path");
        return;
    }
    if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        invalid(br, id, "session/new: cwd is not an existing directory");
        return;
    }
    if (mcp && !json_is_array(mcp)) {
        invalid(br, id, "session/new: mcpServers must be an array");
        return;
    }
    if (json_array_size(mcp) > 0) {
        invalid(br, id, "session/new: MCP servers are not supported by shcard (send an empty "
                        "mcpServers list)");
        return;
    }
    if (dirs && (!json_is_array(dirs) || json_array_size(dirs) > 0)) {
        invalid(br, id, "session/new: additionalDirectories are not supported");
        return;
    }
    if (!make_room(br)) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR,
                      "session/new: too many sessions are busy", NULL);
        return;
    }
    br_session *s = calloc(1, sizeof *s);
    if (!s || !(s->cwd = strdup(cwd))) {
        free(s);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        return;
    }
    snprintf(s->id, sizeof s->id, "sess_%s%llu", br->sess_prefix, ++br->nsessions);
    s->caps = br->caps; /* snapshot: a later initialize doesn't change this session */
    s->used = ++br->uses;
    s->next = br->sessions;
    br->sessions = s;
    shc_log_info(br->log, "session/new %s in %s", s->id, s->cwd);
    shc_rpc_respond(br->rpc, id, json_pack("{s:s}", "sessionId", s->id));
}

/* A prompt sent while the session's turn is cancelled but not answered yet waits for that
 * answer: no update of the new turn may come before it.  Takes text. */
static void queue_prompt(br_bridge *br, br_session *s, json_t *id, char *text)
{
    size_t len = strlen(text);
    size_t n = 0;
    for (br_pending *q = s->pending; q; q = q->next)
        n++;
    if (n >= SHC_BR_QUEUED_PROMPTS || br->queued_bytes + len > SHC_BR_QUEUED_BYTES) {
        free(text);
        invalid(br, id, "session/prompt: too many prompts wait behind a cancelled one");
        return;
    }
    br_pending *q = calloc(1, sizeof *q);
    if (!q) {
        free(text);
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        return;
    }
    q->id = json_incref(id);
    q->text = text;
    br->queued_bytes += len;
    br_pending **tail = &s->pending;
    while (*tail)
        tail = &(*tail)->next;
    *tail = q;
}

/* turn.c: the session's turn has just been answered.  The next queued prompt starts (or, when
 * it was cancelled while it waited, or the bridge is going away, is answered "cancelled"). */
static void on_settled(br_bridge *br, br_session *s)
{
    while (s->pending && !s->active) {
        br_pending *q = s->pending;
        s->pending = q->next;
        br->queued_bytes -= strlen(q->text);
        if (q->cancelled || br->tearing)
            shc_rpc_respond(br->rpc, q->id, json_pack("{s:s}", "stopReason", "cancelled"));
        else if (shc__turn_start(br, s, q->id, q->text) != 0)
            shc_rpc_error(br->rpc, q->id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
        json_decref(q->id);
        free(q->text);
        free(q);
    }
    shc__v2_on_settled(br, s); /* v2: the next held prompt is inserted */
    shc__wire_flush(br);
}

static void m_session_prompt(br_bridge *br, json_t *id, json_t *params)
{
    if (br->tearing) {
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "the bridge is shutting down", NULL);
        return;
    }
    br_session *s = find_session(br, shc_rpc_str(json_object_get(params, "sessionId")));
    json_t *prompt = json_object_get(params, "prompt");
    if (!s) {
        invalid(br, id, "session/prompt: unknown session");
        return;
    }
    if (!json_is_array(prompt) || json_array_size(prompt) == 0) {
        invalid(br, id, "session/prompt: prompt must be a non-empty array of content blocks");
        return;
    }
    s->used = ++br->uses;
    if (s->active && !s->active->cancelled && br->version != 2) {
        invalid(br, id, "session/prompt: a prompt is already in flight for this session");
        return;
    }
    const char *why = NULL;
    char *text = shc__prompt_text(prompt, s->cwd, &why);
    if (!text) {
        invalid(br, id, why);
        return;
    }
    bool blank = true;
    for (const char *p = text; *p && blank; p++)
        blank = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
    if (blank) {
        free(text);
        invalid(br, id, "session/prompt: empty prompt");
        return;
    }
    if (s->active) {
        if (br->version == 2) /* held until the session is idle */
            shc__v2_hold(br, s, id, prompt, text);
        else /* behind the cancelled turn, which must answer first */
            queue_prompt(br, s, id, text);
        return;
    }
    shc__wire_prompt_start(br, s, id, prompt); /* v2: inserted now, answered with its id */
    if (shc__turn_start(br, s, id, text) != 0 && br->version != 2)
        shc_rpc_error(br->rpc, id, SHC_RPC_INTERNAL_ERROR, "out of memory", NULL);
    free(text);
}

static void m_session_cancel(br_bridge *br, json_t *params)
{
    br_session *s = find_session(br, shc_rpc_str(json_object_get(params, "sessionId")));
    if (s)
        shc__v2_drop_held(br, s); /* v2: held prompts are answered -32800 */
    if (!s || !s->active)
        return; /* unknown or idle: nothing to do, and nothing to say */
    shc_log_info(br->log, "session/cancel %s", s->id);
    for (br_pending *q = s->pending; q; q = q->next)
        q->cancelled = true; /* answered "cancelled" in their turn, after the running one */
    shc__v2_cancelling(s);
    shc__turn_cancel(s->active);
}

static void on_message(void *payload, shc_rpc *rpc, json_t *id, const char *method,
                       json_t *params)
{
    br_bridge *br = payload;
    (void)rpc;
    bool known = shc__v2_method_known(br, method);
    if (!known) {
        /* the name is echoed, but never more than 128 bytes of it */
        size_t n = strlen(method), k = n > 128 ? 128 : n;
        while (k < n && k > 0 && ((unsigned char)method[k] & 0xC0) == 0x80)
            k--;
        if (id)
            shc_rpc_error(br->rpc, id, SHC_RPC_METHOD_NOT_FOUND, "Method not found",
                          json_pack("{s:s%}", "method", method, k));
        else
            shc_log_debug(br->log, "ignoring notification %.*s", (int)k, method);
        goto out;
    }
    if (params && !json_is_object(params)) {
        if (id)
            invalid(br, id, "params must be an object");
        goto out;
    }
    if (!strcmp(method, "session/cancel")) {
        m_session_cancel(br, params);
        if (id) /* a notification in ACP; a client that sent it as a request still gets one answer */
            shc_rpc_respond(br->rpc, id, json_object());
        goto out;
    }
    if (!id) {
        shc_log_warn(br->log, "%s sent as a notification: ignored", method);
        goto out;
    }
    if (!strcmp(method, "initialize"))
        shc__v2_initialize(br, id, params); /* v2.c: negotiation, each version's answer */
    else if (!strcmp(method, "authenticate"))
        shc_rpc_respond(br->rpc, id, json_object());
    else if (!strcmp(method, "session/new"))
        m_session_new(br, id, params);
    else if (!strcmp(method, "terminal/cancel"))
        shc__v2_terminal_cancel(br, id, params);
    else if (strcmp(method, "session/prompt"))
        shc__v2_session_method(br, id, method, params); /* list, resume, close, delete */
    else
        m_session_prompt(br, id, params);
out:
    shc__wire_flush(br);
}

/* ------------------------------------------------------------------ input */

static void on_stdin(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop;
    (void)events;
    br_bridge *br = payload;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        shc_rpc_feed_eof(br->rpc);
        br->in_eof = true;
        shc_loop_unwatch(br->loop, br->in_watch);
        br->in_watch = 0;
        teardown(br, n < 0 ? "stdin read error" : "stdin closed");
        return;
    }
    if (shc_rpc_feed(br->rpc, buf, (size_t)n) != 0)
        shc_log_error(br->log, "out of memory reading a message");
    shc__wire_flush(br);
}

/* ------------------------------------------------------------------ teardown */

/* v2 session/close and delete: a closed session whose turns are gone is answered and freed. */
static void reap_closed(br_bridge *br)
{
    for (br_session **pp = &br->sessions; *pp;) {
        br_session *s = *pp;
        if (!s->closing || s->turns) {
            pp = &s->next;
            continue;
        }
        *pp = s->next;
        if (s->close_id)
            shc_rpc_respond(br->rpc, s->close_id, json_object());
        session_free(br, s);
    }
    shc__wire_flush(br);
}

static void on_turn_gone(br_bridge *br)
{
    reap_closed(br);
    teardown_check(br);
}

static bool all_idle(const br_bridge *br)
{
    for (const br_session *s = br->sessions; s; s = s->next)
        if (s->turns)
            return false;
    return true;
}

/* The client stopped reading: what is still queued is given up so that the process ends. */
static void on_flush_deadline(shc_loop *loop, void *payload)
{
    br_bridge *br = payload;
    br->flush_timer = 0;
    if (!shc_rpc_queued(br->rpc) && br->finished)
        return;
    br->flush_late = true;
    shc_log_warn(br->log, "teardown: the client did not read %zu bytes of output in time; exiting",
                 shc_rpc_queued(br->rpc));
    shc_loop_stop(loop);
}

static void on_hard_deadline(shc_loop *loop, void *payload)
{
    br_bridge *br = payload;
    br->flush_late = true;
    shc_log_error(br->log, "teardown did not complete in time; exiting");
    shc_loop_stop(loop);
}

static void teardown_check(br_bridge *br)
{
    if (!br->tearing || br->finished || !all_idle(br))
        return;
    br->finished = true;
    if (br->teardown_timer) {
        shc_loop_cancel_timer(br->loop, br->teardown_timer);
        br->teardown_timer = 0;
    }
    while (br->sessions) {
        br_session *s = br->sessions;
        br->sessions = s->next;
        session_free(br, s);
    }
    shc_log_info(br->log, "teardown complete");
    br->flush_timer = shc_loop_timer(br->loop, br->cfg.flush_ms ? br->cfg.flush_ms : 2000,
                                     on_flush_deadline, br);
    shc__wire_flush(br); /* stops the loop once the queue is written (or the writer broke) */
}

static void on_teardown_deadline(shc_loop *loop, void *payload)
{
    (void)loop;
    br_bridge *br = payload;
    br->teardown_timer = 0;
    shc_log_warn(br->log, "teardown: children still running after the grace period; killing");
    for (br_session *s = br->sessions; s; s = s->next)
        for (br_turn *t = s->turns; t; t = t->next)
            shc__turn_force(t);
    shc_rpc_abandon_all(br->rpc);
}

static void teardown(br_bridge *br, const char *why)
{
    if (br->tearing)
        return; /* once: a second trigger waits for the same completion */
    br->tearing = true;
    shc_log_info(br->log, "teardown: %s", why);
    if (br->in_watch) {
        shc_loop_unwatch(br->loop, br->in_watch);
        br->in_watch = 0;
    }
    uint64_t ms = br->cfg.teardown_ms ? br->cfg.teardown_ms : 3000;
    br->teardown_timer = shc_loop_timer(br->loop, ms, on_teardown_deadline, br);
    /* Whatever happens below, the process ends: children killed after ms, the output given up
     * flush_ms after that; this last timer only catches a teardown that never completes. */
    uint64_t flush = br->cfg.flush_ms ? br->cfg.flush_ms : 2000;
    shc_loop_timer(br->loop, ms + flush + 1000, on_hard_deadline, br);
    for (br_session *s = br->sessions; s; s = s->next) {
        shc__v2_drop_held(br, s);
        shc__v2_cancelling(s);
        for (br_turn *t = s->turns; t; t = t->next)
            shc__turn_cancel(t);
    }
    /* the client may be gone: requests it will never answer must not hold the teardown */
    if (br->in_eof || shc_rpc_broken(br->rpc))
        shc_rpc_abandon_all(br->rpc);
    teardown_check(br);
}

/* Every catchable terminating signal (base/signame.c) comes here through the loop's signalfd,
 * so that SIGHUP from a closing terminal, SIGQUIT, SIGUSR1, a realtime signal... all end in the
 * one teardown instead of the default action, which would leave the commands running. */
static void on_signal(shc_loop *loop, int signo, void *payload)
{
    br_bridge *br = payload;
    if (signo == SIGPIPE && shc_loop_signal_sender(loop) == getpid())
        return; /* our own write to a closed pipe: the writer sees EPIPE and handles it */
    const char *name = shc_signal_name(signo);
    teardown(br, name ? name : "a signal");
}

/* ------------------------------------------------------------------ run */

static void set_nonblock(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return; /* a terminal or file: leave the shared file description alone */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void random_prefix(char *out, size_t cap)
{
    unsigned char r[6] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
            memset(r, 0, sizeof r);
        close(fd);
    }
    unsigned long long pid = (unsigned long long)getpid();
    snprintf(out, cap, "%02x%02x%02x%02x%02x%02x%llx_", r[0], r[1], r[2], r[3], r[4], r[5],
             pid & 0xfff);
}

int shc_bridge_run(shc_bridge_config *cfg)
{
    int status = 1;
    br_bridge *br = calloc(1, sizeof *br);
    if (!br) {
        if (cfg->backend)
            cfg->backend->ops->free(cfg->backend);
        return 1;
    }
    br->cfg = *cfg;
    br->log = &cfg->log;
    br->hooks.teardown = teardown;
    br->hooks.turn_gone = on_turn_gone;
    br->hooks.reap = reap_closed;
    br->hooks.progress = shc__turn_progress;
    br->hooks.settled = on_settled;
    br->be = cfg->backend;
    cfg->backend = NULL; /* ours now */
    if (!br->be) {
        shc_log_error(br->log, "no agent backend");
        goto fail;
    }
    br->approve = cfg->approve;
    if (br->approve == SHC_APPROVE_DEFAULT)
        br->approve = !strcmp(br->be->ops->name, "shell") ? SHC_APPROVE_ALL : SHC_APPROVE_ASK;
    br->in_fd = cfg->in_fd >= 0 ? cfg->in_fd : 0;
    br->out_fd = cfg->out_fd >= 0 ? cfg->out_fd : 1;
    if (cfg->session_prefix)
        snprintf(br->sess_prefix, sizeof br->sess_prefix, "%s", cfg->session_prefix);
    else
        random_prefix(br->sess_prefix, sizeof br->sess_prefix);
    signal(SIGPIPE, SIG_IGN); /* EPIPE comes back from write(); the executor resets children */
    set_nonblock(br->in_fd);
    set_nonblock(br->out_fd);
    shc_rpc_config rc = {cfg->max_line, shc__wire_writer(), br, on_message, br};
    br->loop = shc_loop_new();
    br->rpc = shc_rpc_new(&rc);
    if (!br->loop || !br->rpc)
        goto fail;
    br->exec = shc_exec_new(br->loop);
    if (!br->exec)
        goto fail;
    br->in_watch = shc_loop_watch(br->loop, br->in_fd, SHC_LOOP_READ, on_stdin, br);
    br->out_watch = shc_loop_watch(br->loop, br->out_fd, 0, shc__wire_on_writable, br);
    if (br->in_watch < 0 || br->out_watch < 0)
        goto fail;
    sigset_t term;
    shc_signal_terminating(&term);
    for (int sig = 1; sig < NSIG; sig++) {
        if (!sigismember(&term, sig) || shc_loop_signal(br->loop, sig, on_signal, br) == 0)
            continue;
        if (sig == SIGTERM || sig == SIGINT)
            goto fail;
        shc_log_warn(br->log, "cannot watch signal %d: %s", sig, strerror(errno));
    }
    shc_log_info(br->log, "ready (%s backend, approve %s%s)", br->be->ops->name,
                 br->approve == SHC_APPROVE_ASK ? "ask" : "all",
                 cfg->client_terminals ? ", client terminals" : "");
    int lr = shc_loop_run(br->loop);
    if (lr != 0)
        shc_log_error(br->log, "event loop failed: %s", strerror(-lr));
    status = br->finished && lr == 0 && !br->flush_late ? 0 : 1;
    shc_rpc_close_output(br->rpc); /* nothing is written after teardown */
fail:
    if (status != 0 && !br->finished)
        shc_log_error(br->log, "could not start or finish cleanly");
    while (br->sessions) { /* only on a failure path: normal teardown emptied it */
        br_session *s = br->sessions;
        br->sessions = s->next;
        while (s->turns)
            shc__turn_force(s->turns), s->turns = s->turns->next;
        session_free(br, s);
    }
    shc_exec_free(br->exec);
    shc_rpc_free(br->rpc);
    shc_loop_free(br->loop);
    if (br->be)
        br->be->ops->free(br->be);
    free(br);
    return status;
}
